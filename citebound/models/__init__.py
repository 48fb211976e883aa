"""The models that ship inside citebound, and the one runtime that runs them.

Each model is a folder of data files beside this code (``entailment/``, ``answerability/``, ``reranker/``: an int8
``model.onnx``, its ``calibration.json`` and a README model card; ``minilm/``: the shared tokenizer).
`citebound.models.cross_encoder` loads and runs them (onnxruntime + tokenizers, imported on first use).

Both `citebound.verify` and `citebound.generation` import from here, never from each other. Importing
this package loads nothing heavy.
"""

from __future__ import annotations

from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent
ENTAILMENT_DIR = MODELS_DIR / "entailment"
ANSWERABILITY_DIR = MODELS_DIR / "answerability"
RERANKER_DIR = MODELS_DIR / "reranker"
TOKENIZER_FILE = MODELS_DIR / "minilm" / "tokenizer.json"

__all__ = ["ANSWERABILITY_DIR", "ENTAILMENT_DIR", "MODELS_DIR", "RERANKER_DIR", "TOKENIZER_FILE"]
