"""Area under the risk–coverage curve (AURC; Geifman & El-Yaniv 2017, lower is better).

Answer the questions in decreasing confidence (ties in input order); with m = the number of finite
confidences and n = all questions,

    AURC = (1 / n) * sum over d = 1..m of risk@d,   risk@d = wrong among the first d / d

Questions with confidence -inf are never answered: they add no term, but count in n.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def aurc(confidence: Sequence[float], correct: Sequence[bool]) -> float:
    """Area under the risk-coverage curve over all thresholds (lower is better); 0.0 if nothing is answered."""
    conf = np.asarray(confidence, dtype=np.float64)
    ok = np.asarray(correct, dtype=bool)
    order = np.argsort(-np.where(np.isfinite(conf), conf, -np.inf), kind="stable")
    wrong = (~ok[order]).astype(np.float64)
    answerable_n = int(np.isfinite(conf).sum())
    if not answerable_n:
        return 0.0
    risks = np.cumsum(wrong[:answerable_n]) / np.arange(1, answerable_n + 1)
    return float(risks.sum() / len(conf))
