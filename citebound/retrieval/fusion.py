"""Reciprocal-rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): score(d) = sum over rankings of
1 / (k + rank(d)), ranks starting at 1; k = 60 as in the paper. Rank-based, so BM25 and cosine scores
never need to be put on one scale."""

from __future__ import annotations

from typing import Iterable, Sequence

from citebound import config

DEFAULT_RRF_K = config.RRF_K  # Cormack, Clarke & Buettcher 2009


def rrf_score(ranks: Iterable[int], k: int = DEFAULT_RRF_K) -> float:
    """RRF score of one item from its 1-based ranks in the rankings that contain it."""
    if k < 0:
        raise ValueError("rrf k must be >= 0")
    return sum(1.0 / (k + r) for r in ranks)


def rrf(rankings: Sequence[Sequence[str]], k: int = DEFAULT_RRF_K) -> list[tuple[str, float]]:
    """Fuse rankings (lists of ids, best first) into one list of (id, fused score), best first.

    Ties keep the order in which items were first seen (earlier rankings first), so the result is
    deterministic.
    """
    ranks: dict[str, list[int]] = {}
    for ranking in rankings:
        for position, item in enumerate(ranking, 1):
            ranks.setdefault(item, []).append(position)
    fused = [(item, rrf_score(r, k)) for item, r in ranks.items()]
    fused.sort(key=lambda pair: -pair[1])  # stable: ties stay in first-seen order
    return fused
