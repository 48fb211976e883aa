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


def test_cohen_kappa_hand_worked():
    from citebound.metrics import cohen_kappa

    # 10 rows: TP 3, FN 1, FP 1, TN 5 -> p_o = 0.8; p_e = (4*4 + 6*6) / 100 = 0.52; kappa = 0.28 / 0.48
    gold = [True] * 4 + [False] * 6
    predicted = [True, True, True, False, True, False, False, False, False, False]
    assert cohen_kappa(gold, predicted) == pytest.approx(0.28 / 0.48)
    assert cohen_kappa(gold, gold) == 1.0
    assert cohen_kappa([True, True], [True, True]) == 0.0  # p_e = 1: no agreement beyond chance to measure
