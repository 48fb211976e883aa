"""Risk–coverage pairs of a confidence signal (selective answering).

At threshold t a question is answered when its confidence >= t (-inf: never answered):

    coverage(t) = answered / all questions
    risk(t)     = answered and wrong / answered        (0 at coverage 0, by convention)

The thresholds are the distinct values of the `points` quantiles (0, 1/(points-1), ..., 1) of the finite
confidences, then +inf (coverage 0).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np


def risk_coverage(confidence: Sequence[float], correct: Sequence[bool], points: int = 21) -> list[dict[str, float]]:
    """[{threshold, coverage, risk}] as the threshold moves over the confidence quantiles, then +inf."""
    conf = np.asarray(confidence, dtype=np.float64)
    ok = np.asarray(correct, dtype=bool)
    finite = conf[np.isfinite(conf)]
    if not len(finite):
        return [{"threshold": math.inf, "coverage": 0.0, "risk": 0.0}]
    cuts = np.unique(np.quantile(finite, np.linspace(0, 1, points)))
    out = []
    for t in [*cuts, math.inf]:
        answered = conf >= t
        n = int(answered.sum())
        out.append({"threshold": float(t), "coverage": n / len(conf),
                    "risk": float((~ok[answered]).mean()) if n else 0.0})
    return out
