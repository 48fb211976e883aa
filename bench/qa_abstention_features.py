"""Which signal tells answerable from unanswerable questions? Measured on a DEV split only.

    OMP_NUM_THREADS=2 python bench/qa_abstention_features.py ../shared/data/qa/squad2/dev [--limit N]

For each question: retrieve (hybrid, k=5) as `ask` does, score every source sentence as the extractive
backend does, and record the best dense cosine, the best lexical overlap, the best relevance for a grid
of `alpha`, and the retrieval evidence (best dense cosine of the chunks). Prints the AUROC of each
signal for "answerable" and the dev-chosen threshold's balanced accuracy. Used to choose the extractive
backend's `alpha` and threshold; never run it on test.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from citebound.datasets import load_questions  # noqa: E402
from citebound.generation.backends.extractive import ExtractiveBackend  # noqa: E402
from citebound.kb.cache import cached_kb  # noqa: E402
from citebound.retrieval import Retriever  # noqa: E402
from citebound.metrics import pick_threshold, roc_auc  # noqa: E402
from citebound.retrieval.abstain import THRESHOLD_RULE  # noqa: E402

ALPHAS = (0.0, 0.25, 0.5, 0.75, 1.0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", type=Path)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--dump", type=Path, help="also write per-question features (JSON lines) for offline study")
    args = ap.parse_args()
    if args.data.name == "test":
        sys.exit("refusing to tune on a test split")
    from tqdm import tqdm

    questions = load_questions(args.data, args.limit)
    kb = cached_kb(args.data / "corpus.jsonl", f"qa-{args.data.parent.name}-{args.data.name}")
    retriever = Retriever(kb, mode="hybrid")
    backend = ExtractiveBackend(threshold=-1.0)
    feats: dict[str, list[float]] = {name: [] for name in
                                     ["evidence", "best_dense", "best_lexical", *[f"alpha={a}" for a in ALPHAS]]}
    y = []
    dump = args.dump.open("w", encoding="utf-8") if args.dump else None
    for q in tqdm(questions, desc="questions"):
        hits = retriever.retrieve(q["question"], args.k)
        sources = {h.source_id: h.chunk.text for h in hits}
        scored = backend.score(q["question"], sources)
        y.append(q["answerable"])
        if dump:
            doc_of = {h.source_id: h.chunk.doc_id for h in hits}
            dump.write(json.dumps({
                **q, "hits": [{"label": h.source_id, "doc_id": h.chunk.doc_id, "scores": h.scores} for h in hits],
                "sentences": [{"source_id": c.source_id, "doc_id": doc_of[c.source_id], "text": c.text,
                               "dense": round(c.dense, 5), "lexical": round(c.lexical, 5)} for c in scored[:15]],
            }, ensure_ascii=False) + "\n")
        feats["evidence"].append(max(h.scores.get("dense", -1.0) for h in hits))
        feats["best_dense"].append(max((s.dense for s in scored), default=-1.0))
        feats["best_lexical"].append(max((s.lexical for s in scored), default=0.0))
        for a in ALPHAS:
            feats[f"alpha={a}"].append(max((a * s.dense + (1 - a) * s.lexical for s in scored), default=-1.0))
    yy = np.asarray(y, dtype=bool)
    print(f"{args.data} ({args.data.name}), {len(y)} questions, {int(yy.sum())} answerable")
    print(f"{'signal':<16} {'AUROC':>7} {'threshold':>10} {'bal.acc':>8}")
    for name, values in feats.items():
        v = np.asarray(values)
        t, bacc, _, _ = pick_threshold(v, yy, **THRESHOLD_RULE)
        print(f"{name:<16} {roc_auc(v, yy):7.4f} {t:10.4f} {bacc:8.4f}")


if __name__ == "__main__":
    main()
