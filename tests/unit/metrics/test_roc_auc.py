"""ROC AUC as the Mann-Whitney statistic, ties counted half."""

import math

import pytest

from citebound.metrics import roc_auc


def test_separable_scores_give_one_and_reversed_give_zero():
    assert roc_auc([0.9, 0.8, 0.2, 0.1], [True, True, False, False]) == 1.0
    assert roc_auc([0.1, 0.2, 0.8, 0.9], [True, True, False, False]) == 0.0


def test_hand_worked_case_with_a_tie():
    # positives 0.6, 0.5, 0.4 against negatives 0.5, 0.3, 0.2: 3 + 2.5 (0.5 vs 0.5 is a tie) + 2 of 9 pairs
    assert roc_auc([0.6, 0.5, 0.4, 0.5, 0.3, 0.2], [True, True, True, False, False, False]) == pytest.approx(7.5 / 9)


def test_infinite_scores_are_ordinary_values_and_an_empty_class_is_nan():
    assert roc_auc([-math.inf, 0.1, -math.inf], [True, True, False]) == pytest.approx(0.75)  # (0.5 + 1) / 2
    assert math.isnan(roc_auc([0.1, 0.2], [True, True]))
