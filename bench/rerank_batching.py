"""What the reranking pass costs per query, one pair per onnxruntime call against batched calls, on one
thread and on two, and whether a pair's score depends on its batch (issue 14, part 1).

    nice -n 5 .venv/bin/python bench/rerank_batching.py --before OLD.onnx --after citebound/models/reranker/model.onnx \
        --limit 60 --out bench/results/rerank_batching.json

Queries: the first `--limit` SciFact **train** queries held out of reranker training
(`citebound.evaluate.splits.is_rerank_dev_query`, the dev set of `bench/rerank_choose.py`), in file
order. For each query, citebound's hybrid ranking; then, for each setting and each depth in `--depths`
(the settings interleaved query by query, so a change in the machine's load falls on all of them alike),
the reranker's pass over the top d chunks is timed as `ask` runs it (`CrossEncoderReranker.score`: fetch
the d chunks' texts, one sentence window per chunk, tokenise, score), with the encoder's pair cache
emptied first: wall time and this process's CPU time.

Settings: `--before` and `--after` models at one pair per call on one thread, and `--before` with batched
calls (pairs sorted by length, `--batch` pairs per call, and the whole head in one call) on one and two
threads. For each batched setting the largest and mean |logit| difference against the same model's one-
pair-per-call logits over every scored pair: int8 dynamic quantisation scales activations over the
whole input tensor, so a pair's logit moves with its batch mates unless that is zero. `--after` against
`--before` at one pair per call must be identical (the after file is the before file without its softmax
NaN guards, `training/strip_softmax_guard.py`).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

from citebound.datasets import load_beir
from citebound.evaluate.splits import is_rerank_dev_query
from citebound.kb.cache import cached_kb
from citebound.models.cross_encoder import OnnxCrossEncoder
from citebound.retrieval import Retriever
from citebound.retrieval.rerank import DEFAULT_MODEL, CrossEncoderReranker

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "retrieval" / "scifact"


def _logit(p: float) -> float:
    p = min(max(p, 1e-7), 1 - 1e-7)
    return math.log(p / (1 - p))


def _ms(values: list[float]) -> dict[str, float]:
    a = np.array(values) * 1000.0
    return {"p50": round(float(np.median(a)), 1), "p95": round(float(np.percentile(a, 95)), 1),
            "mean": round(float(a.mean()), 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--before", type=Path, required=True, help="the reranker as it was (one pair per call)")
    ap.add_argument("--after", type=Path, default=DEFAULT_MODEL, help="the reranker as it ships now")
    ap.add_argument("--depths", default="10,20,50")
    ap.add_argument("--batch", type=int, default=4, help="pairs per call of the small-batch setting")
    ap.add_argument("--limit", type=int, default=60, help="held-out train queries timed (first in file order)")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    depths = [int(d) for d in args.depths.split(",")]
    beir = load_beir(args.data, "train")  # train only: the test qrels are never read here
    qids = [q for q in beir.queries if is_rerank_dev_query(q)][: args.limit]
    built = cached_kb(beir.corpus, beir.name, None, None, False)
    kb_path = built.path
    built.close()
    from citebound.kb import KnowledgeBase

    kb = KnowledgeBase.open(kb_path)
    retriever = Retriever(kb)
    whole = max(depths)
    settings = {  # name -> (model, threads, pairs per call)
        "before, 1 thread, 1 pair a call": (args.before, 1, 1),
        "after, 1 thread, 1 pair a call": (args.after, 1, 1),
        f"before, 1 thread, {args.batch} pairs a call": (args.before, 1, args.batch),
        "before, 1 thread, the head in one call": (args.before, 1, whole),
        "before, 2 threads, 1 pair a call": (args.before, 2, 1),
        "before, 2 threads, the head in one call": (args.before, 2, whole),
    }
    rerankers = {name: CrossEncoderReranker(depth=whole, max_windows=1,
                                            encoder=OnnxCrossEncoder(m, threads=t, batch_size=b)).warm_up()
                 for name, (m, t, b) in settings.items()}
    names = list(settings)
    wall = {n: {d: [] for d in depths} for n in names}
    cpu = {n: {d: [] for d in depths} for n in names}
    logits: dict[str, list[float]] = {n: [] for n in names}
    t0 = time.time()
    load0 = os.getloadavg()
    for qi, q in enumerate(qids):
        text = beir.queries[q]
        ids = [c.chunk_id for c in retriever.rank(text, 100)]
        turn = names[qi % len(names):] + names[: qi % len(names)]  # a different setting first each query
        for name in turn:
            rr = rerankers[name]
            for d in depths:
                rr.encoder.clear_cache()
                w0, c0 = time.perf_counter(), time.process_time()
                texts = {c.id: c.text for c in kb.get_chunks(ids[:d])}
                probs = rr.score(text, [texts.get(cid, "") for cid in ids[:d]])
                wall[name][d].append(time.perf_counter() - w0)
                cpu[name][d].append(time.process_time() - c0)
                if d == whole:
                    logits[name] += [_logit(p) for p in probs]
        if sys.stderr.isatty():
            print(f"\r{qi + 1}/{len(qids)}", end="", file=sys.stderr)
    load1 = os.getloadavg()
    ref_before = np.array(logits[names[0]])
    rows = []
    for name in names:
        model, threads, batch = settings[name]
        diff = np.abs(np.array(logits[name]) - ref_before)
        rows.append({"setting": name, "model": str(model), "threads": threads, "pairs_per_call": batch,
                     **{f"depth {d}": {"cpu_ms": _ms(cpu[name][d]), "wall_ms": _ms(wall[name][d])} for d in depths},
                     "logit_diff_vs_one_pair_a_call_of_before": {"max": round(float(diff.max()), 4),
                                                                 "mean": round(float(diff.mean()), 4),
                                                                 "pairs": int(diff.size)}})
    print(f"{beir.name} train, {len(qids)} held-out queries; load average {load0[0]:.2f} before, {load1[0]:.2f} after; "
          f"{time.time() - t0:.0f} s")
    print(f"{'setting':<42}" + "".join(f"{'d' + str(d) + ' CPU p50/p95':>19}{'wall p50/p95':>14}" for d in depths)
          + f"{'|logit diff| max/mean':>24}")
    for r in rows:
        line = f"{r['setting']:<42}"
        for d in depths:
            c, w = r[f"depth {d}"]["cpu_ms"], r[f"depth {d}"]["wall_ms"]
            line += f"{c['p50']:>12.0f}/{c['p95']:<6.0f}{w['p50']:>8.0f}/{w['p95']:<5.0f}"
        x = r["logit_diff_vs_one_pair_a_call_of_before"]
        print(line + f"{x['max']:>15.4f}/{x['mean']:.4f}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"queries": qids, "load_average": [load0, load1], "rows": rows,
                                        "seconds": round(time.time() - t0, 1)}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
