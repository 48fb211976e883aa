"""Balanced accuracy: the mean of the per-class recalls."""

import pytest

from citebound.metrics import balanced_accuracy, class_recalls


def test_hand_worked_case():
    # positives: 2 of 3 found (TPR 2/3); negatives: 1 of 1 rejected (TNR 1)
    gold = [True, True, True, False]
    predicted = [True, True, False, False]
    assert class_recalls(gold, predicted) == (pytest.approx(2 / 3), 1.0)
    assert balanced_accuracy(gold, predicted) == pytest.approx((2 / 3 + 1) / 2)


def test_class_balance_does_not_move_it():
    gold = [True] * 9 + [False]
    assert balanced_accuracy(gold, [True] * 10) == 0.5  # always "positive": 0.5 however skewed the data
    assert balanced_accuracy(gold, [False] * 10) == 0.5
    assert balanced_accuracy(gold, gold) == 1.0


def test_a_missing_class_is_left_out_of_the_mean():
    assert class_recalls([True, True], [True, False]) == (0.5, None)
    assert balanced_accuracy([True, True], [True, False]) == 0.5
    assert balanced_accuracy([], []) == 0.0
    with pytest.raises(ValueError):
        balanced_accuracy([True], [True, False])
