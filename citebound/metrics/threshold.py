"""Choosing a decision threshold on labelled scores: the one picker every calibration uses.

A row is predicted positive at threshold t when it is not blocked and its score >= t. The picker
returns the candidate t that maximises the balanced accuracy (see `balanced_accuracy.py`)

    BA(t) = (TPR(t) + TNR(t)) / 2

or, when the rows fall into groups (e.g. one per claims set), the mean of the groups' BA(t), so one
threshold serves all groups and a large group does not outvote a small one. Counts come from one sorted
sweep, so thousands of candidates over thousands of rows are cheap, and the figures are exactly those of
a brute-force loop over the candidates.

The callers differ, on purpose, in three choices; each states its own:

- `grid`: which thresholds are tried.
  "scores":    the distinct finite scores of the unblocked rows (a threshold sits on an example);
  "midpoints": halfway between consecutive distinct scores, plus 1e-6 below the lowest and above the
               highest (a threshold never sits on a calibration example).
  `extra` adds fixed candidates (e.g. one above every score: "predict nothing positive").
  `max_candidates`: when there are more, try only the `max_candidates + 1` quantiles of them
  (0, 1/max_candidates, ..., 1; interpolated values).
- `prefer`: among thresholds of equal objective, the one nearest `prefer`; None = the lowest. Any
  remaining tie goes to the lowest threshold.
- `blocked`: rows predicted negative at every threshold (a verdict a hard check already decided);
  their scores are not candidates.

`threshold_for_recall` is another objective (the highest threshold keeping a share of the positives), and
`threshold_for_abstention_precision` a third (abstain on as many negatives as possible while at least a
given share of what is abstained on is negative).

With no candidate at all the threshold is -inf (every unblocked row positive). A class absent from a
group is left out of that group's mean, as in `balanced_accuracy`.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, Sequence

import numpy as np

Grid = Literal["scores", "midpoints"]
GRIDS = ("scores", "midpoints")
MIDPOINT_MARGIN = 1e-6


class ThresholdChoice(NamedTuple):
    threshold: float
    balanced_accuracy: float  # mean over the groups (one group: its own)
    tpr: float  # true positive rate at the threshold (mean over groups holding positives; 0.0 if none)
    tnr: float  # true negative rate at the threshold (mean over groups holding negatives; 0.0 if none)


def _arrays(scores, positive, blocked, groups):
    s = np.asarray(scores, dtype=np.float64).ravel()
    y = np.asarray(positive, dtype=bool).ravel()
    b = np.zeros(len(s), dtype=bool) if blocked is None else np.asarray(blocked, dtype=bool).ravel()
    g = np.zeros(len(s), dtype=np.int64) if groups is None else np.asarray(groups).ravel()
    if not (len(s) == len(y) == len(b) == len(g)):
        raise ValueError("scores, positive, blocked and groups must have one entry per row")
    if np.isnan(s).any():
        raise ValueError("a score is NaN")
    return s, y, b, g


def candidates(
    scores: Sequence[float],
    blocked: Sequence[bool] | None = None,
    *,
    grid: Grid = "scores",
    extra: Sequence[float] = (),
    max_candidates: int | None = None,
) -> np.ndarray:
    """The thresholds `pick_threshold` tries, ascending (see the module docstring)."""
    if grid not in GRIDS:
        raise ValueError(f"unknown grid {grid!r}; use one of {GRIDS}")
    s = np.asarray(scores, dtype=np.float64).ravel()
    if blocked is not None:
        s = s[~np.asarray(blocked, dtype=bool).ravel()]
    base = np.unique(s[np.isfinite(s)])
    if grid == "midpoints" and len(base):
        base = np.concatenate([[base[0] - MIDPOINT_MARGIN], (base[:-1] + base[1:]) / 2, [base[-1] + MIDPOINT_MARGIN]])
    cands = np.unique(np.append(base, np.asarray(extra, dtype=np.float64)))
    if max_candidates is not None and len(cands) > max_candidates:
        cands = np.quantile(cands, np.linspace(0, 1, max_candidates + 1))
    return cands


def _rates_at(t: np.ndarray, s: np.ndarray, y: np.ndarray, b: np.ndarray):
    """(TPR or None, TNR or None) arrays over thresholds t, for one group."""
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    pos = np.sort(s[y & ~b])
    neg = np.sort(s[~y & ~b])
    tp = len(pos) - np.searchsorted(pos, t, side="left")  # positives with score >= t
    fp = len(neg) - np.searchsorted(neg, t, side="left")
    tpr = tp / n_pos if n_pos else None
    tnr = (n_neg - fp) / n_neg if n_neg else None
    return tpr, tnr


def _objective(tpr, tnr, size: int) -> np.ndarray:
    if tpr is not None and tnr is not None:
        return (tpr + tnr) / 2
    if tpr is not None or tnr is not None:
        return tpr if tpr is not None else tnr
    return np.zeros(size)


def pick_threshold(
    scores: Sequence[float],
    positive: Sequence[bool],
    *,
    blocked: Sequence[bool] | None = None,
    groups: Sequence | None = None,
    grid: Grid = "scores",
    extra: Sequence[float] = (),
    max_candidates: int | None = None,
    prefer: float | None = None,
) -> ThresholdChoice:
    """The candidate threshold maximising (mean over groups of) balanced accuracy; see the module docstring."""
    s, y, b, g = _arrays(scores, positive, blocked, groups)
    cands = candidates(s, b, grid=grid, extra=extra, max_candidates=max_candidates)
    if not len(cands):
        cands = np.array([-np.inf])
    total = None
    tprs, tnrs = [], []
    for key in dict.fromkeys(g.tolist()):  # groups in order of first appearance
        rows = g == key
        tpr, tnr = _rates_at(cands, s[rows], y[rows], b[rows])
        value = _objective(tpr, tnr, len(cands))
        total = value if total is None else total + value
        if tpr is not None:
            tprs.append(tpr)
        if tnr is not None:
            tnrs.append(tnr)
    n_groups = len(dict.fromkeys(g.tolist()))
    if total is None:  # no rows
        return ThresholdChoice(float(cands[0]), 0.0, 0.0, 0.0)
    distance = np.zeros(len(cands)) if prefer is None else np.abs(cands - prefer)
    best = int(np.lexsort((distance, -total))[0])  # max objective, then nearest `prefer`, then lowest
    return ThresholdChoice(
        float(cands[best]),
        float(total[best] / n_groups),
        float(sum(r[best] for r in tprs) / len(tprs)) if tprs else 0.0,
        float(sum(r[best] for r in tnrs) / len(tnrs)) if tnrs else 0.0,
    )


def threshold_for_recall(scores: Sequence[float], positive: Sequence[bool], min_recall: float) -> ThresholdChoice:
    """The highest threshold at which at least `min_recall` of the positives (finite scores) score >= it.

    With P positives, floor((1 - min_recall) * P) of them may fall below: the threshold starts at the
    positive score of that rank (ascending), then moves halfway down to the next lower score of any row,
    so it does not sit on a calibration example. -inf when no positive has a finite score.
    """
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(positive, dtype=bool)
    pos = np.sort(s[y & np.isfinite(s)])
    if not len(pos):
        threshold = float("-inf")
    else:
        allowed = int(np.floor((1.0 - min_recall) * y.sum() + 1e-9))
        threshold = float(pos[min(allowed, len(pos) - 1)])
        below = s[s < threshold]
        if len(below):
            threshold = float((threshold + below.max()) / 2)
    tpr, tnr = _rates_at(np.array([threshold]), s, y, np.zeros(len(s), dtype=bool))
    value = _objective(tpr, tnr, 1)
    return ThresholdChoice(threshold, float(value[0]), float(tpr[0]) if tpr is not None else 0.0,
                           float(tnr[0]) if tnr is not None else 0.0)


def threshold_for_abstention_precision(
    scores: Sequence[float], positive: Sequence[bool], target: float
) -> ThresholdChoice | None:
    """The threshold that abstains on the most negatives while its abstention precision stays >= `target`.

    A row is answered when its score >= t and abstained on otherwise (a -inf score: always abstained on).
    Abstention precision at t = negatives below t / rows below t (the precision of "abstain", whose
    positive class is an unanswerable question: `citebound.metrics.abstention`). Candidates are the
    midpoints of the finite scores (the "midpoints" grid), so a threshold never sits on an example; among
    those with precision >= `target`, the one with the highest abstention recall (TNR), then the lowest
    threshold (fewer positives abstained on at equal recall). None when no candidate abstains on anything
    at that precision, e.g. when the lowest positive scores below every negative.
    """
    if not 0.0 < target <= 1.0:
        raise ValueError("target must be in (0, 1]")
    s = np.asarray(scores, dtype=np.float64).ravel()
    y = np.asarray(positive, dtype=bool).ravel()
    if len(s) != len(y):
        raise ValueError("scores and positive must have one entry per row")
    if np.isnan(s).any():
        raise ValueError("a score is NaN")
    n_neg = int((~y).sum())
    cands = candidates(s, grid="midpoints")
    if not n_neg or not len(cands):
        return None
    pos, neg = np.sort(s[y]), np.sort(s[~y])
    tn = np.searchsorted(neg, cands, side="left")  # negatives with score < t: abstained on, rightly
    fn = np.searchsorted(pos, cands, side="left")  # positives with score < t: abstained on, wrongly
    abstained = tn + fn
    precision = np.divide(tn, abstained, out=np.zeros(len(cands)), where=abstained > 0)
    ok = (abstained > 0) & (precision >= target - 1e-12)
    if not ok.any():
        return None
    best = int(np.lexsort((cands, -tn, ~ok))[0])  # ok first, then most negatives caught, then lowest t
    n_pos = int(y.sum())
    tpr = (n_pos - int(fn[best])) / n_pos if n_pos else 0.0
    tnr = int(tn[best]) / n_neg
    return ThresholdChoice(float(cands[best]), (tpr + tnr) / 2 if n_pos else tnr, tpr, tnr)
