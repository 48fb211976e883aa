"""Abstention before generation: is the best retrieved evidence strong enough to answer from?

The retrieval strength of a set of hits is the best dense (cosine) score among them in `dense` and
`hybrid` mode, and the best BM25 score in `bm25` mode. `citebound calibrate retrieval` learns, from
questions labelled answerable / unanswerable, a threshold and stores it in the KB under the key
`abstain_threshold`. Objectives:
- `balanced_accuracy` (default): maximize the balanced accuracy of "abstain iff unanswerable" (the
  mean of the recall on both classes, so the class balance of the calibration set does not matter);
- `answer_rate`: the highest threshold that still answers at least `min_answered` (default 0.95) of
  the answerable questions, i.e. a gate that only stops questions the KB clearly cannot serve and
  leaves the rest to the verifier.
Without a calibrated threshold, `should_abstain` abstains only when there is no hit at all.

The thresholds are picked by `citebound.metrics.pick_threshold` with `THRESHOLD_RULE`, and the
answer-rate objective is `citebound.metrics.threshold_for_recall`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Sequence

from citebound.types import Hit

SETTING_KEY = "abstain_threshold"
OBJECTIVE = "balanced_accuracy"
OBJECTIVES = ("balanced_accuracy", "answer_rate")
# How every answer-vs-abstain threshold is picked by balanced accuracy (this gate, the extractive
# backend's and the naive baseline's: `calibrate retrieval`, `calibrate extractive`, bench/qa_*.py):
# candidates halfway between consecutive distinct scores (plus just below the lowest and above the
# highest), so a threshold never sits on a calibration example; among equal balanced accuracies, the
# threshold nearest 0 (the rule these thresholds were first chosen with; it only breaks exact ties).
THRESHOLD_RULE: dict[str, Any] = {"grid": "midpoints", "prefer": 0.0}


def strength_feature(mode: str) -> str:
    return "bm25" if mode == "bm25" else "dense"


def retrieval_strength(hits: Sequence[Hit], feature: str) -> float:
    """Best value of `feature` among the hits (-inf when there are none)."""
    values = [h.scores.get(feature, float("-inf")) for h in hits]
    return max(values, default=float("-inf"))


@dataclass(frozen=True)
class Calibration:
    mode: str
    feature: str
    threshold: float  # abstain when retrieval strength < threshold
    objective: str
    objective_value: float
    answerable_kept: float  # recall on answerable questions (answered)
    unanswerable_abstained: float  # recall on unanswerable questions (abstained)
    auc: float
    questions: int
    data: str

    def to_dict(self) -> dict:
        return asdict(self)
