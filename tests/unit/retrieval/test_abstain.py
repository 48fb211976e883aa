"""The abstention gate's threshold rule (the maths is citebound.metrics, tested in tests/unit/metrics)."""

from __future__ import annotations

import math

import pytest

from citebound.metrics import pick_threshold
from citebound.retrieval.abstain import THRESHOLD_RULE, strength_feature, retrieval_strength
from citebound.types import Hit


def test_the_rule_cuts_halfway_between_calibration_examples():
    scores = [0.9, 0.8, 0.7, 0.3, 0.2, 0.1]
    answerable = [True, True, True, False, False, False]
    t, bacc, tpr, tnr = pick_threshold(scores, answerable, **THRESHOLD_RULE)
    assert t == pytest.approx(0.5) and (bacc, tpr, tnr) == (1.0, 1.0, 1.0)


def test_the_rule_breaks_ties_towards_zero():
    # cutting at 0.3 or at 0.7 both give balanced accuracy 0.75; the rule keeps the one nearer 0
    scores, answerable = [0.2, 0.4, 0.6, 0.8], [False, True, False, True]
    assert pick_threshold(scores, answerable, **THRESHOLD_RULE).threshold == pytest.approx(0.3)
    assert pick_threshold([-0.8, -0.6, -0.4, -0.2], answerable, **THRESHOLD_RULE).threshold == pytest.approx(-0.3)


def test_evidence_is_the_best_score_of_the_mode_feature():
    assert strength_feature("bm25") == "bm25" and strength_feature("hybrid") == "dense"
    hits = [Hit("S1", None, {"dense": 0.4}), Hit("S2", None, {"dense": 0.7, "bm25": 3.0})]  # type: ignore[arg-type]
    assert retrieval_strength(hits, "dense") == 0.7
    assert retrieval_strength(hits, "bm25") == 3.0
    assert retrieval_strength([], "dense") == -math.inf
