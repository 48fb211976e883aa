"""training/pairs.py `written_pairs`: the helper-written training pairs (training/data/written/). The held-out
fifth is chosen by the source's text, so it never leaks into training whatever the file order, and every
row is a well-formed pair with a label of the two the checker returns."""

from __future__ import annotations

import random

import pairs  # training/pairs.py (pyproject: pythonpath)


def test_every_written_row_is_a_labelled_pair():
    rows = pairs.written_rows() + pairs.written_rows(holdout=True)
    assert len(rows) > 1000
    for row in rows:
        assert row["label"] in {"supported", "unsupported"}, row
        assert row["claim"].strip() and row["source"].strip(), row
    labels = [r["label"] for r in rows]
    assert 0.35 < labels.count("supported") / len(labels) < 0.65


def test_the_holdout_is_a_fifth_by_source_and_never_trained_on():
    train, held = pairs.written_rows(), pairs.written_rows(holdout=True)
    train_sources = {r["source"].strip() for r in train}
    held_sources = {r["source"].strip() for r in held}
    assert not train_sources & held_sources
    assert 0.12 < len(held_sources) / (len(held_sources) + len(train_sources)) < 0.28
    got, counts = pairs.written_pairs(random.Random(1))
    assert len(got) == len(train)
    assert {e.strip() for _, e, _, _ in got} == train_sources
    # the split does not depend on where a source sits in the files
    assert pairs.is_written_holdout("  " + held[0]["source"] + "\n")


def test_a_draw_is_the_same_pairs_in_another_order():
    a, _ = pairs.written_pairs(random.Random(1))
    b, _ = pairs.written_pairs(random.Random(2))
    assert sorted(a) == sorted(b) and a != b
