"""Reciprocal rank (the per-query term of MRR).

    RR@k = 1 / rank of the first relevant id within the top k, or 0 if there is none

(all ranks when k is None). MRR is its mean over queries (`evaluate` + `mean_metrics`).
"""

from __future__ import annotations

from typing import Mapping, Sequence

from citebound.metrics._relevance import relevant


def reciprocal_rank(ranked: Sequence[str], qrels: Mapping[str, float], k: int | None = None) -> float:
    """1 / rank of the first relevant id within the top k (all ranks when k is None); 0 if none."""
    rel = relevant(qrels)
    for rank, doc in enumerate(ranked[:k] if k else ranked, 1):
        if doc in rel:
            return 1.0 / rank
    return 0.0
