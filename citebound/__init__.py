"""citebound: answers from your own documents, with every citation checked against its source span.

The public API is imported lazily so that `import citebound` stays cheap and `citebound.verify` can be
used on its own without loading retrieval, generation or any model.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from citebound.version import __version__

# public name -> module that defines it
_EXPORTS = {
    "verify_answer": "citebound.verify",
    "check_claim": "citebound.verify",
    "find_span": "citebound.verify",
    "AnswerReport": "citebound.verify",
    "ClaimVerdict": "citebound.verify",
    "GroundedAnswer": "citebound.verify",
    "Citation": "citebound.verify",
    "metrics": "citebound.metrics",
    "KnowledgeBase": "citebound.kb",
    "Retriever": "citebound.retrieval",
    "ask": "citebound.pipeline",
    "AskResult": "citebound.pipeline",
    "AuditLog": "citebound.audit",
    "OnnxEntailmentScorer": "citebound.verify.checks.entailment",
    "load_entailment_scorer": "citebound.verify.checks.entailment",
    "LlmJudge": "citebound.verify.judge",
    "JudgeVerdict": "citebound.verify.judge",
    "evaluate_answers": "citebound.evaluate.answers",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'citebound' has no attribute {name!r}")
    mod = import_module(module)
    return mod if module.endswith("." + name) else getattr(mod, name)
