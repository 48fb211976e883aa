"""Where the shared data sets sit (../shared/data beside the repository), and a skip when one is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def need(path: Path) -> Path:
    """`path`, or skip the test with a reason naming it when it is not here."""
    if not path.exists():
        pytest.skip(f"{path} is not here (the shared data sets sit beside the repository)")
    return path
