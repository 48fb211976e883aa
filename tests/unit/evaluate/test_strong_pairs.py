"""training/pairs.py `strong_pairs` (rule/strong_*): sentences with a strong word ("all", "must", "always",
"only") copied or restated -> supported, the word turned into its opposite -> not supported. Written after
stage 6k's model called "All orders over 50 euros ship free." unsupported against the same sentence: the
'kinds' generator had shown those words only in unsupported claims. Hand-written documents, no shared data."""

from __future__ import annotations

import random

import pairs  # training/pairs.py (pyproject: pythonpath)


DOCS = [
    ("shop", "All orders over 50 euros ship free within Germany. Tenants are required to pay rent by the 5th "
             "of each month. Only members can book the sauna on weekends. The office is always closed on "
             "Sundays. Refunds must never be paid in cash."),
    ("lab", "Every sample is frozen within two hours of collection. The reactor was fully shut down in 2011. "
            "Visitors have to sign in at the front desk. The results were never published in a journal."),
]


def test_an_obligation_is_restated_with_must_and_only_is_left_out():
    assert pairs.strong_restated("Tenants are required to pay rent by the 5th.") == (
        "Tenants must pay rent by the 5th.", "strong_must_restated")
    assert pairs.strong_restated("Visitors have to sign in at the desk.") == ("Visitors must sign in at the desk.", "strong_must_restated")
    assert pairs.strong_restated("Only members can book the sauna.") == ("Members can book the sauna.", "strong_only_dropped")
    # "not only" and "the only" change meaning when "only" goes: left alone
    assert pairs.strong_restated("It is not only cheap but fast.") is None
    assert pairs.strong_restated("She was the only member present.") is None


def test_a_strong_word_turned_into_its_opposite():
    assert pairs.strong_opposite("Refunds must never be paid in cash.") == "Refunds may be paid in cash."
    assert pairs.strong_opposite("Guests must leave by noon.") == "Guests need not leave by noon."
    assert pairs.strong_opposite("The office is always closed on Sundays.") == "The office is never closed on Sundays."
    assert pairs.strong_opposite("All orders over 50 euros ship free.") == "Not all orders over 50 euros ship free."
    assert pairs.strong_opposite("The lab freezes every sample.") == "The lab freezes no sample."
    assert pairs.strong_opposite("The river is wide.") is None


def test_strong_words_appear_on_both_sides_of_the_label():
    got = []
    for seed in range(40):
        got += pairs.strong_pairs(random.Random(seed), per_doc=5, docs=DOCS)[0]
    kinds = {(k, y) for _, _, y, k in got}
    assert {("rule/strong_copy", 1), ("rule/strong_must_restated", 1), ("rule/strong_only_dropped", 1),
            ("rule/strong_opposite", 0)} <= kinds
    assert all(y == (k != "rule/strong_opposite") for k, y in kinds)
    # the point of the generator: supported claims that say "all" and "must" ('kinds' makes the unsupported
    # ones, "some" -> "all", "may" -> "must"); "all" on both sides here ("All ..." -> "Not all ...")
    assert {y for c, _, y, _ in got if "all " in c.lower()} == {0, 1}
    assert 1 in {y for c, _, y, _ in got if "must " in c}
    for claim, doc, y, kind in got:
        if kind == "rule/strong_copy":
            assert all(w.strip(".,") in doc for w in claim.split())
        if not y:
            assert claim not in doc
