"""Batch checking of labelled claim/evidence pairs, and the figures that measure a checker on them.

Rows are JSON lines `{id, claim, evidence, label?}` with label `supported` / `unsupported`. A row is
predicted supported when its verdict is `supported`; partial counts as unsupported (as in
LLM-AggreFact). Because the verdict at any threshold t is "not blocked by ids/numbers and score >= t",
`checker_threshold` can sweep thresholds without re-running the checker. The figures themselves are
`citebound.metrics` (balanced accuracy, per-class precision / recall, the threshold picker).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from citebound.errors import InputError
from citebound.metrics import balanced_accuracy, pick_threshold
from citebound.parallel import Executor, worker_state
from citebound.verify.cascade import RULE_STAGES, Cascade
from citebound.verify.checkers import CheckerSpec
from citebound.verify.inputs import json_lines, read_text

LABELS = ("supported", "unsupported")
# hard rules: unsupported at any threshold (the list used to stop at "dates": a verdict of the later rule
# stages scored under 0.25, so no threshold chosen since read it as supported, but one below would have)
BLOCKING_STAGES = frozenset({"ids", "citations", *RULE_STAGES})


@dataclass(frozen=True, slots=True)
class ClaimRow:
    id: str
    claim: str
    evidence: str
    label: str | None = None


@dataclass(frozen=True, slots=True)
class Prediction:
    id: str
    label: str
    score: float
    blocked: bool
    verdict: dict
    gold: str | None = None

    def to_dict(self) -> dict:
        return {"id": self.id, "label": self.label, "score": round(self.score, 6), "verdict": self.verdict}


def parse_rows(text: str, where: str = "input") -> list[ClaimRow]:
    """Parse JSON lines into rows; a malformed line raises InputError naming its line number."""
    rows: list[ClaimRow] = []
    for n, obj in json_lines(text, where):
        if not isinstance(obj, dict):
            raise InputError(f"{where}:{n}: expected a JSON object {{id, claim, evidence, label?}}")
        claim, evidence, label = obj.get("claim"), obj.get("evidence"), obj.get("label")
        if not isinstance(claim, str) or not isinstance(evidence, str):
            raise InputError(f"{where}:{n}: 'claim' and 'evidence' must be strings")
        if label is not None and label not in LABELS:
            raise InputError(f"{where}:{n}: label must be 'supported' or 'unsupported', got {label!r}")
        rows.append(ClaimRow(str(obj.get("id", n)), claim, evidence, label))
    if not rows:
        raise InputError(f"{where}: no rows")
    return rows


def read_rows(path: str | Path) -> list[ClaimRow]:
    """Read a JSON-lines file of claim rows (UTF-8 text, any size)."""
    return parse_rows(read_text(path, max_bytes=None, what="claims file"), str(path))


def predict(rows: Sequence[ClaimRow], checker: Cascade, *, progress: bool = False) -> tuple[list[Prediction], float]:
    """Check every row; return the predictions and the seconds the checking took."""
    iterator: Iterable[ClaimRow] = rows
    if progress:
        from tqdm import tqdm

        iterator = tqdm(rows, desc=f"verify ({checker.name})", unit="claim", leave=False, mininterval=0.5)
    start = time.perf_counter()
    out = [_predict_row(checker, row) for row in iterator]
    return out, time.perf_counter() - start


def _predict_row(checker: Cascade, row: ClaimRow) -> Prediction:
    v = checker.check_pair(row.claim, row.evidence)
    predicted = "supported" if v.label == "supported" else "unsupported"
    return Prediction(row.id, predicted, v.score, v.stage in BLOCKING_STAGES, v.to_dict(), row.label)


def check_rows(spec: CheckerSpec, rows: list[ClaimRow]) -> list[Prediction]:
    """Check a chunk of rows with the checker `spec` describes, built once per process: what a worker
    of `citebound.parallel` runs."""
    checker = worker_state(spec, spec.build)
    return [_predict_row(checker, row) for row in rows]


def binary_metrics(gold: Sequence[str], predicted: Sequence[str]) -> dict[str, float]:
    """Balanced accuracy (`citebound.metrics.balanced_accuracy`, "supported" the positive class) and
    per-class precision / recall (0.0 where a denominator is empty)."""
    out: dict[str, float] = {"n": float(len(gold))}
    for cls in LABELS:
        tp = sum(g == cls and p == cls for g, p in zip(gold, predicted))
        n_pred = sum(p == cls for p in predicted)
        n_gold = sum(g == cls for g in gold)
        out[f"precision_{cls}"] = tp / n_pred if n_pred else 0.0
        out[f"recall_{cls}"] = tp / n_gold if n_gold else 0.0
    out["balanced_accuracy"] = balanced_accuracy([g == "supported" for g in gold], [p == "supported" for p in predicted])
    out["n"] = len(gold)
    return out


def labels_at(predictions: Sequence[Prediction], threshold: float) -> list[str]:
    """The binary labels the same verdicts earn at another threshold."""
    return ["supported" if not p.blocked and p.score >= threshold else "unsupported" for p in predictions]


def prediction_arrays(predictions: Sequence[Prediction]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(score, gold is supported, blocked) per row, for `citebound.metrics.pick_threshold`; InputError
    when a row has no label."""
    if any(p.gold is None for p in predictions):
        raise InputError("picking a threshold needs a label on every row")
    return (np.array([p.score for p in predictions], dtype=np.float64),
            np.array([p.gold == "supported" for p in predictions], dtype=bool),
            np.array([p.blocked for p in predictions], dtype=bool))


