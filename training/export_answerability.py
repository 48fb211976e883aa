"""Export the answerability cross-encoder to ONNX (dynamic batch and sequence axes), quantized to int8.

    .venv-train/bin/python training/export_answerability.py --checkpoint training/out/answerability/base/cross_encoder.pt

Writes citebound/models/answerability/model.onnx (the float model stays in training/out/answerability/)
and prints how far the int8 model's logits are from the float ones on a few pairs: export_onnx.export
(per-channel int8 weights) with this model's files and probe pairs, so neither export overwrites the other's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from export_onnx import export  # noqa: E402
from train_answerability import OUT, REPO  # noqa: E402

TARGET = REPO / "citebound" / "models" / "answerability" / "model.onnx"
PROBES = [
    ("How long do refunds take?", "Refunds are processed within five business days after the returned item reaches our warehouse."),
    ("How long do refunds take?", "Standard delivery within the European Union takes two to four business days."),
    ("In what country is Normandy located?", "The Normans gave their name to Normandy, a region in France."),
    ("Who gave their name to Normandy in the 1000's and 1100's", "The Normans were the people who in the 10th and 11th centuries gave their name to Normandy, a region in France."),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkpoint", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=TARGET)
    args = ap.parse_args()
    export(args.checkpoint, args.out, probes=PROBES, fp32=OUT / "model_fp32.onnx", label="P(answers)")


if __name__ == "__main__":
    main()
