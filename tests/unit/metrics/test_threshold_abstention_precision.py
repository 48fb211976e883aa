"""`threshold_for_abstention_precision`: abstain on the most negatives while at least `target` of what is
abstained on is negative. Hand-worked cases and a brute-force check."""

import math
import random

import numpy as np
import pytest

from citebound.metrics import abstention_scores, candidates, threshold_for_abstention_precision


def test_hand_worked():
    # ascending: 0.05 neg, 0.1 neg, 0.2 POS, 0.3 neg, 0.8 POS, 0.9 POS
    scores = [0.1, 0.2, 0.3, 0.9, 0.8, 0.05]
    positive = [False, True, False, True, True, False]
    # target 0.8: cutting at 0.15 abstains on the two lowest negatives (precision 1.0, recall 2/3); cutting
    # above 0.3 catches all three but one answerable question with them (3/4 = 0.75 < 0.8)
    choice = threshold_for_abstention_precision(scores, positive, 0.8)
    assert choice.threshold == pytest.approx(0.15) and choice.tnr == pytest.approx(2 / 3) and choice.tpr == 1.0
    # target 0.75: the most negatives caught (all three), at the lowest such threshold, halfway 0.3 .. 0.8
    choice = threshold_for_abstention_precision(scores, positive, 0.75)
    assert choice.threshold == pytest.approx(0.55) and choice.tnr == 1.0 and choice.tpr == pytest.approx(2 / 3)


def test_a_score_of_minus_infinity_is_always_abstained_on():
    choice = threshold_for_abstention_precision([-math.inf, 0.5, 0.6], [False, True, True], 0.8)
    assert choice.threshold == pytest.approx(0.5 - 1e-6) and choice.tnr == 1.0 and choice.tpr == 1.0


def test_none_when_no_threshold_reaches_the_target():
    assert threshold_for_abstention_precision([0.1, 0.2], [True, False], 0.8) is None  # the positive is lowest
    assert threshold_for_abstention_precision([0.1, 0.2], [True, True], 0.5) is None  # no negative at all
    with pytest.raises(ValueError):
        threshold_for_abstention_precision([0.1], [False], 0.0)


@pytest.mark.parametrize("seed", range(5))
def test_equals_brute_force(seed):
    rng = random.Random(seed)
    n = 40
    positive = [rng.random() < 0.6 for _ in range(n)]
    scores = [round(rng.random() * 0.6 + (0.3 if p else 0.0), 2) for p in positive]  # ties on purpose
    for target in (0.6, 0.8, 0.9):
        best = None
        for t in candidates(scores, grid="midpoints"):
            figures = abstention_scores([s < t for s in scores], positive)
            if figures["tp"] + figures["fp"] and figures["precision"] >= target:
                key = (-figures["recall"], t)
                best = min(best, (key, t)) if best else (key, t)
        choice = threshold_for_abstention_precision(scores, positive, target)
        if best is None:
            assert choice is None
        else:
            assert choice.threshold == pytest.approx(best[1])
            assert choice.tnr == pytest.approx(np.mean([s < choice.threshold for s, p in zip(scores, positive) if not p]))
