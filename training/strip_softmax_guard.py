"""Drop the NaN guard torch's exporter puts after each attention softmax, from an exported cross-encoder.

    .venv-train/bin/python training/strip_softmax_guard.py IN.onnx OUT.onnx [--check-pairs PAIRS.json]

torch.onnx (opset 17, scaled-dot-product attention) writes `Where(IsNaN(softmax), 0, softmax)` after every
attention softmax: a row whose keys are all masked (-inf everywhere) would softmax to NaN, and the guard
turns it into zeros. citebound never feeds such a row: every input starts with [CLS], which is never
masked, so the guard never fires and its output is the softmax, bit for bit. It is not free: on the
reranker (6 layers, 12 heads, ~113 tokens a pair) the Where and IsNaN over each (heads x tokens x tokens)
tensor were ~0.8 of ~14 ms of onnxruntime kernel time a pair (2026-12-01, onnxruntime profiling).

`strip_softmax_guard` rewires each guard's consumers to the softmax output and removes the IsNaN and
Where nodes, the constants only they read and the shapes recorded for their outputs (nothing else changes:
weights, quantisation, inputs, outputs). `main` then runs both files on the probe pairs (and on
`--check-pairs`: a JSON list of [question, text] pairs) one pair per call, and fails unless every logit is
identical, bit for bit. `export_onnx.export` applies it to every new export.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def strip_softmax_guard(src: Path, out: Path) -> int:
    """Write `src` without its softmax NaN guards to `out`; returns how many guards were removed."""
    import onnx

    model = onnx.load(str(src))
    graph = model.graph
    made_by = {o: n for n in graph.node for o in n.output}
    drop, rewire = [], {}
    for node in graph.node:
        if node.op_type != "Where" or len(node.input) != 3:
            continue
        test = made_by.get(node.input[0])
        if test is None or test.op_type != "IsNaN" or test.input[0] != node.input[2]:
            continue
        source = made_by.get(node.input[2])
        if source is None or source.op_type != "Softmax":
            continue
        rewire[node.output[0]] = node.input[2]
        drop += [node, test]
    users = {x for n in graph.node if n not in drop for x in n.input}
    for node in drop:
        if node.op_type == "IsNaN" and any(node.output[0] == x for x in users):
            raise RuntimeError(f"{node.name}'s output is read elsewhere: not a plain softmax guard")
    for node in drop:
        graph.node.remove(node)
    for node in graph.node:
        for i, x in enumerate(node.input):
            if x in rewire:
                node.input[i] = rewire[x]
    if any(o.name in rewire for o in graph.output):
        raise RuntimeError("a guard's output is a graph output")
    read = {x for n in graph.node for x in n.input} | {o.name for o in graph.output}
    for node in [n for n in graph.node if n.op_type == "Constant" and not any(o in read for o in n.output)]:
        graph.node.remove(node)  # the guards' fill values: onnxruntime warns of unused ones at every load
        drop.append(node)
    gone = {o for n in drop for o in n.output}
    for info in [v for v in graph.value_info if v.name in gone]:
        graph.value_info.remove(info)  # shapes recorded for the removed outputs
    onnx.checker.check_model(model)
    onnx.save(model, str(out))
    return sum(n.op_type == "IsNaN" for n in drop)


def same_logits(a: Path, b: Path, pairs: list[tuple[str, str]]) -> int:
    """How many of `pairs` get different logits from `a` and `b` (one pair per onnxruntime call, the way
    citebound runs them)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import numpy as np

    from citebound.models.cross_encoder import OnnxCrossEncoder

    ea, eb = OnnxCrossEncoder(a).warm_up(), OnnxCrossEncoder(b).warm_up()
    rows = [ea._truncate(e) for e in ea.tokenizer.encode_batch(pairs)]
    differ = 0
    for ids, types in rows:
        feeds = {"input_ids": np.array([ids]), "attention_mask": np.ones((1, len(ids)), np.int64),
                 "token_type_ids": np.array([types])}
        la, lb = (e._session.run(None, feeds)[0] for e in (ea, eb))
        differ += int(not np.array_equal(la, lb))
    return differ


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--check-pairs", type=Path, default=None, help="JSON list of [question, text] pairs")
    args = ap.parse_args(argv)
    from export_onnx import PROBES

    n = strip_softmax_guard(args.src, args.out)
    pairs = [tuple(p) for p in PROBES]
    if args.check_pairs:
        pairs += [tuple(p) for p in json.loads(args.check_pairs.read_text())]
    differ = same_logits(args.src, args.out, pairs)
    print(f"{n} softmax guards removed; {args.src.stat().st_size / 1e6:.1f} -> {args.out.stat().st_size / 1e6:.1f} MB; "
          f"logits of {len(pairs)} pairs: {len(pairs) - differ} identical, {differ} different")
    return 1 if differ or not n else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
