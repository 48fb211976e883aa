"""Export the answerability cross-encoder to ONNX (dynamic batch and sequence axes), quantized to int8.

    .venv-train/bin/python training/export_answerability.py --checkpoint training/out/answerability/base/cross_encoder.pt

Writes citebound/models/answerability/model.onnx (the float model stays in training/out/answerability/,
or `--fp32`) and prints how far the int8 model's logits are from the float ones on a few pairs:
export_onnx.export (per-channel int8 weights; `--quantize smooth --calibration-groups G` rescales the
activations first, SmoothQuant, calibrated on the train split of rerank_pairs.py groups: what the
reranker ships; `--quantize weight-only`: int8 weights in blocks, float activations, slower) with this model's files and probe pairs, so neither export
overwrites the other's. The reranker is exported with it too (`--out citebound/models/reranker/model.onnx`).
Like every export_onnx.export, the int8 file comes without torch's softmax NaN guards (strip_softmax_guard.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from export_onnx import DYNAMIC, QUANTIZE_MODES, SMOOTH, calibration_pairs, export  # noqa: E402
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
    ap.add_argument("--fp32", type=Path, default=OUT / "model_fp32.onnx", help="where the float ONNX is written")
    ap.add_argument("--quantize", choices=QUANTIZE_MODES, default=DYNAMIC,
                    help="int8 export: dynamic (the entailment and answerability models), weight-only, or smooth "
                         "(dynamic after SmoothQuant rescaling: the reranker; needs --calibration-groups); export_onnx.py")
    ap.add_argument("--calibration-groups", type=Path, default=None,
                    help="smooth: rerank_pairs.py groups; calibration pairs come from their train split only")
    args = ap.parse_args()
    calibration = None
    if args.quantize == SMOOTH:
        if args.calibration_groups is None:
            ap.error("--quantize smooth needs --calibration-groups")
        from train_reranker import read_groups

        calibration = calibration_pairs(read_groups(args.calibration_groups))
    export(args.checkpoint, args.out, probes=PROBES, fp32=args.fp32, label="P(answers)", quantize=args.quantize,
           calibration=calibration)


if __name__ == "__main__":
    main()
