"""Recall@k of one ranking.

    recall@k = |relevant ∩ top_k(ranked)| / |relevant|

`ranked` lists ids best first; `qrels` maps id -> graded relevance, grade > 0 is relevant. A query with
no relevant id scores 0 (the evaluator leaves such queries out of the means, as trec_eval does).
"""

from __future__ import annotations

from typing import Mapping, Sequence

from citebound.metrics._relevance import relevant


def recall_at_k(ranked: Sequence[str], qrels: Mapping[str, float], k: int) -> float:
    """Share of the relevant ids found in the top k."""
    rel = relevant(qrels)
    if not rel:
        return 0.0
    return len(rel.intersection(ranked[:k])) / len(rel)
