"""The real `citebound` entry point in a subprocess: exit codes and one-line errors, as a user sees them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "CITEBOUND_CACHE": str(cwd / "cache"), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "citebound.cli", *args], capture_output=True, text=True, cwd=cwd, env=env)


def test_ingest_remove_and_errors_through_the_entry_point(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tides.md").write_text("# Tides\n\nTides are caused by the Moon.", encoding="utf-8")
    (docs / "blob.dat").write_bytes(b"\x00" * 10)
    done = _run("ingest", "docs", "--kb", "kb", "--no-embed", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "1 added" in done.stdout and "skipped" in done.stderr and "blob.dat" in done.stderr
    again = _run("ingest", "docs", "--kb", "kb", "--no-embed", cwd=tmp_path)
    assert "1 unchanged" in again.stdout
    gone = _run("remove", "docs/tides.md", "--kb", "kb", cwd=tmp_path)
    assert gone.returncode == 0 and "KB revision 2" in gone.stdout
    for args in (("remove", "docs/nope.md", "--kb", "kb"), ("remove", "x", "--kb", "missing-kb")):
        bad = _run(*args, cwd=tmp_path)
        assert bad.returncode == 2
        assert "Traceback" not in bad.stderr and bad.stderr.strip().startswith("error:")
