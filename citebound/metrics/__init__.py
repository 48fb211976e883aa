"""citebound.metrics: every figure citebound reports, one metric per module, its formula in the docstring.

Pure functions over ids, labels and scores. This package imports nothing of citebound but `errors`
(and numpy), so every layer — retrieval, verify, evaluate, training scripts, benchmarks — may use it.

Ranking (trec_eval / ranx conventions; cross-checked against both in the tests):
    recall_at_k, precision_at_k, reciprocal_rank (MRR), average_precision (MAP), dcg, ndcg_at_k (gain
    stated: "linear" or "exponential"); by name: parse_metric("ndcg@10"), evaluate(run, qrels, names),
    mean_metrics
Binary decisions and selective answering:
    balanced_accuracy, class_recalls, cohen_kappa, roc_auc, precision_recall_f1, abstention_scores, risk_coverage, aurc
Thresholds:
    pick_threshold (the one balanced-accuracy picker; grid, tie-break and blocked rows are parameters),
    threshold_for_recall, candidates
"""

from __future__ import annotations

from citebound.metrics.abstention import abstention_scores
from citebound.metrics.aurc import aurc
from citebound.metrics.average_precision import average_precision
from citebound.metrics.balanced_accuracy import balanced_accuracy, class_recalls
from citebound.metrics.cohen_kappa import cohen_kappa
from citebound.metrics.evaluate import evaluate, mean_metrics, parse_metric
from citebound.metrics.f1 import precision_recall_f1
from citebound.metrics.ndcg import DEFAULT_GAIN, GAINS, dcg, ndcg_at_k
from citebound.metrics.precision import precision_at_k
from citebound.metrics.recall import recall_at_k
from citebound.metrics.reciprocal_rank import reciprocal_rank
from citebound.metrics.risk_coverage import risk_coverage
from citebound.metrics.roc_auc import roc_auc
from citebound.metrics.threshold import (
    ThresholdChoice,
    candidates,
    pick_threshold,
    threshold_for_abstention_precision,
    threshold_for_recall,
)

__all__ = [
    "recall_at_k",
    "precision_at_k",
    "reciprocal_rank",
    "average_precision",
    "dcg",
    "ndcg_at_k",
    "GAINS",
    "DEFAULT_GAIN",
    "parse_metric",
    "evaluate",
    "mean_metrics",
    "balanced_accuracy",
    "class_recalls",
    "cohen_kappa",
    "roc_auc",
    "precision_recall_f1",
    "abstention_scores",
    "risk_coverage",
    "aurc",
    "pick_threshold",
    "threshold_for_recall",
    "threshold_for_abstention_precision",
    "candidates",
    "ThresholdChoice",
]
