"""Area under the ROC curve, as the Mann–Whitney statistic.

    AUC = (1 / (P * N)) * sum over positive p, negative n of [s_p > s_n] + 0.5 * [s_p = s_n]

the probability that a random positive scores above a random negative, ties counted half. Computed by
sorting (O((P + N) log N)), exactly: the numerator is a count of halves. NaN when a class is empty.
Infinite scores are ordinary values here (-inf ties with -inf).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def roc_auc(scores: Sequence[float], positive: Sequence[bool]) -> float:
    """Probability that a positive scores above a negative (ties count half); NaN if a class is empty."""
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(positive, dtype=bool)
    pos, neg = s[y], np.sort(s[~y])
    if not len(pos) or not len(neg):
        return float("nan")
    below = np.searchsorted(neg, pos, side="left")
    ties = np.searchsorted(neg, pos, side="right") - below
    return float((int(below.sum()) + 0.5 * int(ties.sum())) / (len(pos) * len(neg)))
