"""Precision, recall and F1 of abstaining, with "should abstain" (an unanswerable question) as the
positive class, so abstaining is a scored outcome, never a missing value:

    TP = abstained on an unanswerable question
    FP = abstained on an answerable one
    FN = answered an unanswerable one
    precision = TP / (TP + FP),  recall = TP / (TP + FN),  F1 = 2PR / (P + R)   (0.0 on an empty denominator)
"""

from __future__ import annotations

from typing import Sequence

from citebound.metrics.f1 import precision_recall_f1


def abstention_scores(abstained: Sequence[bool], answerable: Sequence[bool]) -> dict[str, float]:
    """{precision, recall, f1, tp, fp, fn} of abstaining, unanswerable questions being the positive class."""
    tp = sum(a and not y for a, y in zip(abstained, answerable, strict=True))
    fp = sum(a and y for a, y in zip(abstained, answerable, strict=True))
    fn = sum((not a) and (not y) for a, y in zip(abstained, answerable, strict=True))
    return precision_recall_f1(tp, fp, fn)
