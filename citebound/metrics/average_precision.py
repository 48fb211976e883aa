"""Average precision (the per-query term of MAP).

    AP@k = (1 / |relevant|) * sum over ranks i <= k holding a relevant id of precision@i

Relevant ids not retrieved (or below k) contribute 0; the divisor is all relevant ids, also for AP@k.
MAP is its mean over queries.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from citebound.metrics._relevance import relevant


def average_precision(ranked: Sequence[str], qrels: Mapping[str, float], k: int | None = None) -> float:
    """Mean over the relevant ids of the precision at their ranks (0 for those not retrieved)."""
    rel = relevant(qrels)
    if not rel:
        return 0.0
    hits = 0
    total = 0.0
    for rank, doc in enumerate(ranked[:k] if k else ranked, 1):
        if doc in rel:
            hits += 1
            total += hits / rank
    return total / len(rel)
