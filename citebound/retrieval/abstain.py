"""Abstention before generation: is the best retrieved evidence strong enough to answer from?

The evidence score of a set of hits is the best dense (cosine) score among them in `dense` and
`hybrid` mode, and the best BM25 score in `bm25` mode. `citebound calibrate retrieval` learns, from
questions labelled answerable / unanswerable, a threshold and stores it in the KB under the key
`abstain_threshold`. Objectives:
- `balanced_accuracy` (default): maximize the balanced accuracy of "abstain iff unanswerable" (the
  mean of the recall on both classes, so the class balance of the calibration set does not matter);
- `answer_rate`: the highest threshold that still answers at least `min_answered` (default 0.95) of
  the answerable questions, i.e. a gate that only stops questions the KB clearly cannot serve and
  leaves the rest to the verifier.
Without a calibrated threshold, `should_abstain` abstains only when there is no hit at all.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np

from citebound.types import Hit

SETTING_KEY = "abstain_threshold"
OBJECTIVE = "balanced_accuracy"
OBJECTIVES = ("balanced_accuracy", "answer_rate")


def evidence_feature(mode: str) -> str:
    return "bm25" if mode == "bm25" else "dense"


def evidence_score(hits: Sequence[Hit], feature: str) -> float:
    """Best value of `feature` among the hits (-inf when there are none)."""
    values = [h.scores.get(feature, float("-inf")) for h in hits]
    return max(values, default=float("-inf"))


@dataclass(frozen=True)
class Calibration:
    mode: str
    feature: str
    threshold: float  # abstain when evidence score < threshold
    objective: str
    objective_value: float
    answerable_kept: float  # recall on answerable questions (answered)
    unanswerable_abstained: float  # recall on unanswerable questions (abstained)
    auc: float
    questions: int
    data: str

    def to_dict(self) -> dict:
        return asdict(self)


def balanced_accuracy(scores: np.ndarray, answerable: np.ndarray, threshold: float) -> tuple[float, float, float]:
    """(balanced accuracy, answerable recall, unanswerable recall) of abstaining when score < threshold."""
    answer = scores >= threshold
    pos = answerable.astype(bool)
    tpr = float(answer[pos].mean()) if pos.any() else 0.0
    tnr = float((~answer[~pos]).mean()) if (~pos).any() else 0.0
    return (tpr + tnr) / 2, tpr, tnr


def roc_auc(scores: np.ndarray, answerable: np.ndarray) -> float:
    """Probability that an answerable question scores above an unanswerable one (ties count half)."""
    pos = scores[answerable.astype(bool)]
    neg = scores[~answerable.astype(bool)]
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))


def choose_threshold(scores: Sequence[float], answerable: Sequence[bool]) -> tuple[float, float, float, float]:
    """Threshold maximizing balanced accuracy; returns (threshold, balanced acc, tpr, tnr).

    Candidates are midpoints between consecutive distinct scores (plus both ends), so the threshold
    does not sit exactly on a calibration example.
    """
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(answerable, dtype=bool)
    uniq = np.unique(s[np.isfinite(s)])
    if not len(uniq):
        return float("-inf"), 0.5, 1.0, 0.0
    cands = np.concatenate([[uniq[0] - 1e-6], (uniq[:-1] + uniq[1:]) / 2, [uniq[-1] + 1e-6]])
    best = max(((balanced_accuracy(s, y, t), t) for t in cands), key=lambda p: (p[0][0], -abs(p[1])))
    (bacc, tpr, tnr), t = best
    return float(t), bacc, tpr, tnr


def threshold_for_answer_rate(
    scores: Sequence[float], answerable: Sequence[bool], min_answered: float = 0.95
) -> tuple[float, float, float, float]:
    """Highest threshold answering at least `min_answered` of the answerable questions.

    Returns (threshold, balanced acc, tpr, tnr) like `choose_threshold`.
    """
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(answerable, dtype=bool)
    pos = np.sort(s[y & np.isfinite(s)])
    if not len(pos):
        return float("-inf"), 0.5, 1.0, 0.0
    # the k-th smallest answerable score, with k answerable questions allowed below the threshold
    allowed = int(np.floor((1.0 - min_answered) * y.sum() + 1e-9))
    threshold = float(pos[min(allowed, len(pos) - 1)])
    below = s[s < threshold]
    if len(below):  # put the cut halfway to the next lower score, not on a calibration example
        threshold = float((threshold + below.max()) / 2)
    bacc, tpr, tnr = balanced_accuracy(s, y, threshold)
    return threshold, bacc, tpr, tnr
