"""Precision / recall / F1 from counts, and abstention scored with "should abstain" as the positive class."""

import pytest

from citebound.metrics import abstention_scores, precision_recall_f1


def test_precision_recall_f1_hand_worked():
    s = precision_recall_f1(tp=2, fp=2, fn=0)
    assert (s["precision"], s["recall"]) == (0.5, 1.0)
    assert s["f1"] == pytest.approx(2 * 0.5 * 1.0 / 1.5)  # = 2TP / (2TP + FP + FN) = 4/6
    assert precision_recall_f1(0, 0, 0) == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "tp": 0, "fp": 0, "fn": 0}


def test_abstention_treats_unanswerable_as_positive():
    # abstained on: an unanswerable (tp) and an answerable (fp) one; answered an unanswerable one (fn)
    s = abstention_scores([True, True, False, False], [False, True, False, True])
    assert (s["tp"], s["fp"], s["fn"]) == (1, 1, 1)
    assert s["precision"] == 0.5 and s["recall"] == 0.5 and s["f1"] == 0.5


def test_never_abstaining_scores_zero_not_missing():
    s = abstention_scores([False, False], [False, True])
    assert s["precision"] == 0.0 and s["recall"] == 0.0 and s["f1"] == 0.0
    with pytest.raises(ValueError):
        abstention_scores([True], [True, False])  # one verdict per question
