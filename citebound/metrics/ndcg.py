"""Discounted cumulative gain and its normalised form, with the gain stated.

    DCG@k  = sum over ranks i = 1..k of gain(rel_i) / log2(i + 1)
    nDCG@k = DCG@k(ranking) / DCG@k(ideal ordering of all judged ids)

gain = "linear":      gain(rel) = rel          (trec_eval, ranx `ndcg`; the default)
gain = "exponential": gain(rel) = 2^rel - 1    (Burges et al. 2005, ranx `ndcg_burges`)

With binary judgments the two agree. A query whose ideal DCG is 0 scores 0.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

from citebound.errors import InputError

GAINS = ("linear", "exponential")
DEFAULT_GAIN = "linear"


def _gain(grade: float, gain: str) -> float:
    if gain == "linear":
        return float(grade)
    if gain == "exponential":
        return 2.0**grade - 1.0
    raise InputError(f"unknown gain {gain!r}; use 'linear' or 'exponential'")


def dcg(grades: Sequence[float], k: int | None = None, gain: str = DEFAULT_GAIN) -> float:
    """Discounted cumulative gain of grades listed in rank order: sum gain(g_i) / log2(i + 1)."""
    return sum(_gain(g, gain) / math.log2(i + 1) for i, g in enumerate(grades[:k] if k else grades, 1) if g > 0)


def ndcg_at_k(ranked: Sequence[str], qrels: Mapping[str, float], k: int, gain: str = DEFAULT_GAIN) -> float:
    """DCG@k of the ranking over DCG@k of the ideal ranking of the judged ids."""
    ideal = dcg(sorted((g for g in qrels.values() if g > 0), reverse=True), k, gain)
    if ideal == 0:
        return 0.0
    return dcg([qrels.get(doc, 0) for doc in ranked[:k]], k, gain) / ideal
