"""Retrieval evaluation on any folder in BEIR layout, apart from answer quality.

A BEIR folder has `corpus.jsonl` ({_id, title, text}), `queries.jsonl` ({_id, text}) and
`qrels/<split>.tsv` (header, then query-id, corpus-id, score). The corpus is ingested into a KB like
any user's documents (document text = title + blank line + text); that KB is cached under
`$CITEBOUND_CACHE/kb/<name>-<hash>` (default cache `~/.cache/citebound`), keyed by the SHA-256 of the
corpus file and the chunking parameters, so a second run reuses it, vectors included.

Scoring is per document, as the qrels are: the retriever's chunk ranking (top `depth` chunks, 1000 by
default, from each of BM25 and dense before fusion) is collapsed to documents by their best chunk
(MaxP), and metrics are computed on that document ranking.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from citebound.datasets import load_beir
from citebound.errors import InputError
from citebound.kb.cache import cached_kb
from citebound.metrics import DEFAULT_GAIN, evaluate, mean_metrics

DEFAULT_METRICS = ("ndcg@10", "recall@10", "recall@100", "mrr@10", "map")
# Chunks each ranking returns per query in an evaluation (trec_eval-style depth, deeper than what `ask`
# fuses: citebound.retrieval.hybrid.CANDIDATE_DEPTH), so recall@100 and MAP see a long ranking.
EVALUATION_DEPTH = 1000


def collapse_to_documents(chunk_doc_ids: list[str], limit: int | None = None) -> list[str]:
    """Document ranking from a chunk ranking: each document at the rank of its best chunk."""
    docs = list(dict.fromkeys(chunk_doc_ids))
    return docs[:limit] if limit else docs


def evaluate_retrieval(
    data: str | os.PathLike[str],
    split: str = "test",
    mode: str = "hybrid",
    gain: str = DEFAULT_GAIN,
    metrics: tuple[str, ...] = DEFAULT_METRICS,
    depth: int = EVALUATION_DEPTH,
    rrf_k: int = 60,
    chunk_size: int | None = None,
    overlap: int | None = None,
    progress: bool = True,
) -> dict:
    """Evaluate one retrieval mode on a BEIR folder; returns means, settings and per-query scores."""
    from citebound.retrieval import Retriever

    beir = load_beir(data, split)
    if not beir.queries:
        raise InputError(f"{beir.folder}: no query of split {split!r} has both text and qrels")
    t0 = time.perf_counter()
    kb = cached_kb(beir.corpus, beir.name, chunk_size, overlap, progress)
    retriever = Retriever(kb, mode=mode, rrf_k=rrf_k, depth=depth, progress=progress)
    retriever.warm_up()
    build_s = time.perf_counter() - t0
    qids = list(beir.queries)
    qvecs = retriever.embed_queries([beir.queries[q] for q in qids]) if retriever.uses_dense else None
    chunk_doc = {cid: kb_doc for cid, kb_doc in _chunk_docs(kb)}
    run: dict[str, list[str]] = {}
    t1 = time.perf_counter()
    iterator = range(len(qids))
    if progress:
        from tqdm import tqdm

        iterator = tqdm(iterator, desc=f"{beir.name} {mode}", unit="query", leave=False)
    for i in iterator:
        cands = retriever.rank(beir.queries[qids[i]], depth, None if qvecs is None else qvecs[i])
        run[qids[i]] = collapse_to_documents([chunk_doc[c.chunk_id] for c in cands])
    query_s = time.perf_counter() - t1
    per_query = evaluate(run, {q: beir.qrels[q] for q in qids}, metrics, gain)
    means = mean_metrics(per_query)
    stats = kb.stats()
    kb.close()
    return {
        **{k: round(v, 4) for k, v in means.items()},
        "gain": gain,
        "mode": mode,
        "queries": len(per_query),
        "split": split,
        "data": beir.name,
        "documents": stats["documents"],
        "chunks": stats["chunks"],
        "rrf_k": rrf_k,
        "depth": depth,
        "kb_ready_seconds": round(build_s, 1),
        "query_seconds": round(query_s, 2),
        "per_query": per_query,
    }


def _chunk_docs(kb):
    yield from kb.db.execute(
        "SELECT vc.chunk_id, d.doc_id FROM documents d JOIN version_chunks vc "
        "ON vc.doc_id = d.doc_id AND vc.version = d.current_version WHERE d.status = 'active'"
    )


def write_retrieval_report(path: str | os.PathLike[str], results: list[dict]) -> tuple[Path, Path]:
    """HTML + JSON report of one or more `evaluate_retrieval` results (e.g. one per mode)."""
    from citebound.evaluate.report import Plot, Section, write_report

    summary = [{k: v for k, v in r.items() if k != "per_query"} for r in results]
    labels = [f"{r['data']}/{r['mode']}" for r in results]
    gains = sorted({r["gain"] for r in results})
    sections = [
        Section(
            "Summary",
            text=(
                f"Split: {', '.join(sorted({r['split'] for r in results}))}. nDCG gain: {', '.join(gains)}. "
                "Documents ranked by their best chunk (MaxP); metrics as trec_eval (citebound.metrics)."
            ),
            table=summary,
            plots=[
                Plot("bar", "Mean scores", x=labels, series={m: [r[m] for r in results] for m in ("ndcg@10", "recall@100")}),
            ],
        ),
        Section(
            "Per-query nDCG@10",
            plots=[
                Plot("hist", "Distribution of per-query nDCG@10", series={
                    label: [q["ndcg@10"] for q in r["per_query"].values()] for label, r in zip(labels, results)
                }, xlabel="nDCG@10", ylabel="queries"),
            ],
        ),
    ]
    title = "Retrieval evaluation: " + ", ".join(sorted({r["data"] for r in results}))
    return write_report(path, title, sections, meta={"per_query": {l: r["per_query"] for l, r in zip(labels, results)}})
