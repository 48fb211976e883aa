"""Precision@k of one ranking.

    precision@k = |relevant ∩ top_k(ranked)| / k

Divided by k even when fewer than k ids were retrieved, as trec_eval's P.k.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from citebound.metrics._relevance import relevant


def precision_at_k(ranked: Sequence[str], qrels: Mapping[str, float], k: int) -> float:
    """Share of the top k that is relevant (divided by k even when fewer were retrieved, as trec_eval)."""
    rel = relevant(qrels)
    return sum(1 for doc in ranked[:k] if doc in rel) / k
