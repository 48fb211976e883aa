"""The same BEIR corpus in the SQLite store and in PostgreSQL: ingest time and retrieval quality side by side.

    .venv/bin/python bench/pg_bench.py --data ../shared/data/retrieval/scifact --split test --modes bm25
    .venv/bin/python bench/pg_bench.py ... --url postgresql://user:pass@host/db   # an existing database

Without --url a throwaway PostgreSQL 16 + pgvector is started from the `pgserver` wheel (dev extra) in a
temporary folder. Both KBs are built fresh here (the SQLite one in a temporary folder, not the evaluation
cache), then each mode is scored the way `citebound eval retrieval` scores it: chunks ranked to depth
1000, collapsed to documents by their best chunk (MaxP), nDCG@10 etc. with linear gain. Dense and hybrid
modes embed every chunk (SciFact: ~35 min on two cores): with `--vectors-from KB_FOLDER`, vectors already
computed for the same texts in another SQLite KB are copied into both stores first (they are keyed by
chunk-text hash and model), and chunks still without one are embedded. Writes bench/results/pg_<name>.json.

Dense search on the PostgreSQL KB runs in the database (pgvector HNSW, `citebound.kb.dense_db`), on the
SQLite KB in the process. Besides the evaluation's ranking time (depth 1000, query embedding included),
each mode reports `search_ms_p50/p95`: ranking at the serving depth (`config.CANDIDATE_DEPTH`) with the
query vectors computed beforehand, i.e. the search itself.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def build(target, corpus: Path, vectors_from: Path | None, embed: bool):  # noqa: ANN001, ANN201
    from citebound.db import write_transaction
    from citebound.kb import KnowledgeBase

    kb = KnowledgeBase.open(target, create=True)
    t0 = time.perf_counter()
    kb.ingest([corpus], progress=False)
    ingest_s = time.perf_counter() - t0
    copied = 0
    if vectors_from is not None:
        src = sqlite3.connect(f"file:{vectors_from / 'kb.sqlite3'}?mode=ro", uri=True)
        rows = src.execute("SELECT content_hash, model, vec FROM vectors").fetchall()
        src.close()
        with write_transaction(kb.db) as db:
            db.executemany(
                "INSERT INTO vectors (content_hash, model, vec) VALUES (?, ?, ?) ON CONFLICT (content_hash, model) "
                "DO NOTHING", [(h, m, db.encode_vector(np.frombuffer(v, dtype=np.float32))) for h, m, v in rows])
        copied = len(rows)
    embed_s = 0.0
    if embed:
        t0 = time.perf_counter()
        kb.ensure_vectors(progress=True)
        embed_s = time.perf_counter() - t0
    return kb, {"ingest_s": round(ingest_s, 1), "embed_s": round(embed_s, 1), "vectors_copied": copied, **kb.stats()}


def score(kb, beir, mode: str) -> dict:  # noqa: ANN001
    from citebound.evaluate.retrieval_eval import DEFAULT_METRICS, EVALUATION_DEPTH, collapse_to_documents
    from citebound.metrics import evaluate, mean_metrics
    from citebound.retrieval import Retriever

    chunk_doc = dict(kb.chunk_documents())
    retriever = Retriever(kb, mode=mode, depth=EVALUATION_DEPTH, progress=False)
    retriever.warm_up()
    run, seconds = {}, []
    for qid, text in beir.queries.items():
        t0 = time.perf_counter()
        ranked = retriever.rank(text, EVALUATION_DEPTH)
        seconds.append(time.perf_counter() - t0)
        run[qid] = collapse_to_documents([chunk_doc[c.chunk_id] for c in ranked])
    means = mean_metrics(evaluate(run, beir.qrels, DEFAULT_METRICS, gain="linear"))
    ms = np.array(seconds) * 1000
    return {**{k: round(v, 4) for k, v in means.items()}, "queries": len(run), "in_database": retriever.in_database,
            "rank_ms_p50": round(float(np.percentile(ms, 50)), 2), "rank_ms_p95": round(float(np.percentile(ms, 95)), 2),
            **serving_latency(kb, beir, mode)}


def serving_latency(kb, beir, mode: str) -> dict:  # noqa: ANN001
    """Ranking as `ask` ranks (config.CANDIDATE_DEPTH candidates per ranking), the query vectors computed
    beforehand, so the figure is the search itself: BM25, the dense search (in the database for a
    PostgreSQL KB), fusion and the exact dense scores of fused candidates."""
    from citebound.retrieval import Retriever

    retriever = Retriever(kb, mode=mode, progress=False)
    retriever.warm_up()
    questions = list(beir.queries.values())
    vectors = retriever.embed_queries(questions) if retriever.uses_dense else [None] * len(questions)
    retriever.rank(questions[0], query_vector=vectors[0])
    seconds = []
    for question, vector in zip(questions, vectors):
        t0 = time.perf_counter()
        retriever.rank(question, query_vector=vector)
        seconds.append(time.perf_counter() - t0)
    ms = np.array(seconds) * 1000
    return {"search_depth": retriever.depth, "search_ms_p50": round(float(np.percentile(ms, 50)), 2),
            "search_ms_p95": round(float(np.percentile(ms, 95)), 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--split", default="test")
    ap.add_argument("--modes", default="bm25", help="comma-separated: bm25, dense, hybrid")
    ap.add_argument("--url", default=None, help="an existing PostgreSQL database (default: start one with pgserver)")
    ap.add_argument("--vectors-from", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()

    from citebound.datasets import load_beir

    beir = load_beir(args.data, args.split)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    embed = any(m != "bm25" for m in modes)
    server = None
    url = args.url
    tmp = Path(tempfile.mkdtemp(prefix="pg_bench_"))
    if url is None:
        from helpers.postgres import PostgresServer

        server = PostgresServer(tmp / "pgdata")
        url = server.new_database()
    result = {"data": beir.name, "split": args.split, "modes": modes, "stores": {}}
    try:
        for name, target in (("sqlite", tmp / "kb"), ("postgresql", url)):
            kb, info = build(target, beir.corpus, args.vectors_from, embed)
            try:
                info["scores"] = {m: score(kb, beir, m) for m in modes}
            finally:
                kb.close()
            result["stores"][name] = info
            print(name, json.dumps(info), flush=True)
    finally:
        if server is not None:
            server.stop()
    for m in modes:
        a, b = (result["stores"][s]["scores"][m]["ndcg@10"] for s in ("sqlite", "postgresql"))
        result[f"ndcg@10_difference_{m}"] = round(b - a, 4)
    out = args.out or ROOT / "bench" / "results" / f"pg_{beir.name}.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "stores"}), "->", out)


if __name__ == "__main__":
    main()
