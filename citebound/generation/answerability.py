"""Does this sentence answer this question? A learned answerability score for the extractive backend.

Sentence similarity cannot tell a question its source answers from one written to look answerable from
it (SQuAD 2.0's swapped entity, inserted negation, impossible condition). The model shipped in
citebound/models/answerability/ is a MiniLM cross-encoder fine-tuned on (question, sentence) pairs of
SQuAD 2.0 dev's fit half (see its README.md): P(the sentence answers the question). It runs on
onnxruntime + tokenizers through the cross-encoder runtime it shares with the entailment model
(`citebound.models.cross_encoder`), so no torch and no network, and no import of `citebound.verify`.

A question's answerability is the best P over the candidate sentences; `combine()` mixes it with the
extractive relevance as calibration.json says (weights and thresholds chosen on the dev calibration half).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from citebound import config
from citebound.errors import ModelUnavailableError
from citebound.models import ANSWERABILITY_DIR, cross_encoder

MODEL_DIR = ANSWERABILITY_DIR
MODEL_FILE = MODEL_DIR / "model.onnx"
CALIBRATION_FILE = MODEL_DIR / "calibration.json"
# sha256 of a model file -> earlier files whose scores it reproduces bit for bit, so that a knowledge base's
# answer threshold calibrated with one of them still holds (citebound.generation.kb_threshold): 0b3833c3...
# is the shipped model before torch's softmax NaN guards were stripped from it (2026-12-01,
# training/strip_softmax_guard.py: every logit identical on 604 pairs, 600 of them SQuAD 2.0 dev).
SAME_SCORES_AS: dict[str, frozenset[str]] = {
    "c07d606a3fdbb5043ba2cbc153354c4028cd592d0d0e483a8cb1144082b05910":
        frozenset({"0b3833c367ee485dd45832cab7c6c4bba70f4bdce06b35bbc3f516583fc8ea71"}),
}

_lock = threading.Lock()
_scorer: cross_encoder.OnnxCrossEncoder | None = None
_pool: ThreadPoolExecutor | None = None


def shared_scorer() -> cross_encoder.OnnxCrossEncoder:
    """The process-wide answerability scorer (loads the ONNX model on first use, never at import)."""
    global _scorer
    with _lock:
        if _scorer is None:
            if not MODEL_FILE.is_file():
                raise ModelUnavailableError(f"answerability model not found: {MODEL_FILE} (reinstall citebound)")
            # One pair per run (the runtime's default): dynamic int8 quantisation scales activations per
            # batch, so in a batch a sentence's score would depend on which other sentences were retrieved
            # (up to ~0.07 here). Alone it is a function of (question, sentence) only.
            scorer = cross_encoder.OnnxCrossEncoder(MODEL_FILE, batch_size=1)
            scorer.name = "minilm-answerability"
            _scorer = scorer.warm_up()
        return _scorer


def sentence_answerability(question: str, sentences: Sequence[str]) -> list[float]:
    """P(the sentence answers `question`) for each sentence.

    The pairs are spread over `config.threads()` threads (onnxruntime releases the GIL while it runs).
    Each pair is still scored alone, so the probabilities are the same as one thread's."""
    if not sentences:
        return []
    scorer = shared_scorer()
    pairs = [(question, s) for s in sentences]
    workers = min(config.threads(), len(pairs))
    if workers <= 1:
        return scorer.score_pairs(pairs)
    parts = list(_threads().map(scorer.score_pairs, [pairs[i::workers] for i in range(workers)]))
    probs = [0.0] * len(pairs)
    for i, part in enumerate(parts):
        probs[i::workers] = part
    return probs


def _threads() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=config.threads(), thread_name_prefix="answerability")
        return _pool


def load_calibration() -> dict[str, Any]:
    """How to combine the signals, and each signal's threshold, as chosen on the dev calibration half
    (`citebound.models.cross_encoder.load_calibration`: a missing file is a ModelUnavailableError)."""
    return cross_encoder.load_calibration(MODEL_DIR)


def logit(p: float, eps: float = 1e-6) -> float:
    p = min(max(p, eps), 1 - eps)
    return math.log(p / (1 - p))


def combine(answerability: float, relevance: float, weights: dict[str, float]) -> float:
    """A 2-feature logistic regression: sigmoid(bias + w_a * logit(answerability) + w_r * relevance)."""
    z = weights["bias"] + weights["answerability_logit"] * logit(answerability) + weights["relevance"] * relevance
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))
