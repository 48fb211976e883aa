"""Checkers built once per process, and what identifies a checker in the audit log.

A model-backed checker loads an ONNX session; `ask`, `replay` and the server share one per
(name, threshold). `checker_identity` is what the pipeline records with every request, so that a replay
re-checks with the same checker, threshold and model, and says when the model has changed since.
"""

from __future__ import annotations

import hashlib
import threading
from functools import lru_cache
from importlib import resources
from typing import Any

from citebound.verify.cascade import Cascade
from citebound.verify.checkers import DEFAULT_CHECKER, make_checker

# checkers whose verdicts depend on a bundled model file (package folder under citebound/models/)
_MODEL_OF = {"model": "entailment", "full": "entailment"}
_CHECKERS: dict[tuple[str, float | None], Cascade] = {}
_LOCK = threading.Lock()


def get_checker(name: str | None = None, threshold: float | None = None) -> Cascade:
    """The checker `name` (None: the verifier's default) at `threshold` (None: the checker's own,
    calibrated on dev for the model checkers), built once per process."""
    key = (name or DEFAULT_CHECKER, threshold)
    with _LOCK:
        if key not in _CHECKERS:
            _CHECKERS[key] = make_checker(key[0], threshold=threshold)
        return _CHECKERS[key]


@lru_cache(maxsize=None)
def model_version(name: str) -> str | None:
    """A short content hash of the model file behind checker `name` (None for rule-only checkers)."""
    folder = _MODEL_OF.get(name)
    if folder is None:
        return None
    path = resources.files("citebound") / "models" / folder / "model.onnx"
    if not path.is_file():
        return "missing"
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def checker_identity(checker: Cascade) -> dict[str, Any]:
    """{checker, threshold, model}: recorded with each request; enough to rebuild the same checker."""
    return {"checker": checker.name, "threshold": checker.threshold, "model": model_version(checker.name)}
