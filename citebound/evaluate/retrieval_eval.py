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
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from citebound.datasets import load_beir
from citebound.errors import InputError
from citebound.kb.cache import cached_kb
from citebound.metrics import DEFAULT_GAIN, evaluate, mean_metrics
from citebound.parallel import Executor, InProcess, release_state, worker_state

DEFAULT_METRICS = ("ndcg@10", "recall@10", "recall@100", "mrr@10", "map")
# Chunks each ranking returns per query in an evaluation (trec_eval-style depth, deeper than what `ask`
# fuses: citebound.retrieval.hybrid.CANDIDATE_DEPTH), so recall@100 and MAP see a long ranking.
EVALUATION_DEPTH = 1000


def collapse_to_documents(chunk_doc_ids: list[str], limit: int | None = None) -> list[str]:
    """Document ranking from a chunk ranking: each document at the rank of its best chunk."""
    docs = list(dict.fromkeys(chunk_doc_ids))
    return docs[:limit] if limit else docs


@dataclass(frozen=True, slots=True)
class RankSpec:
    """What a worker needs to rank queries as this process does: the KB folder and the retriever's settings."""

    kb: str
    mode: str
    rrf_k: int
    depth: int


def _ranker(spec: RankSpec, progress: bool = False):  # noqa: ANN202 - (kb, Retriever, chunk -> document)
    """This process's open KB, warmed retriever and chunk-to-document map for `spec`, built once."""
    def build():  # noqa: ANN202
        from citebound.kb import KnowledgeBase
        from citebound.retrieval import Retriever

        kb = KnowledgeBase.open(spec.kb)
        retriever = Retriever(kb, mode=spec.mode, rrf_k=spec.rrf_k, depth=spec.depth, progress=progress)
        retriever.warm_up()
        return kb, retriever, dict(_chunk_docs(kb))

    return worker_state(spec, build)


def rank_queries(spec: RankSpec, queries: list[tuple[str, np.ndarray | None]]) -> list[list[str]]:
    """Document rankings (MaxP) for a chunk of (query text, query vector or None): what a worker runs."""
    _, retriever, chunk_doc = _ranker(spec)
    return [collapse_to_documents([chunk_doc[c.chunk_id] for c in retriever.rank(text, spec.depth, qvec)])
            for text, qvec in queries]


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
    executor: Executor | None = None,
) -> dict:
    """Evaluate one retrieval mode on a BEIR folder; returns means, settings and per-query scores.
    The KB is built (or found in the cache) and the queries embedded here; with an `executor`
    (citebound.parallel) its workers rank the queries, each opening the same KB folder."""
    beir = load_beir(data, split)
    if not beir.queries:
        raise InputError(f"{beir.folder}: no query of split {split!r} has both text and qrels")
    t0 = time.perf_counter()
    built = cached_kb(beir.corpus, beir.name, chunk_size, overlap, progress)
    spec = RankSpec(str(built.path), mode, rrf_k, depth)
    built.close()
    kb, retriever, _ = _ranker(spec, progress)  # warm_up embeds missing chunks here, before any worker opens the KB
    build_s = time.perf_counter() - t0
    qids = list(beir.queries)
    qvecs = retriever.embed_queries([beir.queries[q] for q in qids]) if retriever.uses_dense else None
    items = [(beir.queries[q], None if qvecs is None else qvecs[i]) for i, q in enumerate(qids)]
    t1 = time.perf_counter()
    try:
        rankings = (executor or InProcess()).map(partial(rank_queries, spec), items, desc=f"{beir.name} {mode}",
                                                 progress=progress)
        query_s = time.perf_counter() - t1
        stats = kb.stats()
    finally:
        release_state(spec)
    run = dict(zip(qids, rankings))
    per_query = evaluate(run, {q: beir.qrels[q] for q in qids}, metrics, gain)
    means = mean_metrics(per_query)
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
        **(executor.describe() if executor is not None else {}),
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
