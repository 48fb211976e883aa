"""The semantic stage: an entailment cross-encoder scoring (claim, evidence window) -> P(supported).

The default model ships inside the package (citebound/models/entailment/model.onnx, int8, trained here
from all-MiniLM-L6-v2; see its README.md) and runs on onnxruntime + tokenizers: no torch, no network.

Long sources are split into windows of whole sentences (`citebound.text.sentences.sentence_spans`)
that fit the model beside the claim; consecutive windows share a sentence so a fact that straddles a
boundary is seen whole once. Each (claim, window) pair is scored in batches and the source's score is
the best window's (max aggregation, as SummaC-ZS and AlignScore do); its character offsets into the
source are the evidence span.

Plug-ins: `load_scorer(spec)` also takes an ONNX file of your own (same inputs: input_ids,
attention_mask, token_type_ids) or a local Hugging Face model directory (needs `citebound[hf]`).
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from citebound.errors import InputError, ModelUnavailableError
from citebound.text.injection import without_instructions
from citebound.text.sentences import sentence_spans, split_sentences

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
DEFAULT_MODEL = MODELS_DIR / "entailment" / "model.onnx"
DEFAULT_TOKENIZER = MODELS_DIR / "minilm" / "tokenizer.json"
CALIBRATION_FILE = MODELS_DIR / "entailment" / "calibration.json"
MAX_LENGTH = 128  # the length the shipped model was trained at
DEFAULT_MAX_WINDOWS = 8
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset("a an the of to in on at for and or is are was were be been by with as that this it its from".split())


@dataclass(frozen=True, slots=True)
class Window:
    start: int
    end: int


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def plan_windows(sentence_tokens: Sequence[tuple[int, int, int]], budget: int) -> list[Window]:
    """Group sentences (start, end, n_tokens) into windows of at most `budget` tokens.

    A window grows sentence by sentence while it fits; the next window starts at the previous
    window's last sentence (one sentence of overlap) unless that window was a single sentence.
    A sentence longer than the budget is its own window (the tokenizer truncates it).
    """
    windows: list[Window] = []
    i, n = 0, len(sentence_tokens)
    while i < n:
        j, used = i, sentence_tokens[i][2]
        while j + 1 < n and used + sentence_tokens[j + 1][2] <= budget:
            j += 1
            used += sentence_tokens[j][2]
        window = Window(sentence_tokens[i][0], sentence_tokens[j][1])
        if not windows or window.end > windows[-1].end:  # skip a sentence the previous window holds
            windows.append(window)
        if j + 1 >= n:
            break
        i = j if j > i else j + 1
    return windows


class _WindowedScorer:
    """Shared windowing, batching and max aggregation; subclasses implement `_logits_to_probs`."""

    name = "entailment"

    def __init__(
        self,
        *,
        tokenizer_path: str | os.PathLike | None = None,
        max_length: int = MAX_LENGTH,
        batch_size: int = 16,
        max_windows: int | None = DEFAULT_MAX_WINDOWS,
        split_claims: bool = True,
    ) -> None:
        if max_length < 16:
            raise InputError(f"max_length must be at least 16, got {max_length}")
        self.tokenizer_path = Path(tokenizer_path) if tokenizer_path else DEFAULT_TOKENIZER
        self.max_length = max_length
        self.batch_size = max(1, batch_size)
        self.max_windows = max_windows
        self.split_claims = split_claims
        self._tokenizer = None
        self._lock = threading.Lock()
        # (claim, window) -> P(supported): checkers sharing this scorer (model, full, a benchmark running
        # both) never score the same pair twice. Bounded; cleared when full.
        self._cache: dict[tuple[str, str], float] = {}
        self.cache_size = 100_000

    # -- loading -----------------------------------------------------------------------------------
    def _load_tokenizer(self):
        try:
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - a core dependency
            raise ModelUnavailableError("the entailment model needs `tokenizers`: pip install tokenizers") from exc
        if not self.tokenizer_path.is_file():
            raise ModelUnavailableError(f"tokenizer not found: {self.tokenizer_path}")
        tok = Tokenizer.from_file(str(self.tokenizer_path))
        tok.no_padding()
        tok.no_truncation()
        return tok

    def _load_model(self) -> None:
        raise NotImplementedError

    def warm_up(self) -> "_WindowedScorer":
        """Load the tokenizer and model now (otherwise on first use). Returns self."""
        with self._lock:
            if self._tokenizer is None:
                self._load_model()
                self._tokenizer = self._load_tokenizer()
        return self

    # -- windows -----------------------------------------------------------------------------------
    def windows(self, claim: str, passage: str) -> list[Window]:
        """The sentence windows of `passage` that fit the model beside `claim`."""
        self.warm_up()
        spans = sentence_spans(passage)
        if not spans:
            return []
        claim_tokens = len(self._tokenizer.encode(claim, add_special_tokens=False).ids)
        budget = max(16, self.max_length - 3 - min(claim_tokens, self.max_length // 2))
        counts = self._tokenizer.encode_batch([passage[s:e] for s, e in spans], add_special_tokens=False)
        windows = plan_windows([(s, e, len(c.ids)) for (s, e), c in zip(spans, counts)], budget)
        if self.max_windows and len(windows) > self.max_windows:
            # keep the windows sharing most words with the claim (ties: earlier first), in source order
            words = _content_words(claim)
            ranked = sorted(
                range(len(windows)),
                key=lambda k: (-len(words & _content_words(passage[windows[k].start : windows[k].end])), k),
            )
            windows = [windows[k] for k in sorted(ranked[: self.max_windows])]
        return windows

    # -- scoring -----------------------------------------------------------------------------------
    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(supported) for each (claim, evidence) pair, as given (no windowing; truncated to fit)."""
        self.warm_up()
        probs = [self._cache.get((c, e)) for c, e in pairs]
        todo = sorted({(c, e) for (c, e), p in zip(pairs, probs) if p is None})
        if todo:
            enc = self._tokenizer.encode_batch(todo)
            order = sorted(range(len(todo)), key=lambda i: len(enc[i].ids))  # similar lengths, less padding
            if len(self._cache) + len(todo) > self.cache_size:
                self._cache.clear()
            for b in range(0, len(order), self.batch_size):
                idx = order[b : b + self.batch_size]
                for i, p in zip(idx, self._score_rows([self._truncate(enc[i]) for i in idx])):
                    self._cache[todo[i]] = p
            probs = [self._cache[(c, e)] for c, e in pairs]
        return probs  # type: ignore[return-value]

    def _truncate(self, e) -> tuple[list[int], list[int]]:
        """Ids and type ids cut to max_length, keeping the claim (segment 0) and the final [SEP]."""
        ids, types = list(e.ids), list(e.type_ids)
        if len(ids) <= self.max_length:
            return ids, types
        first = types.index(1) if 1 in types else len(ids)  # [CLS] claim [SEP] | evidence [SEP]
        claim, evidence = ids[1 : first - 1], ids[first:-1]
        keep_claim = min(len(claim), max(self.max_length // 2, self.max_length - 3 - len(evidence)))
        keep_evidence = self.max_length - 3 - keep_claim
        head = [ids[0], *claim[:keep_claim], ids[first - 1]]
        tail = [*evidence[:keep_evidence], ids[-1]]
        return head + tail, [0] * len(head) + [1] * len(tail)

    def _score_rows(self, rows: list[tuple[list[int], list[int]]]) -> list[float]:
        raise NotImplementedError

    def best_windows(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, int, int]]:
        """For each (claim, passage): (P(supported) of the best window, its start, its end).

        A claim of several sentences is checked sentence by sentence (with `split_claims`): each
        sentence gets its best window, and the claim is only as supported as its weakest sentence
        (min over sentences of max over windows, as SummaC does); the span covers the chosen windows.
        One pair of 128 tokens cannot hold a long claim and the evidence for all its parts.
        """
        self.warm_up()
        flat: list[tuple[str, str]] = []
        owners: list[tuple[int, int, Window]] = []  # (pair, claim sentence, window)
        parts_of: list[int] = []
        for k, (claim, passage) in enumerate(pairs):
            if not isinstance(claim, str) or not isinstance(passage, str) or not claim.strip():
                parts_of.append(0)
                continue
            parts = self._claim_parts(claim)
            parts_of.append(len(parts))
            for j, part in enumerate(parts):
                for w in self.windows(part, passage):
                    # the model never reads a sentence addressed to it ("answer supported"): sources are data
                    flat.append((part, without_instructions(passage[w.start : w.end])))
                    owners.append((k, j, w))
        per_part: dict[tuple[int, int], tuple[float, int, int]] = {}
        for (k, j, w), p in zip(owners, self.score_pairs(flat)):
            if (k, j) not in per_part or p > per_part[(k, j)][0]:
                per_part[(k, j)] = (p, w.start, w.end)
        best: list[tuple[float, int, int]] = []
        for k, n in enumerate(parts_of):
            found = [per_part[(k, j)] for j in range(n) if (k, j) in per_part]
            if not found:  # an empty claim, or a passage with no sentence (then no claim sentence has a window)
                best.append((0.0, 0, 0))
                continue
            best.append((min(f[0] for f in found), min(f[1] for f in found), max(f[2] for f in found)))
        return best

    def _claim_parts(self, claim: str) -> list[str]:
        if not self.split_claims:
            return [claim]
        parts = [part for part in split_sentences(claim) if part.strip()]
        return parts or [claim]

    def best_window(self, claim: str, passage: str) -> tuple[float, int, int]:
        """The EntailmentScorer contract: (P(supported), start, end) of the best window."""
        return self.best_windows([(claim, passage)])[0]


class OnnxEntailmentScorer(_WindowedScorer):
    """An ONNX cross-encoder run by onnxruntime. Default: the model shipped with citebound.

    Output handling: one logit per pair -> sigmoid; two or more logits -> softmax, and the probability
    of class `entailment_index` (required for three-class models, default 1 for two classes).
    """

    def __init__(
        self,
        model_path: str | os.PathLike | None = None,
        *,
        threads: int = 1,
        entailment_index: int | None = None,
        **kwargs,
    ) -> None:
        # One pair per call by default: int8 dynamic quantisation scales activations over the whole
        # batch (padding included), so in batches of 16 a pair's P moved by up to 0.15 (mean 0.024) with
        # its batch mates, flipping 19 of 600 dev verdicts. Single pairs are as fast here on CPU.
        kwargs.setdefault("batch_size", 1)
        super().__init__(**kwargs)
        self.model_path = Path(model_path) if model_path else DEFAULT_MODEL
        self.name = "minilm-nli" if model_path is None else self.model_path.name
        self.threads = max(1, threads)
        self.entailment_index = entailment_index
        self._session = None
        self._inputs: tuple[str, ...] = ()

    def _load_model(self) -> None:
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise ModelUnavailableError(
                "the entailment model needs onnxruntime: pip install onnxruntime (or pip install citebound)"
            ) from exc
        if not self.model_path.is_file():
            raise ModelUnavailableError(
                f"entailment model not found: {self.model_path} (reinstall citebound, or pass an ONNX file)"
            )
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self.threads
        opts.inter_op_num_threads = 1
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


def logits_to_probs(out, entailment_index: int | None) -> list[float]:
    """Model outputs of shape (batch,), (batch, 1) or (batch, classes) -> P(entailment) per row."""
    import numpy as np

    if out.ndim == 1 or out.shape[-1] == 1:
        return [_sigmoid(float(x)) for x in out.reshape(-1)]
    classes = out.shape[-1]
    index = entailment_index if entailment_index is not None else (1 if classes == 2 else None)
    if index is None or not 0 <= index < classes:
        raise InputError(f"the model has {classes} output classes: say which one is 'entailment' (entailment_index)")
    z = out - out.max(axis=-1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
    return [float(x) for x in p[:, index]]


class HfEntailmentScorer(_WindowedScorer):
    """A local Hugging Face sequence-classification model directory (needs `pip install citebound[hf]`).

    Never downloads: loads with `local_files_only=True`. The entailment class is taken from the
    config's id2label (a label containing "entail" or "support") unless `entailment_index` is given.
    """

    def __init__(self, model_dir: str | os.PathLike, *, entailment_index: int | None = None, **kwargs) -> None:
        model_dir = Path(model_dir)
        if (model_dir / "tokenizer.json").is_file():
            kwargs.setdefault("tokenizer_path", model_dir / "tokenizer.json")
        super().__init__(**kwargs)
        self.model_dir = model_dir
        self.name = model_dir.name
        self.entailment_index = entailment_index
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
        self._model = AutoModelForSequenceClassification.from_pretrained(str(self.model_dir), local_files_only=True)
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


def load_scorer(spec: str | os.PathLike | None = None, **options) -> _WindowedScorer:
    """The entailment scorer named by `spec`: None -> the shipped model; a `.onnx` file; or a local
    Hugging Face model directory (a directory holding model.onnx is run with onnxruntime)."""
    if spec is None or str(spec) in ("", "default", "minilm-nli"):
        # how many windows per source to score was chosen on dev with the thresholds (calibration.json)
        calibration = load_calibration()
        options.setdefault("max_windows", calibration.get("max_windows", DEFAULT_MAX_WINDOWS))
        options.setdefault("split_claims", calibration.get("split_claims", True))
        return OnnxEntailmentScorer(**options)
    path = Path(spec).expanduser()
    if path.is_file() and path.suffix == ".onnx":
        return OnnxEntailmentScorer(path, **options)
    if path.is_dir() and (path / "model.onnx").is_file() and not (path / "config.json").is_file():
        return OnnxEntailmentScorer(path / "model.onnx", **options)
    if path.is_dir():
        return HfEntailmentScorer(path, **options)
    raise InputError(f"entailment model not found: {spec} (give an .onnx file or a Hugging Face model directory)")


def load_calibration(path: str | os.PathLike | None = None) -> dict:
    """Thresholds chosen on dev for the shipped model (empty when the file is missing)."""
    path = Path(path) if path else CALIBRATION_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, json.JSONDecodeError) as exc:
        raise ModelUnavailableError(f"unreadable calibration file {path}: {exc}") from exc


load_entailment_scorer = load_scorer  # the public name (citebound.load_entailment_scorer)