# A checker's score lies in [0, 1]. Besides every score of an unblocked row, try one threshold above them
# all (nothing supported), and among equal balanced accuracies take the threshold nearest 0.5.
ABOVE_ALL = 1.0 + 1e-9
PREFER = 0.5


def checker_threshold(predictions: Sequence[Prediction]) -> tuple[float, float]:
    """The threshold maximising balanced accuracy on labelled predictions (use a dev split), and that
    balanced accuracy: `citebound.metrics.pick_threshold` over the scores of the unblocked rows and
    `ABOVE_ALL`, ties to the threshold nearest `PREFER`, blocked rows unsupported at every threshold.
    `ABOVE_ALL` is reported as 1.0."""
    scores, supported, blocked = prediction_arrays(predictions)
    if supported.all() or not supported.any():
        raise InputError("picking a threshold needs both labels in the data")
    choice = pick_threshold(scores, supported, blocked=blocked, grid="scores", extra=(ABOVE_ALL,), prefer=PREFER)
    return min(choice.threshold, 1.0), choice.balanced_accuracy


@dataclass(frozen=True, slots=True)
class BatchResult:
    predictions: list[Prediction]
    summary: dict


def run_batch(path: str | Path, checker: Cascade | CheckerSpec, *, progress: bool | None = None,
              executor: Executor | None = None) -> BatchResult:
    """Check every row of a claims file at the checker's threshold; summarise, with figures when every
    row is labelled. `progress=None` shows a bar (stderr) on files of 500 rows or more, and on workers. With an
    `executor` (citebound.parallel: a process pool or Ray) the rows are checked by its workers, each
    building the checker from its `CheckerSpec`; the predictions are the same as in this process."""
    rows = read_rows(path)
    remote = executor is not None and executor.name != "local"
    show = (len(rows) >= 500 or remote) if progress is None else progress
    spec = checker if isinstance(checker, CheckerSpec) else None
    cascade = worker_state(spec, spec.build) if spec is not None else checker
    if not remote:
        predictions, seconds = predict(rows, cascade, progress=show)
    elif spec is None:
        raise InputError("checking on workers needs a CheckerSpec (a built checker does not travel)")
    else:
        start = time.perf_counter()
        predictions = executor.map(partial(check_rows, spec), rows, desc=f"verify ({cascade.name})", progress=show)
        seconds = time.perf_counter() - start
    summary: dict = {
        "n": len(rows),
        "checker": cascade.name,
        "threshold": cascade.threshold,
        "claims_per_second": round(len(rows) / seconds, 1) if seconds > 0 else None,
        "predicted_supported": sum(p.label == "supported" for p in predictions),
    }
    if executor is not None:
        summary.update(executor.describe())
    if all(r.label is not None for r in rows):
        metrics = binary_metrics([r.label for r in rows], [p.label for p in predictions])
        summary.update({k: round(v, 4) for k, v in metrics.items() if k != "n"})
    return BatchResult(predictions, summary)


def write_predictions(predictions: Iterable[Prediction], path: str | Path) -> None:
    """One JSON line per row: {id, label, score, verdict}."""
    with open(path, "w", encoding="utf-8") as fh:
        for p in predictions:
            fh.write(json.dumps(p.to_dict(), ensure_ascii=False) + "\n")
