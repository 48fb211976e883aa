"""Ranking metrics as small pure functions, plus a name-based evaluator (`"ndcg@10"`, `"map"`, ...).

Conventions (the same as trec_eval / ranx, so figures compare with published ones):
- `ranked` is a list of ids, best first; `qrels` maps id -> graded relevance; grade > 0 is relevant.
- A query with no relevant id is left out of the means (trec_eval does the same).
- nDCG: DCG@k = sum_i gain(rel_i) / log2(i + 1) over ranks i = 1..k, divided by the DCG@k of the ideal
  ordering of all judged ids. `gain="linear"` uses rel (trec_eval, ranx `ndcg`); `gain="exponential"`
  uses 2^rel - 1 (Burges et al. 2005, ranx `ndcg_burges`). The default is linear; reports state it.
  With binary judgments the two agree.
- MAP: the mean over relevant ids of the precision at each relevant id's rank; relevant ids not
  retrieved count 0. `map@k` looks at the top k only (still divided by all relevant ids).
- MRR@k: 1 / rank of the first relevant id in the top k (0 if none).
"""

from __future__ import annotations

import math
import re
from typing import Callable, Iterable, Mapping, Sequence

from citebound.errors import InputError
from citebound.retrieval.fusion import rrf_score

GAINS = ("linear", "exponential")
DEFAULT_GAIN = "linear"

__all__ = [
    "recall_at_k",
    "precision_at_k",
    "reciprocal_rank",
    "average_precision",
    "dcg",
    "ndcg_at_k",
    "rrf_score",
    "parse_metric",
    "evaluate",
    "mean_metrics",
    "GAINS",
    "DEFAULT_GAIN",
]


def _relevant(qrels: Mapping[str, float]) -> set[str]:
    return {doc for doc, grade in qrels.items() if grade > 0}


def recall_at_k(ranked: Sequence[str], qrels: Mapping[str, float], k: int) -> float:
    """Share of the relevant ids found in the top k."""
    rel = _relevant(qrels)
    if not rel:
        return 0.0
    return len(rel.intersection(ranked[:k])) / len(rel)


def precision_at_k(ranked: Sequence[str], qrels: Mapping[str, float], k: int) -> float:
    """Share of the top k that is relevant (divided by k even when fewer were retrieved, as trec_eval)."""
    rel = _relevant(qrels)
    return sum(1 for doc in ranked[:k] if doc in rel) / k


def reciprocal_rank(ranked: Sequence[str], qrels: Mapping[str, float], k: int | None = None) -> float:
    """1 / rank of the first relevant id within the top k (all ranks when k is None); 0 if none."""
    rel = _relevant(qrels)
    for rank, doc in enumerate(ranked[:k] if k else ranked, 1):
        if doc in rel:
            return 1.0 / rank
    return 0.0


def average_precision(ranked: Sequence[str], qrels: Mapping[str, float], k: int | None = None) -> float:
    """Mean over the relevant ids of the precision at their ranks (0 for those not retrieved)."""
    rel = _relevant(qrels)
    if not rel:
        return 0.0
    hits = 0
    total = 0.0
    for rank, doc in enumerate(ranked[:k] if k else ranked, 1):
        if doc in rel:
            hits += 1
            total += hits / rank
    return total / len(rel)


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


# -- metric names ------------------------------------------------------------------------------------
_NAME = re.compile(r"^(ndcg|recall|precision|p|mrr|rr|map|ap)(?:@(\d+))?$")
_CANONICAL = {"p": "precision", "rr": "mrr", "ap": "map"}
_NEEDS_K = {"ndcg", "recall", "precision"}


def parse_metric(name: str, gain: str = DEFAULT_GAIN) -> Callable[[Sequence[str], Mapping[str, float]], float]:
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
    table: dict[str, Callable[[Sequence[str], Mapping[str, float]], float]] = {
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
        if not _relevant(judged):
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
