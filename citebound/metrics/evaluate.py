"""Ranking metrics by name (`"ndcg@10"`, `"recall@100"`, `"mrr@10"`, `"map"`), over a whole run.

Names: ndcg@k, recall@k, precision@k (p@k), mrr[@k] (rr), map[@k] (ap); k is required for the first
three. Conventions are trec_eval's / ranx's, so figures compare with published ones:
- a query judged in `qrels` with no relevant id (grade > 0) is left out of the means;
- a query judged but absent from the run scores 0 on every metric;
- an id repeated in a ranking counts once, at its best rank.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Mapping, Sequence

from citebound.errors import InputError
from citebound.metrics._relevance import relevant
from citebound.metrics.average_precision import average_precision
from citebound.metrics.ndcg import DEFAULT_GAIN, GAINS, ndcg_at_k
from citebound.metrics.precision import precision_at_k
from citebound.metrics.recall import recall_at_k
from citebound.metrics.reciprocal_rank import reciprocal_rank

QueryMetric = Callable[[Sequence[str], Mapping[str, float]], float]

_NAME = re.compile(r"^(ndcg|recall|precision|p|mrr|rr|map|ap)(?:@(\d+))?$")
_CANONICAL = {"p": "precision", "rr": "mrr", "ap": "map"}
_NEEDS_K = {"ndcg", "recall", "precision"}


def parse_metric(name: str, gain: str = DEFAULT_GAIN) -> QueryMetric:
    """A per-query function for a metric name: ndcg@k, recall@k, precision@k (p@k), mrr[@k], map[@k]."""
    m = _NAME.match(name.strip().lower())
    if not m:
        raise InputError(f"unknown metric {name!r}; use e.g. ndcg@10, recall@100, precision@5, mrr@10, map")
    kind = _CANONICAL.get(m.group(1), m.group(1))
    k = int(m.group(2)) if m.group(2) else None
    if kind in _NEEDS_K and not k:
        raise InputError(f"metric {name!r} needs a cut-off, e.g. {kind}@10")
    if k is not None and k < 1:
        raise InputError(f"metric {name!r}: the cut-off must be at least 1")
    table: dict[str, QueryMetric] = {
        "ndcg": lambda r, q: ndcg_at_k(r, q, k, gain),  # type: ignore[arg-type]
        "recall": lambda r, q: recall_at_k(r, q, k),  # type: ignore[arg-type]
        "precision": lambda r, q: precision_at_k(r, q, k),  # type: ignore[arg-type]
        "mrr": lambda r, q: reciprocal_rank(r, q, k),
        "map": lambda r, q: average_precision(r, q, k),
    }
    return table[kind]


def evaluate(
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, float]],
    metrics: Iterable[str],
    gain: str = DEFAULT_GAIN,
) -> dict[str, dict[str, float]]:
    """Per-query scores: {query_id: {metric_name: value}} for every query with a relevant id.

    A query judged in `qrels` but absent from `run` scores 0 on every metric.
    """
    if gain not in GAINS:
        raise InputError(f"unknown gain {gain!r}; use 'linear' or 'exponential'")
    names = list(metrics)
    fns = {name: parse_metric(name, gain) for name in names}
    out: dict[str, dict[str, float]] = {}
    for qid, judged in qrels.items():
        if not relevant(judged):
            continue
        ranked = list(dict.fromkeys(run.get(qid, [])))  # a repeated id counts once, at its best rank
        out[qid] = {name: fn(ranked, judged) for name, fn in fns.items()}
    return out


def mean_metrics(per_query: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Mean of each metric over the queries."""
    if not per_query:
        return {}
    names = next(iter(per_query.values())).keys()
    return {name: sum(q[name] for q in per_query.values()) / len(per_query) for name in names}
