"""Cohen's kappa: agreement of two binary raters beyond what their marginals give by chance.

    p_o = (TP + TN) / n                                         (observed agreement, the accuracy)
    p_e = ((TP + FN)(TP + FP) + (TN + FP)(TN + FN)) / n^2       (agreement expected by chance)
    kappa = (p_o - p_e) / (1 - p_e)

0.0 when there are no rows or p_e = 1 (both raters give one label throughout).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def cohen_kappa(gold: Sequence[bool], predicted: Sequence[bool]) -> float:
    """Kappa of `predicted` against `gold` (True = the positive label)."""
    g = np.asarray(gold, dtype=bool)
    p = np.asarray(predicted, dtype=bool)
    if g.shape != p.shape:
        raise ValueError(f"gold and predicted differ in length ({g.size} vs {p.size})")
    n = len(g)
    tp, tn = int((g & p).sum()), int((~g & ~p).sum())
    fp, fn = int((~g & p).sum()), int((g & ~p).sum())
    observed = (tp + tn) / n if n else 0.0
    expected = ((tp + fn) * (tp + fp) + (tn + fp) * (tn + fn)) / (n * n) if n else 0.0
    return (observed - expected) / (1 - expected) if n and expected < 1 else 0.0
