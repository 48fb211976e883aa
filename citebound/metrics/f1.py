"""Precision, recall and F1 of the positive class, from counts.

    precision = TP / (TP + FP)      recall = TP / (TP + FN)
    F1 = 2 * precision * recall / (precision + recall) = 2TP / (2TP + FP + FN)

F1 is computed from the counts (the right-hand form), so equal ratios give equal floats. Each figure is
0.0 where its denominator is 0 (nothing predicted positive, nothing positive, or both).
"""

from __future__ import annotations


def precision_recall_f1(tp: int, fp: int, fn: int) -> dict[str, float]:
    """{precision, recall, f1, tp, fp, fn}; 0.0 where a denominator is empty."""
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "tp": tp, "fp": fp, "fn": fn}
