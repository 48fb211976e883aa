from __future__ import annotations

import numpy as np
import pytest

from citebound.retrieval.abstain import balanced_accuracy, choose_threshold, roc_auc


def test_threshold_separates_separable_scores():
    scores = [0.9, 0.8, 0.7, 0.3, 0.2, 0.1]
    answerable = [True, True, True, False, False, False]
    t, bacc, tpr, tnr = choose_threshold(scores, answerable)
    assert 0.3 < t < 0.7
    assert (bacc, tpr, tnr) == (1.0, 1.0, 1.0)
    assert roc_auc(np.array(scores), np.array(answerable)) == 1.0


def test_balanced_accuracy_ignores_class_balance():
    scores = np.array([0.9] * 9 + [0.1])
    answerable = np.array([True] * 9 + [False])
    assert balanced_accuracy(scores, answerable, 0.5) == (1.0, 1.0, 1.0)
    # answering everything scores 0.5, however many answerable questions there are
    assert balanced_accuracy(scores, answerable, 0.0)[0] == pytest.approx(0.5)


def test_overlapping_scores_give_the_best_cut_and_auc_counts_ties_half():
    scores = [0.6, 0.5, 0.4, 0.5, 0.3, 0.2]
    answerable = [True, True, True, False, False, False]
    t, bacc, _, _ = choose_threshold(scores, answerable)
    assert bacc == pytest.approx(max(balanced_accuracy(np.array(scores), np.array(answerable), c)[0] for c in [0.25, 0.35, 0.45, 0.55]))
    assert roc_auc(np.array(scores), np.array(answerable)) == pytest.approx((3 + 2.5 + 2) / 9)  # 0.5 vs 0.5 is a tie


def test_answer_rate_objective_keeps_the_requested_share_of_answerable_questions():
    from citebound.retrieval.abstain import threshold_for_answer_rate

    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05, 0.65, 0.55])
    answerable = np.array([True] * 10 + [False, False])
    t, _, tpr, tnr = threshold_for_answer_rate(scores, answerable, min_answered=0.8)
    assert tpr == pytest.approx(0.8)  # 8 of 10 answerable kept: the two lowest fall below
    assert 0.1 < t <= 0.2 and tnr == 0.0
    t, _, tpr, _ = threshold_for_answer_rate(scores, answerable, min_answered=1.0)
    assert tpr == 1.0 and t <= 0.05
