"""The semantic stage: an entailment cross-encoder scoring (claim, evidence window) -> P(supported).

The default model ships inside the package (citebound/models/entailment/model.onnx, int8, trained here
from all-MiniLM-L6-v2; see its README.md) and runs on onnxruntime + tokenizers: no torch, no network.

Long sources are split into windows of whole sentences (`citebound.text.sentences.sentence_spans`)
that fit the model beside the claim; consecutive windows share a sentence so a fact that straddles a
boundary is seen whole once. The `max_windows` windows sharing most words with the claim are scored
(one pair per model call, by the shared runtime `citebound.models.cross_encoder`) and the source's score
is the best window's (max aggregation, as SummaC-ZS and AlignScore do); its character offsets into the
source are the evidence span.

Plug-ins: `load_scorer(spec)` also takes an ONNX file of your own (same inputs: input_ids,
attention_mask, token_type_ids) or a local Hugging Face model directory (needs `citebound[hf]`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from citebound.errors import InputError
from citebound.models import ENTAILMENT_DIR, MODELS_DIR, TOKENIZER_FILE
from citebound.models.cross_encoder import (
    MAX_LENGTH,
    HfCrossEncoder,
    OnnxCrossEncoder,
    load_calibration,
    logits_to_probs,
)
from citebound.text.injection import without_instructions
from citebound.text.numbers import written_as_in
from citebound.text.sentences import split_sentences
from citebound.text.windows import Window, plan_windows
from citebound.verify.checks.bounds import denied_bound_as_in

DEFAULT_MODEL = ENTAILMENT_DIR / "model.onnx"
DEFAULT_TOKENIZER = TOKENIZER_FILE
CALIBRATION_FILE = ENTAILMENT_DIR / "calibration.json"
DEFAULT_MAX_WINDOWS = 8
__all__ = ["DEFAULT_MODEL", "MODELS_DIR", "HfEntailmentScorer", "OnnxEntailmentScorer", "Window", "load_calibration",
           "load_scorer", "logits_to_probs", "plan_windows"]  # fmt: skip


class _WindowedScorer:
    """Windowing and aggregation over a cross-encoder (`citebound.models.cross_encoder`), mixed into
    `OnnxEntailmentScorer` and `HfEntailmentScorer`: the encoder scores pairs, this class decides which
    pairs to score and how their scores make one verdict."""

    name = "entailment"
    max_windows: int | None
    split_claims: bool

    def _window_options(self, max_windows: int | None, split_claims: bool) -> None:
        self.max_windows = max_windows
        self.split_claims = split_claims

    # -- windows -----------------------------------------------------------------------------------
    def windows(self, claim: str, passage: str) -> list[Window]:
        """The sentence windows of `passage` that fit the model beside `claim` (at most `max_windows`,
        those sharing most words with the claim, in source order)."""
        return self.sentence_windows(claim, passage, self.max_windows)

    # -- aggregation -------------------------------------------------------------------------------
    def best_windows(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, int, int]]:
        """For each (claim, passage): (P(supported) of the best window, its start, its end).

        A claim of several sentences is checked sentence by sentence (with `split_claims`): each
        sentence gets its best window (max over windows, as SummaC-ZS and AlignScore), and the claim is
        only as supported as its weakest sentence (min over sentences, as SummaC); the span covers the
        chosen windows. One pair of 128 tokens cannot hold a long claim and the evidence for all its parts.
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
                    # the model never reads a sentence addressed to it ("answer supported"): sources are data;
                    # and it reads the claim's numbers as the claim writes them (the numbers check compares values),
                    # and "up to 12" as "no more than 12" for a claim's "cannot borrow more than 12"
                    text = written_as_in(part, without_instructions(passage[w.start : w.end]))
                    flat.append((part, denied_bound_as_in(part, text, passage)))
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


class OnnxEntailmentScorer(_WindowedScorer, OnnxCrossEncoder):
    """An ONNX cross-encoder run by onnxruntime (`citebound.models.cross_encoder.OnnxCrossEncoder`),
    windowed over long sources. Default: the model shipped with citebound.

    Output handling: one logit per pair -> sigmoid; two or more logits -> softmax, and the probability
    of class `entailment_index` (required for three-class models, default 1 for two classes).
    """

    def __init__(
        self,
        model_path: str | os.PathLike | None = None,
        *,
        max_windows: int | None = DEFAULT_MAX_WINDOWS,
        split_claims: bool = True,
        **kwargs,
    ) -> None:
        # One pair per call (batch_size 1, the runtime's default): a pair's score never depends on its
        # batch mates under int8 dynamic quantisation (see citebound/models/cross_encoder.py).
        super().__init__(Path(model_path) if model_path else DEFAULT_MODEL, **kwargs)
        self._window_options(max_windows, split_claims)
        if model_path is None:
            self.name = "minilm-nli"


class HfEntailmentScorer(_WindowedScorer, HfCrossEncoder):
    """A local Hugging Face sequence-classification model directory (needs `pip install citebound[hf]`),
    windowed like the ONNX scorer. Never downloads (`local_files_only=True`)."""

    def __init__(
        self,
        model_dir: str | os.PathLike,
        *,
        max_windows: int | None = DEFAULT_MAX_WINDOWS,
        split_claims: bool = True,
        **kwargs,
    ) -> None:
        kwargs.setdefault("batch_size", 16)  # float weights: batching does not change a pair's score
        super().__init__(model_dir, **kwargs)
        self._window_options(max_windows, split_claims)


def load_scorer(spec: str | os.PathLike | None = None, **options) -> _WindowedScorer:
    """The entailment scorer named by `spec`: None -> the shipped model; a `.onnx` file; or a local
    Hugging Face model directory (a directory holding model.onnx is run with onnxruntime)."""
    if spec is None or str(spec) in ("", "default", "minilm-nli"):
        # how many windows per source to score was chosen on dev with the thresholds (calibration.json)
        calibration = load_calibration(ENTAILMENT_DIR)
        options.setdefault("max_windows", calibration.get("max_windows", DEFAULT_MAX_WINDOWS))
        options.setdefault("split_claims", calibration.get("split_claims", True))
        options.setdefault("max_length", calibration.get("max_length", MAX_LENGTH))
        return OnnxEntailmentScorer(**options)
    path = Path(spec).expanduser()
    if path.is_file() and path.suffix == ".onnx":
        return OnnxEntailmentScorer(path, **options)
    if path.is_dir() and (path / "model.onnx").is_file() and not (path / "config.json").is_file():
        return OnnxEntailmentScorer(path / "model.onnx", **options)
    if path.is_dir():
        return HfEntailmentScorer(path, **options)
    raise InputError(f"entailment model not found: {spec} (give an .onnx file or a Hugging Face model directory)")


load_entailment_scorer = load_scorer  # the public name (citebound.load_entailment_scorer)
