"""The blind one-line sets of bench/data/unseen_cases are well formed (bench/unseen_cases.py reads them).

They are never tuned on, so nothing here asserts a checker's result on them: only that each set is what
the protocol says — unique ids, a gold label of the two the bench counts, one short claim against one short
source, and faithful and unsupported claims near half and half (balanced accuracy needs both)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SETS = sorted((Path(__file__).resolve().parents[3] / "bench" / "data" / "unseen_cases").glob("*.jsonl"))


def test_there_are_sets():
    assert len(SETS) >= 5


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.name)
def test_a_set_is_well_formed(path):
    cases = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert len(cases) >= 40
    assert len({c["id"] for c in cases}) == len(cases)
    for c in cases:
        assert set(c) >= {"id", "kind", "gold", "claim", "source"}, c
        assert c["gold"] in ("supported", "unsupported"), c
        # (200: the tenth set's writer wrote a 168-character claim, a summary sentence a user would check)
        assert 0 < len(c["claim"]) < 200 and 0 < len(c["source"]) < 240, c["id"]
        assert c["claim"] != c["source"], c["id"]
    faithful = sum(c["gold"] == "supported" for c in cases) / len(cases)
    assert 0.4 <= faithful <= 0.6, faithful


# Known, and why: the issue's own example ("330 m" / "330 metres") was a plain case before the first set was
# written, and the set's writer used it too; the set's figures include it.
KNOWN_OVERLAPS = {"cases.jsonl": {"s37"}}


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.name)
def test_no_case_is_also_a_plain_case(path):
    """A blind case copied into the plain cases would be tuned on: the claims must differ."""
    plain = Path(__file__).with_name("plain_cases.jsonl")
    plain_pairs = {(c["claim"], c["source"]) for c in map(json.loads, plain.read_text().splitlines()) if c}
    cases = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    overlaps = {c["id"] for c in cases if (c["claim"], c["source"]) in plain_pairs}
    assert overlaps == KNOWN_OVERLAPS.get(path.name, set())
