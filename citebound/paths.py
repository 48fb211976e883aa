"""Where citebound keeps caches: one root for every cache (evaluation KBs, judge verdicts), so users and
tests move them all with one variable. Standard library only: the standalone verifier imports it."""

from __future__ import annotations

from pathlib import Path

from citebound import config


def cache_root() -> Path:
    """`$CITEBOUND_CACHE`, else `$XDG_CACHE_HOME/citebound`, else `~/.cache/citebound`."""
    if env := config.env("CITEBOUND_CACHE"):
        return Path(env).expanduser()
    base = config.env("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "citebound"
