"""Balanced accuracy of a binary decision.

    TPR = TP / P        (recall of the positive class)
    TNR = TN / N        (recall of the negative class)
    balanced accuracy = (TPR + TNR) / 2

the mean of the per-class recalls, so the class balance of the data does not move it: predicting one
class for every row scores 0.5. As scikit-learn's `balanced_accuracy_score`, the mean is over the classes
present in `gold`: with one class only, it is that class's recall; with no rows, 0.0.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def class_recalls(gold: Sequence[bool], predicted: Sequence[bool]) -> tuple[float | None, float | None]:
    """(TPR, TNR); None for a class `gold` does not contain."""
    g = np.asarray(gold, dtype=bool)
    p = np.asarray(predicted, dtype=bool)
    if g.shape != p.shape:
        raise ValueError(f"gold and predicted differ in length ({g.size} vs {p.size})")
    n_pos, n_neg = int(g.sum()), int((~g).sum())
    tpr = int((p & g).sum()) / n_pos if n_pos else None
    tnr = int((~p & ~g).sum()) / n_neg if n_neg else None
    return tpr, tnr


def balanced_accuracy(gold: Sequence[bool], predicted: Sequence[bool]) -> float:
    """Mean of the recalls of the classes present in `gold` (True = positive); 0.0 for no rows."""
    recalls = [r for r in class_recalls(gold, predicted) if r is not None]
    return sum(recalls) / len(recalls) if recalls else 0.0
