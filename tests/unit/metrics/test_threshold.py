"""The one threshold picker: hand-worked cases for each of its choices, and the brute-force optimum."""

import itertools
import random

import numpy as np
import pytest

from citebound.metrics import balanced_accuracy, candidates, pick_threshold, threshold_for_recall


def test_separable_scores_are_cut_between_the_classes():
    scores = [0.9, 0.8, 0.7, 0.3, 0.2, 0.1]
    positive = [True, True, True, False, False, False]
    choice = pick_threshold(scores, positive, grid="midpoints")
    assert choice.threshold == pytest.approx(0.5)  # halfway between 0.3 and 0.7, not on an example
    assert (choice.balanced_accuracy, choice.tpr, choice.tnr) == (1.0, 1.0, 1.0)
    assert pick_threshold(scores, positive, grid="scores").threshold == 0.7  # on the example itself


def test_grids():
    assert candidates([0.2, 0.4, 0.4, float("-inf")], grid="scores").tolist() == [0.2, 0.4]
    assert candidates([0.2, 0.4], grid="midpoints") == pytest.approx([0.2 - 1e-6, 0.3, 0.4 + 1e-6])
    assert candidates([0.2, 0.4], blocked=[False, True], extra=(2.0,)).tolist() == [0.2, 2.0]
    capped = candidates(np.linspace(0, 1, 101), max_candidates=4)
    assert capped == pytest.approx([0, 0.25, 0.5, 0.75, 1.0])  # 5 quantiles instead of 101 scores


def test_ties_go_to_the_preferred_threshold_then_the_lowest():
    # 0.2 | 0.4 | 0.6 | 0.8: positives at 0.4 and 0.8, negatives at 0.2 and 0.6. Cutting at 0.4 and at 0.8
    # both give BA 0.75 (TPR 1 & TNR 1/2, or TPR 1/2 & TNR 1).
    scores, positive = [0.2, 0.4, 0.6, 0.8], [False, True, False, True]
    assert pick_threshold(scores, positive, prefer=None).threshold == 0.4
    assert pick_threshold(scores, positive, prefer=0.75).threshold == 0.8
    assert pick_threshold(scores, positive, prefer=0.0).threshold == 0.4
    assert pick_threshold(scores, positive, prefer=0.6).threshold == 0.4  # equally near: the lowest
    assert pick_threshold(scores, positive, prefer=None).balanced_accuracy == 0.75


def test_blocked_rows_are_negative_at_every_threshold():
    # the positive at 0.9 is blocked: no threshold can call it positive, and 0.9 is not a candidate
    scores, positive, blocked = [0.9, 0.5, 0.1], [True, True, False], [True, False, False]
    choice = pick_threshold(scores, positive, blocked=blocked)
    assert choice.threshold == 0.5 and choice.tpr == 0.5 and choice.tnr == 1.0
    assert choice.balanced_accuracy == 0.75


def test_groups_weigh_equally():
    # group a: 16 rows (positives at 0.6; negatives at 0.4 and 0.1); group b: 2 rows (0.3 positive, 0.1 not).
    # At 0.5 a is perfect (BA 1) and b answers nothing (0.5): mean 0.75. At 0.2 a lets its 0.4 negatives
    # through (0.75) and b is perfect (1): mean 0.875, the best. Pooled, a's rows would outvote b's: 0.5.
    scores = [0.6] * 8 + [0.4] * 4 + [0.1] * 4 + [0.3, 0.1]
    positive = [True] * 8 + [False] * 8 + [True, False]
    groups = ["a"] * 16 + ["b"] * 2
    choice = pick_threshold(scores, positive, groups=groups, grid="midpoints")
    assert choice.threshold == pytest.approx(0.2) and choice.balanced_accuracy == 0.875
    assert choice.tpr == 1.0 and choice.tnr == pytest.approx((0.5 + 1) / 2)  # means over the groups
    assert pick_threshold(scores, positive, grid="midpoints").threshold == pytest.approx(0.5)


def test_no_candidate_means_every_row_positive():
    choice = pick_threshold([float("-inf"), float("-inf")], [True, False], grid="midpoints")
    assert choice == (float("-inf"), 0.5, 1.0, 0.0)


@pytest.mark.parametrize("seed", range(5))
def test_the_sweep_equals_brute_force(seed):
    rng = random.Random(seed)
    n = 40
    scores = [round(rng.random(), 1) for _ in range(n)]  # coarse: many ties
    positive = [rng.random() < 0.5 for _ in range(n)]
    blocked = [rng.random() < 0.2 for _ in range(n)]
    positive[:2] = [True, False]
    choice = pick_threshold(scores, positive, blocked=blocked, prefer=0.5)

    def ba(t):
        return balanced_accuracy(positive, [not b and s >= t for s, b in zip(scores, blocked)])

    cands = sorted({s for s, b in zip(scores, blocked) if not b})
    best = max(ba(t) for t in cands)
    assert choice.balanced_accuracy == pytest.approx(best)
    assert ba(choice.threshold) == pytest.approx(best)
    assert choice.threshold == min((t for t in cands if ba(t) == best), key=lambda t: (abs(t - 0.5), t))


def test_threshold_for_recall_keeps_the_requested_share_of_positives():
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05, 0.65, 0.55])
    positive = np.array([True] * 10 + [False, False])
    choice = threshold_for_recall(scores, positive, min_recall=0.8)
    assert choice.tpr == pytest.approx(0.8)  # 8 of 10 positives kept: the two lowest fall below
    assert 0.1 < choice.threshold <= 0.2 and choice.tnr == 0.0
    choice = threshold_for_recall(scores, positive, min_recall=1.0)
    assert choice.tpr == 1.0 and choice.threshold <= 0.05
    assert list(itertools.islice(threshold_for_recall([0.3], [False], 0.9), 1)) == [float("-inf")]
