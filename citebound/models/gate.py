"""The calibrated gate: a small logistic model over the entailment model's probability and the
verifier's deterministic signals, fitted on dev (training/fit_gate.py) and shipped as JSON beside the
model (`entailment/gate.json`). Pure Python: no numpy at run time.

    P(supported) = sigmoid(bias + sum_i weight_i * (x_i - mean_i) / scale_i)

over the named features (`citebound.verify.cascade.gate_features` computes them); the claim is supported
when P >= `threshold`. `model_sha256` names the model.onnx the gate was fitted for: a gate fitted for
another model is stale (`Gate.fits`), and the `full` checker does not use a stale gate.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from citebound.errors import ModelUnavailableError

GATE_NAME = "gate.json"


@dataclass(frozen=True)
class Gate:
    features: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    threshold: float
    model_sha256: str | None = None
    meta: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        n = len(self.features)
        if not (len(self.weights) == len(self.mean) == len(self.scale) == n) or any(s <= 0 for s in self.scale):
            raise ValueError("a gate needs one weight, mean and positive scale per feature")

    def probability(self, values: Mapping[str, float]) -> float:
        """sigmoid of the linear score; a feature missing from `values` raises KeyError."""
        z = self.bias + sum(w * (float(values[f]) - m) / s
                            for f, w, m, s in zip(self.features, self.weights, self.mean, self.scale))  # fmt: skip
        return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))

    def fits(self, model_path: str | os.PathLike) -> bool:
        """True when the gate was fitted for this model file (or records no model)."""
        return self.model_sha256 is None or self.model_sha256 == file_sha256(model_path)

    def to_dict(self) -> dict[str, Any]:
        return {"features": list(self.features), "weights": list(self.weights), "bias": self.bias,
                "mean": list(self.mean), "scale": list(self.scale), "threshold": self.threshold,
                "model_sha256": self.model_sha256, **({"meta": dict(self.meta)} if self.meta else {})}  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Gate":
        return cls(
            features=tuple(data["features"]), weights=tuple(float(w) for w in data["weights"]),
            bias=float(data["bias"]), mean=tuple(float(m) for m in data["mean"]),
            scale=tuple(float(s) for s in data["scale"]), threshold=float(data["threshold"]),
            model_sha256=data.get("model_sha256"), meta=data.get("meta"),
        )  # fmt: skip


@lru_cache(maxsize=8)
def _sha256(path: str, mtime_ns: int, size: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def file_sha256(path: str | os.PathLike) -> str:
    """The SHA-256 of a file (cached while the file is unchanged)."""
    st = Path(path).stat()
    return _sha256(str(path), st.st_mtime_ns, st.st_size)


def load_gate(model_dir: str | os.PathLike) -> Gate | None:
    """The gate beside a model (`gate.json`), or None when the model has none. An unreadable or
    malformed file is a ModelUnavailableError naming it."""
    path = Path(model_dir) / GATE_NAME
    if not path.is_file():
        return None
    try:
        return Gate.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise ModelUnavailableError(f"unreadable gate file {path}: {exc}") from exc
