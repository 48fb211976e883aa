"""The reranker: a cross-encoder rescores the top fused candidates, (question, chunk) -> relevance.

    from citebound.retrieval import Retriever
    from citebound.retrieval.rerank import CrossEncoderReranker
    retriever = Retriever(kb, reranker=CrossEncoderReranker(depth=20))
    hits = retriever.retrieve("What causes scurvy?", k=5)      # hits[i].scores["rerank"]

The model is a MiniLM cross-encoder exported to int8 ONNX, run by the runtime the verifier's models share
(`citebound.models.cross_encoder.OnnxCrossEncoder`: one pair per onnxruntime call, so a chunk's score
never depends on which other chunks were retrieved). By default it is `citebound/models/reranker/model.onnx`
(or `CITEBOUND_RERANKER_MODEL`); any ONNX file with the same inputs (question, text) can be passed as
`model_path`.

A chunk longer than the model's 128 tokens is scored the way the verifier scores a long source: cut into
windows of whole sentences that fit beside the question (one sentence of overlap,
`CrossEncoder.sentence_windows`), each window scored, and the chunk's score is its best window's (max
aggregation) — never the first 128 tokens alone. Sentences that address the reader as instructions are
left out of what the model reads, as the verifier does (`citebound.text.injection.without_instructions`):
a source must not be able to talk its way up the ranking.

`rerank` rescores the first `depth` candidates it is given, orders them (`combine`: "replace" by the
reranker's score alone, ties keeping the fused order; "rrf" by reciprocal-rank fusion of the fused order
and the reranker's order, so a chunk both rankers put high stays high and neither can bury what the
other is sure of; "interp" by `weight` × the reranker's logit + (1 − `weight`) × the fused score, each
min-max scaled over the rescored candidates, so how sure each ranker is counts, not only its order) and
keeps any further candidates after them in fused order.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from citebound import config
from citebound.errors import InputError, ModelUnavailableError
from citebound.models import RERANKER_DIR
from citebound.models.cross_encoder import OnnxCrossEncoder
from citebound.retrieval.fusion import rrf
from citebound.text.injection import without_instructions
from citebound.types import Hit

DEFAULT_MODEL = RERANKER_DIR / "model.onnx"
SCORE_KEY = "rerank"
COMBINE_MODES = ("replace", "rrf", "interp")
PRIOR_KEY = "fused"  # the score "interp" weighs against the reranker's (higher is better)
T = TypeVar("T")


def default_model_path() -> Path:
    """CITEBOUND_RERANKER_MODEL when set, else the bundled reranker."""
    raw = config.env("CITEBOUND_RERANKER_MODEL")
    return Path(raw).expanduser() if raw else DEFAULT_MODEL


class CrossEncoderReranker:
    """Rescores the top `depth` candidates with a cross-encoder; see the module docstring.

    `model_path`: an ONNX cross-encoder taking (question, text) (default: `default_model_path()`);
    `encoder`: an already built `citebound.models.cross_encoder.CrossEncoder` instead (shares its cache);
    `max_windows`: score at most this many windows of a chunk (those sharing most words with the
    question; 0: all of them; None: `config.RERANK_MAX_WINDOWS`); `combine`: how the reranker's scores order the head (module
    docstring; default `config.RERANK_COMBINE`); `weight`: the reranker's share for "interp" (default
    `config.rerank_weight()`: CITEBOUND_RERANK_WEIGHT, else `config.RERANK_WEIGHT`). The model loads on first use or on `warm_up()`, never here.
    """

    def __init__(
        self,
        model_path: str | os.PathLike | None = None,
        *,
        depth: int | None = None,
        max_windows: int | None = None,
        threads: int | None = None,
        encoder=None,
        combine: str | None = None,
        weight: float | None = None,
    ) -> None:
        depth = config.rerank_depth() if depth is None else depth
        combine = config.RERANK_COMBINE if combine is None else combine
        if combine not in COMBINE_MODES:
            raise InputError(f"combine must be one of {', '.join(COMBINE_MODES)}, got {combine!r}")
        self.combine = combine
        self.weight = check_weight(config.rerank_weight() if weight is None else weight)
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise InputError(f"the rerank depth must be a positive integer, got {depth!r}")
        max_windows = config.RERANK_MAX_WINDOWS if max_windows is None else (max_windows or None)
        if max_windows is not None and max_windows < 1:
            raise InputError(f"max_windows must be a positive integer, 0 (all) or None, got {max_windows!r}")
        self.depth = depth
        self.max_windows = max_windows
        if encoder is None:
            path = Path(model_path) if model_path is not None else default_model_path()
            encoder = OnnxCrossEncoder(path, threads=threads or config.rerank_threads())
        self.encoder = encoder
        path = getattr(encoder, "model_path", None)
        self.name = f"{path.parent.name}/{path.name}" if path is not None else getattr(encoder, "name", "cross-encoder")

    def warm_up(self) -> CrossEncoderReranker:
        """Load the model and tokenizer now (a missing model is a ModelUnavailableError naming the file)."""
        self.encoder.warm_up()
        return self

    # -- scoring ---------------------------------------------------------------------------------------
    def windows(self, question: str, text: str) -> list[str]:
        """The texts the model reads for one chunk: its sentence windows that fit beside `question`."""
        spans = self.encoder.sentence_windows(question, text, self.max_windows)
        return [without_instructions(text[w.start : w.end]) for w in spans]

    def score(self, question: str, texts: Sequence[str]) -> list[float]:
        """Relevance of each text to `question`: the model's probability for its best window (0.0 for a
        text with no sentence)."""
        if not isinstance(question, str) or not question.strip():
            raise InputError("the question is empty")
        per_text = [self.windows(question, t) if isinstance(t, str) else [] for t in texts]
        flat = [(question, w) for ws in per_text for w in ws]
        probs = iter(self.encoder.score_pairs(flat)) if flat else iter(())
        return [max((next(probs) for _ in ws), default=0.0) for ws in per_text]

    def timed_scores(self, question: str, texts: Sequence[str]) -> list[tuple[float, float, float]]:
        """(score, wall seconds, CPU seconds of this process) for each text, scored one after another:
        what an evaluation sums to report the added latency at several depths from one pass. The CPU
        time does not grow when other processes share the machine; the wall time does."""
        out = []
        for text in texts:
            w0, c0 = time.perf_counter(), time.process_time()
            s = self.score(question, [text])[0]
            out.append((s, time.perf_counter() - w0, time.process_time() - c0))
        return out

    # -- the Reranker hook -----------------------------------------------------------------------------
    def rerank(self, question: str, hits: Sequence[Hit]) -> list[Hit]:
        """The first `depth` hits ordered by relevance (each with `scores["rerank"]`), then the rest in
        their given order."""
        head, tail = list(hits[: self.depth]), list(hits[self.depth :])
        scores = self.score(question, [h.chunk.text for h in head])
        rescored = [Hit(h.source_id, h.chunk, {**h.scores, SCORE_KEY: s}) for h, s in zip(head, scores)]
        prior = [h.scores.get(PRIOR_KEY, 1.0 / (config.RRF_K + i)) for i, h in enumerate(head, 1)]
        return reorder(rescored, scores, len(rescored), self.combine, prior, self.weight) + tail


def check_weight(weight: float) -> float:
    """`weight` if it is a number in [0, 1] (the reranker's share for "interp"), else an InputError."""
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0.0 <= weight <= 1.0:
        raise InputError(f"the rerank weight must be a number from 0 to 1, got {weight!r}")
    return float(weight)


def reorder(items: Sequence[T], scores: Sequence[float], depth: int, combine: str = "replace",
            prior: Sequence[float] | None = None, weight: float | None = None) -> list[T]:
    """The rerank rule for `combine` ("replace": `order_by_scores`; "rrf": `order_by_rrf`; "interp":
    `order_by_interp` with the fused scores `prior` and the reranker's share `weight`)."""
    if combine == "rrf":
        return order_by_rrf(items, scores, depth)
    if combine == "interp":
        if prior is None:
            raise InputError('combine "interp" needs the fused scores of the candidates')
        return order_by_interp(items, scores, prior, depth, config.RERANK_WEIGHT if weight is None else weight)
    return order_by_scores(items, scores, depth)


def _logit(p: float) -> float:
    p = min(max(p, 1e-7), 1.0 - 1e-7)
    return math.log(p / (1.0 - p))


def _min_max(values: list[float]) -> list[float]:
    lo, hi = min(values, default=0.0), max(values, default=0.0)
    return [(v - lo) / (hi - lo) if hi > lo else 0.0 for v in values]


def order_by_interp(items: Sequence[T], scores: Sequence[float], prior: Sequence[float], depth: int,
                    weight: float = config.RERANK_WEIGHT) -> list[T]:
    """`items` with the first `depth` ordered by `weight` × the reranker's score + (1 − `weight`) × `prior`
    (the fused score, higher is better), each min-max scaled to [0, 1] over those `depth` items; the
    reranker's probabilities are read as logits first (they crowd near 0 and 1, where a logit still tells
    them apart). Ties keep the given order; the rest follow in their given order. `weight` 1 orders by the
    reranker alone, 0 keeps the given order (when `prior` falls along it)."""
    check_weight(weight)
    depth = min(depth, len(items), len(scores), len(prior))
    model = _min_max([_logit(s) for s in scores[:depth]])
    fused = _min_max([float(p) for p in prior[:depth]])
    mixed = [weight * m + (1.0 - weight) * f for m, f in zip(model, fused)]
    head = sorted(range(depth), key=lambda i: (-mixed[i], i))
    return [items[i] for i in head] + list(items[depth:])


def order_by_rrf(items: Sequence[T], scores: Sequence[float], depth: int, k: int = config.RRF_K) -> list[T]:
    """`items` with the first `depth` ordered by reciprocal-rank fusion (`citebound.retrieval.fusion.rrf`)
    of their given order and the reranker's order (ties keep the given order), and the rest after them
    in their given order."""
    depth = min(depth, len(items), len(scores))
    by_model = sorted(range(depth), key=lambda i: (-scores[i], i))
    head = [i for i, _ in rrf([list(range(depth)), by_model], k)]
    return [items[i] for i in head] + list(items[depth:])


def order_by_scores(items: Sequence[T], scores: Sequence[float], depth: int) -> list[T]:
    """`items` with the first `depth` reordered by `scores` (one per reordered item; ties keep the given
    order) and the rest after them in their given order: the rerank rule, on hits or on plain ids."""
    depth = min(depth, len(items), len(scores))
    head = sorted(range(depth), key=lambda i: (-scores[i], i))
    return [items[i] for i in head] + list(items[depth:])


_lock = threading.Lock()
_encoders: dict[str, OnnxCrossEncoder] = {}


def shared_reranker(model_path: str | os.PathLike | None = None, depth: int | None = None,
                    weight: float | None = None) -> CrossEncoderReranker:
    """A reranker over the process-wide encoder of `model_path` (loaded once, on first use; its pair
    cache shared by every depth): what the CLI and the server use."""
    path = Path(model_path) if model_path is not None else default_model_path()
    if not path.is_file():
        raise ModelUnavailableError(
            f"reranker model not found: {path} (set CITEBOUND_RERANKER_MODEL to an ONNX cross-encoder, "
            "or turn reranking off)"
        )
    key = str(path.resolve())
    with _lock:
        if key not in _encoders:
            _encoders[key] = OnnxCrossEncoder(path, threads=config.rerank_threads()).warm_up()
        encoder = _encoders[key]
    return CrossEncoderReranker(depth=depth, encoder=encoder, weight=weight)


def ask_reranker(enabled: bool | None = None, depth: int | None = None,
                 weight: float | None = None) -> CrossEncoderReranker | None:
    """The reranker `ask` uses wherever it runs (the CLI, the Python API, HTTP, MCP, `eval qa`, the
    demo): the shared one when reranking is on (`enabled`, else `config.rerank_enabled()`, i.e.
    CITEBOUND_RERANK or config.RERANK), else None, so that one setting means the same everywhere."""
    on = config.rerank_enabled() if enabled is None else enabled
    return shared_reranker(depth=depth, weight=weight) if on else None
