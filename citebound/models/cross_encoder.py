"""The one runtime for citebound's cross-encoders: (text A, text B) -> P(positive class).

The entailment model (`citebound.verify.checks.entailment`: claim, evidence window -> P(supported))
and the answerability model (`citebound.generation.answerability`: question, sentence -> P(answers))
are both MiniLM cross-encoders exported to int8 ONNX. This module is what they share:

- `OnnxCrossEncoder`: an onnxruntime session with a fixed number of threads (1 by default), the WordPiece
  tokenizer, pair truncation that keeps the first text and the final [SEP], and `score_pairs`, which
  scores **one pair per onnxruntime call** and caches each pair's probability (`clear_cache()` empties
  it). One pair per call because int8 dynamic quantisation scales activations over the whole batch
  (padding included): in batches of 16 a pair's probability moved by up to 0.15 with its batch mates.
  Scored alone, a pair's probability is a function of the pair only.
- `HfCrossEncoder`: the same interface over a local Hugging Face model directory (`citebound[hf]`).
- `load_calibration(model_dir)`: the `calibration.json` beside a model. A missing or unreadable file is a
  `ModelUnavailableError` (a `CiteboundError`) naming the file; there is no silent default.

onnxruntime, tokenizers, numpy (and torch for `HfCrossEncoder`) are imported on first use, never at
import time, so `citebound.verify` stays light until a model checker is built.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from citebound.errors import InputError, ModelUnavailableError
from citebound.models import TOKENIZER_FILE
from citebound.text.sentences import sentence_spans
from citebound.text.windows import Window, most_overlapping, plan_windows

MAX_LENGTH = 128  # the length the shipped models were trained at
CALIBRATION_NAME = "calibration.json"

_calibrations: dict[Path, tuple[int, dict[str, Any]]] = {}
_calibration_lock = threading.Lock()


def load_calibration(model_dir: str | os.PathLike) -> dict[str, Any]:
    """The settings chosen on dev for the model in `model_dir` (its `calibration.json`).

    Read once and cached until the file changes (a retrained model replaces it). A missing or
    unreadable file raises `ModelUnavailableError` naming the file. Treat the result as read-only.
    """
    path = Path(model_dir) / CALIBRATION_NAME
    try:
        mtime = path.stat().st_mtime_ns
    except OSError as exc:
        raise ModelUnavailableError(f"calibration file not found: {path} (reinstall citebound)") from exc
    with _calibration_lock:
        cached = _calibrations.get(path)
        if cached is not None and cached[0] == mtime:
            return cached[1]
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelUnavailableError(f"unreadable calibration file {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ModelUnavailableError(f"unreadable calibration file {path}: not a JSON object")
    with _calibration_lock:
        _calibrations[path] = (mtime, data)
    return data


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def logits_to_probs(out, entailment_index: int | None) -> list[float]:
    """Model outputs of shape (batch,), (batch, 1) or (batch, classes) -> P(positive class) per row.

    One logit -> sigmoid; two or more -> softmax and class `entailment_index` (default 1 for two
    classes; required for more)."""
    import numpy as np

    if out.ndim == 1 or out.shape[-1] == 1:
        return [sigmoid(float(x)) for x in out.reshape(-1)]
    classes = out.shape[-1]
    index = entailment_index if entailment_index is not None else (1 if classes == 2 else None)
    if index is None or not 0 <= index < classes:
        raise InputError(f"the model has {classes} output classes: say which one is 'entailment' (entailment_index)")
    z = out - out.max(axis=-1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
    return [float(x) for x in p[:, index]]


def load_tokenizer(path: str | os.PathLike | None = None):
    """The WordPiece tokenizer (`tokenizer.json`), with padding and truncation off (we do both)."""
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:  # pragma: no cover - a core dependency
        raise ModelUnavailableError("the cross-encoder models need `tokenizers`: pip install tokenizers") from exc
    path = Path(path) if path else TOKENIZER_FILE
    if not path.is_file():
        raise ModelUnavailableError(f"tokenizer not found: {path}")
    tok = Tokenizer.from_file(str(path))
    tok.no_padding()
    tok.no_truncation()
    return tok


class CrossEncoder:
    """Tokenizer, truncation, one-pair-per-call scoring and the pair cache; subclasses load a model
    (`_load_model`) and score encoded rows (`_score_rows`)."""

    name = "cross-encoder"

    def __init__(
        self,
        *,
        tokenizer_path: str | os.PathLike | None = None,
        max_length: int = MAX_LENGTH,
        batch_size: int = 1,
        entailment_index: int | None = None,
        cache_size: int = 100_000,
    ) -> None:
        if max_length < 16:
            raise InputError(f"max_length must be at least 16, got {max_length}")
        self.tokenizer_path = Path(tokenizer_path) if tokenizer_path else TOKENIZER_FILE
        self.max_length = max_length
        # 1 = one pair per model call (see the module docstring); larger batches are faster on some
        # hardware but make a pair's score depend on its batch mates under int8 quantisation.
        self.batch_size = max(1, batch_size)
        self.entailment_index = entailment_index
        self.cache_size = cache_size
        self._tokenizer = None
        self._lock = threading.Lock()
        # (text A, text B) -> P: callers sharing this encoder (model, full, a benchmark running both)
        # never score the same pair twice. Bounded; emptied when full.
        self._cache: dict[tuple[str, str], float] = {}

    # -- loading -----------------------------------------------------------------------------------
    def _load_model(self) -> None:
        raise NotImplementedError

    def warm_up(self):
        """Load the tokenizer and model now (otherwise on first use). Returns self."""
        with self._lock:
            if self._tokenizer is None:
                self._load_model()
                self._tokenizer = load_tokenizer(self.tokenizer_path)
        return self

    @property
    def tokenizer(self):
        self.warm_up()
        return self._tokenizer

    def clear_cache(self) -> None:
        """Forget every cached pair score (e.g. to time real inference, or after swapping the model)."""
        self._cache.clear()

    # -- windows -----------------------------------------------------------------------------------
    def sentence_windows(self, first: str, passage: str, max_windows: int | None = None) -> list[Window]:
        """The windows of whole sentences of `passage` that fit the model beside `first` (the claim or
        the question: it keeps up to half of `max_length`), one sentence of overlap between neighbours
        (`citebound.text.windows.plan_windows`). With `max_windows`, only that many: those sharing most
        words with `first`, in source order."""
        tok = self.tokenizer
        spans = sentence_spans(passage)
        if not spans:
            return []
        first_tokens = len(tok.encode(first, add_special_tokens=False).ids)
        budget = max(16, self.max_length - 3 - min(first_tokens, self.max_length // 2))
        counts = tok.encode_batch([passage[s:e] for s, e in spans], add_special_tokens=False)
        windows = plan_windows([(s, e, len(c.ids)) for (s, e), c in zip(spans, counts)], budget)
        if max_windows:
            windows = most_overlapping(windows, first, passage, max_windows)
        return windows

    # -- scoring -----------------------------------------------------------------------------------
    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(positive class) for each (text A, text B) pair, as given (truncated to `max_length`)."""
        self.warm_up()
        probs = [self._cache.get((a, b)) for a, b in pairs]
        todo = sorted({(a, b) for (a, b), p in zip(pairs, probs) if p is None})
        if todo:
            enc = self._tokenizer.encode_batch(todo)
            order = sorted(range(len(todo)), key=lambda i: len(enc[i].ids))  # similar lengths, less padding
            if len(self._cache) + len(todo) > self.cache_size:
                self._cache.clear()
            fresh: dict[tuple[str, str], float] = {}
            for b in range(0, len(order), self.batch_size):
                idx = order[b : b + self.batch_size]
                for i, p in zip(idx, self._score_rows([self._truncate(enc[i]) for i in idx])):
                    fresh[todo[i]] = p
            self._cache.update(fresh)
            probs = [p if p is not None else fresh[(a, b)] for (a, b), p in zip(pairs, probs)]
        return probs  # type: ignore[return-value]

    def _truncate(self, e) -> tuple[list[int], list[int]]:
        """Ids and type ids cut to max_length, keeping text A (segment 0) and the final [SEP]."""
        ids, types = list(e.ids), list(e.type_ids)
        if len(ids) <= self.max_length:
            return ids, types
        first = types.index(1) if 1 in types else len(ids)  # [CLS] A [SEP] | B [SEP]
        claim, evidence = ids[1 : first - 1], ids[first:-1]
        keep_claim = min(len(claim), max(self.max_length // 2, self.max_length - 3 - len(evidence)))
        keep_evidence = self.max_length - 3 - keep_claim
        head = [ids[0], *claim[:keep_claim], ids[first - 1]]
        tail = [*evidence[:keep_evidence], ids[-1]]
        return head + tail, [0] * len(head) + [1] * len(tail)

    def _score_rows(self, rows: list[tuple[list[int], list[int]]]) -> list[float]:
        raise NotImplementedError


class OnnxCrossEncoder(CrossEncoder):
    """An ONNX cross-encoder run by onnxruntime on the CPU with `threads` intra-op threads.

    Inputs `input_ids`, `attention_mask`, `token_type_ids` (those the graph declares are fed); output
    logits: one per pair -> sigmoid, two or more -> softmax and class `entailment_index`.
    """

    def __init__(self, model_path: str | os.PathLike, *, threads: int = 1, **kwargs) -> None:
        super().__init__(**kwargs)
        self.model_path = Path(model_path)
        self.name = self.model_path.name
        self.threads = max(1, threads)
        self._session = None
        self._inputs: tuple[str, ...] = ()

    def _load_model(self) -> None:
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise ModelUnavailableError(
                "the cross-encoder models need onnxruntime: pip install onnxruntime (or pip install citebound)"
            ) from exc
        if not self.model_path.is_file():
            raise ModelUnavailableError(f"model not found: {self.model_path} (reinstall citebound, or pass an ONNX file)")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self.threads
        opts.inter_op_num_threads = 1
        # On an AVX2 CPU without VNNI, onnxruntime's u8s8 int8 GEMM saturates 16-bit sums, so the same
        # pair scored up to 0.11 apart from a VNNI CPU (the threshold was calibrated on one): int16 sums
        # give every x86 CPU the exact products (onnxruntime#14642, PR 12088). The float kernels around them
        # still differ a little by CPU (a reranker logit by 0.026). Costs little (bench/verify_speed.py).
        opts.add_session_config_entry("session.x64quantprecision", "1")
        try:
            self._session = ort.InferenceSession(str(self.model_path), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types for bad files
            raise ModelUnavailableError(f"cannot load ONNX model {self.model_path}: {exc}") from exc
        self._inputs = tuple(i.name for i in self._session.get_inputs())

    def _score_rows(self, rows: list[tuple[list[int], list[int]]]) -> list[float]:
        import numpy as np

        width = max(len(ids) for ids, _ in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        types = np.zeros_like(ids)
        mask = np.zeros_like(ids)
        for r, (i, t) in enumerate(rows):
            ids[r, : len(i)], types[r, : len(t)], mask[r, : len(i)] = i, t, 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        out = self._session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[0]
        return logits_to_probs(np.asarray(out, dtype=np.float64), self.entailment_index)


class HfCrossEncoder(CrossEncoder):
    """A local Hugging Face sequence-classification model directory (needs `pip install citebound[hf]`).

    Never downloads: loads with `local_files_only=True`. The positive class is taken from the config's
    id2label (a label containing "entail" or "support") unless `entailment_index` is given.
    """

    def __init__(self, model_dir: str | os.PathLike, **kwargs) -> None:
        model_dir = Path(model_dir)
        if (model_dir / "tokenizer.json").is_file():
            kwargs.setdefault("tokenizer_path", model_dir / "tokenizer.json")
        super().__init__(**kwargs)
        self.model_dir = model_dir
        self.name = model_dir.name
        self._model = None

    def _load_model(self) -> None:
        try:
            import torch
            from transformers import AutoModelForSequenceClassification
        except ImportError as exc:
            raise ModelUnavailableError(
                "a Hugging Face model directory needs transformers and torch: pip install 'citebound[hf]'"
            ) from exc
        if not (self.model_dir / "config.json").is_file():
            raise ModelUnavailableError(f"not a Hugging Face model directory (no config.json): {self.model_dir}")
        if not self.tokenizer_path.is_file():
            raise ModelUnavailableError(f"{self.model_dir} has no tokenizer.json; pass tokenizer_path=")
        try:
            self._model = AutoModelForSequenceClassification.from_pretrained(str(self.model_dir), local_files_only=True)
        except Exception as exc:  # transformers raises OSError/ValueError/... for a broken directory
            raise ModelUnavailableError(f"cannot load Hugging Face model {self.model_dir}: {exc}") from exc
        self._model.eval()
        self._torch = torch
        if self.entailment_index is None and self._model.config.num_labels > 1:
            labels = {int(k): str(v).lower() for k, v in self._model.config.id2label.items()}
            hits = [k for k, v in labels.items() if "entail" in v and "not" not in v or "support" in v]
            self.entailment_index = hits[0] if hits else None

    def _score_rows(self, rows: list[tuple[list[int], list[int]]]) -> list[float]:
        torch = self._torch
        width = max(len(ids) for ids, _ in rows)
        ids = torch.zeros((len(rows), width), dtype=torch.long)
        types = torch.zeros_like(ids)
        mask = torch.zeros_like(ids)
        for r, (i, t) in enumerate(rows):
            ids[r, : len(i)], types[r, : len(t)], mask[r, : len(i)] = torch.tensor(i), torch.tensor(t), 1
        with torch.no_grad():
            out = self._model(input_ids=ids, attention_mask=mask, token_type_ids=types).logits
        return logits_to_probs(out.double().numpy(), self.entailment_index)
