"""The model-based checkers registered in citebound.verify.checkers:

- `model`: the entailment model alone (ids still apply: a citation to no source is unsupported).
- `full`:  ids -> numbers -> quote -> the entailment model combined with the deterministic signals:
           by the calibrated gate (`citebound/models/entailment/gate.json`, a logistic model over the
           model's probability, the lexical score, coverage, negation, ...; training/fit_gate.py) when
           it was fitted for the shipped model, else score = (1 - w) * P(supported) + w * lexical score.

Both are the cascade's one semantic stage (`Cascade._model_check`) configured differently; this module
adds the optional LLM judge. Thresholds (and w) come from calibration.json / gate.json beside the model,
chosen on the held-out half of the claims/ dev splits, unless `threshold=` is given. With a model of
your own (`model=` an .onnx file or a Hugging Face directory) the default threshold is 0.5, w = 0 and
no gate.

Scorers are shared per model spec, so several checkers in one process load the model once and reuse
each other's pair scores.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from citebound.models import ENTAILMENT_DIR
from citebound.models.cross_encoder import load_calibration
from citebound.models.gate import Gate, load_gate
from citebound.verify.cascade import Cascade
from citebound.verify.checks.base import SourceCheck
from citebound.verify.checks.entailment import DEFAULT_MODEL, load_scorer

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
        return {"threshold": UNCALIBRATED_THRESHOLD, **blend_options({})}
    entry = load_calibration(ENTAILMENT_DIR).get(kind, {})
    # `default_threshold` (training/match_threshold.py): no more false supports than the rule-only
    # checker on dev; `threshold` is the balanced-accuracy one, used where no default was chosen
    return {"threshold": float(entry.get("default_threshold", entry.get("threshold", UNCALIBRATED_THRESHOLD))),
            **blend_options(entry)}  # fmt: skip


def blend_options(entry: dict) -> dict:
    """The `full` blend's options from a calibration.json `full` entry: the lexical weight, and the weight
    of sources longer than `long_source.min_chars` when calibration chose one."""
    long = entry.get("long_source") or {}
    return {"lexical_weight": float(entry.get("lexical_weight", 0.0)),
            "long_source_chars": int(long.get("min_chars", 0)),
            "long_source_lexical_weight": float(long.get("lexical_weight", 0.0))}  # fmt: skip


def shipped_gate() -> Gate | None:
    """The gate beside the shipped model, or None when there is none or it was fitted for another
    model.onnx (then a warning says to re-run training/fit_gate.py)."""
    gate = load_gate(ENTAILMENT_DIR)
    if gate is not None and not gate.fits(DEFAULT_MODEL):
        warnings.warn(
            f"{ENTAILMENT_DIR / 'gate.json'} was fitted for another model.onnx; `full` uses the calibrated "
            "blend instead (re-run training/fit_gate.py)", stacklevel=3,
        )  # fmt: skip
        return None
    return gate


@dataclass(frozen=True)
class ModelCascade(Cascade):
    """The cascade with the entailment model deciding after the ids and numbers checks, and an optional
    LLM judge `(claim, passage) -> verdict with .label/.reason` (citebound.verify.judge.LlmJudge) that
    sees the model's best window and has the last word; an "unverified" verdict leaves the model's.

    The deterministic stages run unchanged (a number the source does not state still blocks, with no
    model call); a claim the source states word for word (find_span's normalisation) is supported as
    stage "quote" without a model call (`quote_shortcut`), since a copied sentence is entailed by where it
    was copied from. The verdict's stage is "numbers", "quote", "semantic" or "judge".
    """

    judge: Callable[[str, str], Any] | None = None
    quote_shortcut: bool = True

    def check_source(self, claim: str, source_id: str, source: str) -> SourceCheck:
        check = super().check_source(claim, source_id, source)
        if self.semantic is None or self.judge is None or check.stage != "semantic":
            return check
        start, end = check.span or (0, len(source))
        verdict = self.judge(claim, source[start:end])
        if verdict.label not in ("supported", "unsupported"):
            return replace(check, reason=f"{check.reason}; judge {verdict.label}: {verdict.reason}")
        return replace(
            check, label=verdict.label, stage="judge",
            reason=f"{source_id}: judge says {verdict.label} ({verdict.reason}); {check.reason}",
        )  # fmt: skip


def model_checker(*, threshold: float | None = None, model: str | None = None, **options) -> ModelCascade:
    """The entailment model alone."""
    settings = _settings("model", model)
    return ModelCascade(
        threshold=settings["threshold"] if threshold is None else threshold, partial_floor=0.0,
        numbers=False, quote_shortcut=False, semantic=shared_scorer(model), name="model", **options,
    )  # fmt: skip


def full_checker(*, threshold: float | None = None, model: str | None = None, gate: Gate | None | bool = True,
                 **options) -> ModelCascade:  # fmt: skip
    """ids -> numbers -> quote -> model, combined with the deterministic signals by the shipped gate
    (`gate=True`, the default, when it fits the shipped model), a `Gate` of your own, or (`gate=False`,
    or no usable gate) blended with the lexical score as calibration.json says."""
    if gate is True:
        gate = shipped_gate() if model is None else None
    elif gate is False:
        gate = None
    if gate is not None:
        options.setdefault("lexical_weight", 0.0)
        default_threshold = gate.threshold
    else:
        settings = _settings("full", model)
        default_threshold = settings.pop("threshold")
        for key, value in settings.items():  # the blend's options (`blend_options`)
            options.setdefault(key, value)
    return ModelCascade(
        threshold=default_threshold if threshold is None else threshold, partial_floor=0.0,
        semantic=shared_scorer(model), gate=gate, name="full", **options,
    )  # fmt: skip
