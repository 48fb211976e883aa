"""The model-based checkers registered in citebound.verify.checkers:

- `model`: the entailment model alone (ids still apply: a citation to no source is unsupported).
- `full`:  ids -> numbers -> the entailment model, with the lexical share as a further signal:
           score = (1 - w) * P(supported) + w * lexical share, supported when score >= threshold.

Thresholds (and w) come from citebound/models/entailment/calibration.json, chosen on the held-out
half of the claims/ dev splits (training/calibrate.py), unless `threshold=` is given. With a model of
your own (`model=` an .onnx file or a Hugging Face directory) the default threshold is 0.5 and w = 0.

Scorers are shared per model spec, so several checkers in one process load the model once and reuse
each other's pair scores.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from citebound.verify.cascade import Cascade
from citebound.verify.checks.base import SourceCheck
from citebound.verify.checks.entailment import load_calibration, load_scorer
from citebound.verify.spans import find_span

_SCORERS: dict[str, object] = {}
_LOCK = threading.Lock()
UNCALIBRATED_THRESHOLD = 0.5


def shared_scorer(model: str | None = None):
    """One scorer per model spec in this process (loaded lazily on first use)."""
    key = str(model or "default")
    with _LOCK:
        if key not in _SCORERS:
            _SCORERS[key] = load_scorer(model)
        return _SCORERS[key]


def _settings(kind: str, model: str | None) -> dict:
    if model is not None:
        return {"threshold": UNCALIBRATED_THRESHOLD, "lexical_weight": 0.0}
    entry = load_calibration().get(kind, {})
    return {"threshold": float(entry.get("threshold", UNCALIBRATED_THRESHOLD)),
            "lexical_weight": float(entry.get("lexical_weight", 0.0))}  # fmt: skip


@dataclass(frozen=True)
class ModelCascade(Cascade):
    """The cascade with the entailment model deciding after the ids and numbers checks.

    The deterministic stages run unchanged (a number the source does not state still blocks, with no
    model call); a claim the source states word for word (find_span's normalisation) is supported as
    stage "quote" without a model call, since a copied sentence is entailed by where it was copied
    from and a small model's noise should not remove it; then score = (1 - lexical_weight) * P(supported) + lexical_weight * the lexical score,
    supported when score >= threshold. The verdict's stage is "numbers", "semantic" or "judge".
    """

    lexical_weight: float = 0.0
    # optional LLM judge `(claim, passage) -> verdict with .label/.reason` (citebound.verify.judge.LlmJudge):
    # it sees the model's best window and has the last word; an "unverified" verdict leaves the model's.
    judge: Callable[[str, str], Any] | None = None
    quote_shortcut: bool = True

    def check_source(self, claim: str, source_id: str, source: str) -> SourceCheck:
        if self.semantic is None:
            return super().check_source(claim, source_id, source)
        check = self._model_check(claim, source_id, source)
        if self.judge is None or check.stage != "semantic":
            return check
        start, end = check.span or (0, len(source))
        verdict = self.judge(claim, source[start:end])
        if verdict.label not in ("supported", "unsupported"):
            return replace(check, reason=f"{check.reason}; judge {verdict.label}: {verdict.reason}")
        return replace(
            check, label=verdict.label, stage="judge",
            reason=f"{source_id}: judge says {verdict.label} ({verdict.reason}); {check.reason}",
        )  # fmt: skip

    def _model_check(self, claim: str, source_id: str, source: str) -> SourceCheck:
        lexical = None
        if self.numbers or self.lexical_weight:
            lexical = replace(self, semantic=None, threshold=1.0, partial_floor=0.0).check_source(
                claim, source_id, source
            )
            if lexical.stage != "lexical":  # blocked by a deterministic stage: it decides
                return lexical
        if self.quote_shortcut and (span := find_span(source, claim)) is not None:
            return SourceCheck(source_id, "supported", 1.0, "quote",
                               f"{source_id} states the claim word for word", span=span)
        p, start, end = self.semantic.best_window(claim, source)
        p = min(1.0, max(0.0, float(p)))
        name = getattr(self.semantic, "name", "model")
        reason = f"{source_id}: {name} P(supported) = {p:.2f}"
        score = p
        if lexical is not None and self.lexical_weight:
            score = (1 - self.lexical_weight) * p + self.lexical_weight * lexical.score
            reason += f", lexical {lexical.score:.2f} -> {score:.2f}"
        label = "supported" if score >= self.threshold else "unsupported"
        return SourceCheck(
            source_id, label, score, "semantic", f"{reason} (threshold {self.threshold:.2f})",
            span=(start, end) if end > start else None,
            missing_terms=lexical.missing_terms if lexical is not None else (),
        )  # fmt: skip


def model_checker(*, threshold: float | None = None, model: str | None = None, **options) -> ModelCascade:
    """The entailment model alone."""
    settings = _settings("model", model)
    return ModelCascade(
        threshold=settings["threshold"] if threshold is None else threshold, partial_floor=0.0,
        numbers=False, quote_shortcut=False, semantic=shared_scorer(model), name="model", **options,
    )  # fmt: skip


def full_checker(*, threshold: float | None = None, model: str | None = None, **options) -> ModelCascade:
    """ids -> numbers -> model (+ lexical share)."""
    settings = _settings("full", model)
    options.setdefault("lexical_weight", settings["lexical_weight"])
    return ModelCascade(
        threshold=settings["threshold"] if threshold is None else threshold, partial_floor=0.0,
        semantic=shared_scorer(model), name="full", **options,
    )  # fmt: skip
