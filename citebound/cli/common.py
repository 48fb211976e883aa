"""What several commands share: where the knowledge base is, and backend options from the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citebound import config
from citebound.errors import InputError

KB_HELP = "Knowledge-base folder, or a postgresql:// URL (default: $CITEBOUND_KB)."
RAY_HELP = ("Run on Ray (the optional extra named ray): local (start one on this machine), auto (the running "
            "cluster), or an address (ray://host:10001). Same results as without.")
WORKERS_HELP = "Workers: Ray actors with --ray (default: the cluster's CPUs), else local processes (default 1)."


def kb_path(kb: str | Path | None) -> Path | str:
    """The --kb folder (a Path) or postgresql:// URL (kept as text), else $CITEBOUND_KB; an error naming
    both when neither is given."""
    given = kb or config.env("CITEBOUND_KB")
    if not given:
        raise InputError("no knowledge base given: pass --kb DIR (or a postgresql:// URL) or set CITEBOUND_KB")
    given = str(given)
    return given if given.lower().startswith(("postgresql://", "postgres://")) else Path(given)


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """`key=value` pairs; values are read as JSON when they parse (numbers, true/false), else as text."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"backend option {pair!r} is not key=value")
        try:
            options[key.strip().replace("-", "_")] = json.loads(value)
        except ValueError:
            options[key.strip().replace("-", "_")] = value
    return options


def executor(ray: str | None, workers: int | None):  # noqa: ANN201 - a citebound.parallel executor
    """The executor for --ray / --workers (citebound.parallel.make_executor)."""
    from citebound.parallel import make_executor

    return make_executor(ray=ray, workers=workers)
