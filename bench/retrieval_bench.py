"""BM25 retrieval benchmark: citebound's retriever beside the library it wraps and two alternatives.

Systems (all BM25, same queries, same corpus, same run):
  citebound   KnowledgeBase.ingest (SQLite + sentence chunking + tantivy) and Retriever(mode="bm25")
              .retrieve(q, k=10), which also fetches the chunks from SQLite and labels them
  tantivy     tantivy-py used directly: same analyzer, one document per passage, top-10 ids
  bm25s       bm25s (numpy backend) with PyStemmer English stemming and English stop words
  rank_bm25   rank-bm25 BM25Okapi over the same stemmed tokens (pure Python; slow on 100k, so it
              answers only the first 50 queries there)

Corpora: SciFact (5,183 abstracts, `shared/data/retrieval/scifact`) and a synthetic 100k-passage
corpus made from SciFact's sentences (each passage: 3-6 sentences drawn from one abstract, shuffled,
with ~10% of words dropped and one sentence from another abstract; seeded, so every run is the
same). Queries: SciFact's 300 test queries (the figures here are speed, not quality).

Each (system, corpus) runs in its own subprocess so that peak memory (ru_maxrss) is its own; memory is
reported as the peak minus the RSS after loading the passages (the index's own cost).
Latency: one query at a time, p50 and p95; QPS: all queries back to back (bm25s: its batch call).

    nice -n 10 .venv/bin/python bench/retrieval_bench.py --data ../shared/data/retrieval/scifact \
        --out bench/results/retrieval_bench.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SYSTEMS = ("citebound", "tantivy", "bm25s", "rank_bm25")
CORPORA = ("scifact", "synthetic100k")
SYNTHETIC_SIZE = 100_000
RANK_BM25_MAX_QUERIES_LARGE = 50


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def load_passages(data: Path, corpus: str) -> list[tuple[str, str]]:
    docs = [json.loads(line) for line in (data / "corpus.jsonl").open(encoding="utf-8")]
    base = [(d["_id"], (d.get("title", "") + "\n\n" + d["text"]).strip()) for d in docs]
    if corpus == "scifact":
        return base
    from citebound.text.sentences import split_sentences

    rng = random.Random(13)
    sentences = [split_sentences(d["text"]) or [d["text"]] for d in docs]
    out = []
    for i in range(SYNTHETIC_SIZE):
        own = sentences[i % len(sentences)]
        picked = rng.sample(own, min(len(own), rng.randint(3, 6)))
        picked.append(rng.choice(sentences[rng.randrange(len(sentences))]))
        rng.shuffle(picked)
        words = " ".join(picked).split()
        kept = [w for w in words if rng.random() > 0.1] or words
        out.append((f"s{i}", " ".join(kept)))
    return out


def load_queries(data: Path) -> list[str]:
    import csv

    with (data / "qrels" / "test.tsv").open() as fh:
        judged = {row[0] for row in list(csv.reader(fh, delimiter="\t"))[1:]}
    return [q["text"] for q in map(json.loads, (data / "queries.jsonl").open()) if str(q["_id"]) in judged]


# -- one system, one corpus -------------------------------------------------------------------------
def run_citebound(passages, queries, workdir: Path):
    from citebound.kb import KnowledgeBase
    from citebound.kb.ingest import RawDocument
    from citebound.retrieval import Retriever

    t0 = time.perf_counter()
    kb = KnowledgeBase.open(workdir / "kb", create=True)
    kb.ingest_documents((RawDocument(pid, text, pid) for pid, text in passages), progress=False, batch_docs=5000)
    build = time.perf_counter() - t0
    retriever = Retriever(kb, mode="bm25", depth=10)
    search = lambda q: [h.chunk.doc_id for h in retriever.retrieve(q, k=10)]  # noqa: E731
    return build, search, None, {"chunks": kb.stats()["chunks"], "disk_mb": _du(workdir / "kb")}


def run_tantivy(passages, queries, workdir: Path):
    import tantivy

    from citebound.kb.bm25_index import ANALYZER, build_analyzer

    t0 = time.perf_counter()
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("body", stored=False, tokenizer_name=ANALYZER, index_option="freq")
    schema = builder.build()
    index = tantivy.Index(schema, path=str(workdir))
    analyzer = build_analyzer()
    index.register_tokenizer(ANALYZER, analyzer)
    writer = index.writer(heap_size=64_000_000, num_threads=2)
    for pid, text in passages:
        writer.add_document(tantivy.Document(id=pid, body=text))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    searcher = index.searcher()
    build = time.perf_counter() - t0

    def search(q):
        terms = analyzer.analyze(q)
        query = tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "body", t)) for t in terms]
        )
        return [searcher.doc(a)["id"][0] for _, a in searcher.search(query, 10, count=False).hits]

    return build, search, None, {"disk_mb": _du(workdir)}


def run_bm25s(passages, queries, workdir: Path):
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    t0 = time.perf_counter()
    tokens = bm25s.tokenize([t for _, t in passages], stopwords="en", stemmer=stemmer, show_progress=False)
    model = bm25s.BM25(k1=1.2, b=0.75)
    model.index(tokens, show_progress=False)
    build = time.perf_counter() - t0
    ids = [pid for pid, _ in passages]

    def search(q):
        qt = bm25s.tokenize([q], stopwords="en", stemmer=stemmer, show_progress=False)
        res, _ = model.retrieve(qt, k=10, show_progress=False)
        return [ids[i] for i in res[0]]

    def batch(qs):
        qt = bm25s.tokenize(qs, stopwords="en", stemmer=stemmer, show_progress=False)
        model.retrieve(qt, k=10, show_progress=False, n_threads=1)

    return build, search, batch, {}


def run_rank_bm25(passages, queries, workdir: Path):
    from rank_bm25 import BM25Okapi

    from citebound.kb.bm25_index import build_analyzer

    analyzer = build_analyzer()
    t0 = time.perf_counter()
    model = BM25Okapi([list(analyzer.analyze(t)) for _, t in passages], k1=1.2, b=0.75)
    build = time.perf_counter() - t0
    ids = [pid for pid, _ in passages]

    def search(q):
        import numpy as np

        scores = model.get_scores(list(analyzer.analyze(q)))
        return [ids[i] for i in np.argsort(-scores)[:10]]

    return build, search, None, {}


RUNNERS = {"citebound": run_citebound, "tantivy": run_tantivy, "bm25s": run_bm25s, "rank_bm25": run_rank_bm25}


def _du(path: Path) -> float:
    return round(sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20, 1)


def one(system: str, corpus: str, data: Path) -> dict:
    passages = load_passages(data, corpus)
    queries = load_queries(data)
    if system == "rank_bm25" and corpus != "scifact":
        queries = queries[:RANK_BM25_MAX_QUERIES_LARGE]
    base_rss = current_rss_mb()
    workdir = Path(tempfile.mkdtemp(prefix=f"bench-{system}-"))
    try:
        build, search, batch, extra = RUNNERS[system](passages, queries, workdir)
        search(queries[0])  # warm caches once, untimed
        latencies = []
        for q in queries:
            t = time.perf_counter()
            search(q)
            latencies.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        if batch is not None:
            batch(queries)
        else:
            for q in queries:
                search(q)
        qps = len(queries) / (time.perf_counter() - t)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    q = statistics.quantiles(latencies, n=20)
    return {
        "system": system,
        "corpus": corpus,
        "passages": len(passages),
        "queries": len(queries),
        "build_s": round(build, 2),
        "index_mem_mb": round(rss_mb() - base_rss, 1),
        "p50_ms": round(statistics.median(latencies), 3),
        "p95_ms": round(q[18], 3),
        "qps": round(qps, 1),
        **extra,
    }


def table(rows: list[dict]) -> str:
    head = "| corpus | system | passages | build s | index memory MB | p50 ms | p95 ms | QPS | disk MB |\n|---|---|---|---|---|---|---|---|---|\n"
    return head + "".join(
        f"| {r['corpus']} | {r['system']} | {r['passages']:,} | {r['build_s']} | {r['index_mem_mb']} | "
        f"{r['p50_ms']} | {r['p95_ms']} | {r['qps']} | {r.get('disk_mb', '')} |\n"
        for r in rows
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data/retrieval/scifact")
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--corpora", default=",".join(CORPORA))
    parser.add_argument("--out", type=Path, default=None, help="write the rows as JSON here")
    parser.add_argument("--one", nargs=2, metavar=("SYSTEM", "CORPUS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], args.one[1], args.data)))
        return
    rows = []
    for corpus in args.corpora.split(","):
        for system in args.systems.split(","):
            print(f"running {system} on {corpus} ...", file=sys.stderr, flush=True)
            proc = subprocess.run(
                [sys.executable, __file__, "--data", str(args.data), "--one", system, corpus],
                capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "2"},
            )
            if proc.returncode != 0:
                print(proc.stderr[-2000:], file=sys.stderr)
                continue
            rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(table(rows))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
