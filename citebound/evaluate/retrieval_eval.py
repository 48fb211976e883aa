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
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
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
# Rerank depths `eval retrieval --mode hybrid+rerank` reports: fused chunks the reranker rescores.
RERANK_DEPTHS = (10, 20, 50)


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
        return kb, retriever, dict(kb.chunk_documents())

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
    queries: Collection[str] | None = None,
) -> dict:
    """Evaluate one retrieval mode on a BEIR folder; returns means, settings and per-query scores.
    The KB is built (or found in the cache) and the queries embedded here; with an `executor`
    (citebound.parallel) its workers rank the queries, each opening the same KB folder. Queries: every
    judged query of `split`, or only the ids in `queries`."""
    job = _Job(data, split, mode, depth, rrf_k, chunk_size, overlap, progress, queries)
    try:
        t1 = time.perf_counter()
        rankings = (executor or InProcess()).map(partial(rank_queries, job.spec), job.items,
                                                 desc=f"{job.beir.name} {mode}", progress=progress)
        query_s = time.perf_counter() - t1
        return job.result(dict(zip(job.qids, rankings)), mode, gain, metrics, query_s, executor)
    finally:
        job.close()


@dataclass(frozen=True, slots=True)
class RerankSpec:
    """What a worker needs to rerank as this process does: the model file, the depths and the ways of
    combining the two orders reported (`citebound.retrieval.rerank.COMBINE_MODES`), and the windows
    scored per chunk."""

    model: str | None
    depths: tuple[int, ...]
    combines: tuple[str, ...] = ("replace",)
    max_windows: int | None = None
    weights: tuple[float, ...] = ()  # the reranker's shares "interp" is reported at

    def ways(self) -> list[tuple[str, float | None]]:
        """(way of combining, weight): one per weight for "interp", weight None for the others."""
        return [(c, w) for c in self.combines for w in (self.weights if c == "interp" else (None,))]


def _reranker(spec: RerankSpec):  # noqa: ANN202 - a CrossEncoderReranker
    def build():  # noqa: ANN202
        from citebound.retrieval.rerank import CrossEncoderReranker

        return CrossEncoderReranker(spec.model, depth=max(spec.depths), max_windows=spec.max_windows).warm_up()

    return worker_state(spec, build)


def rerank_queries(spec: RankSpec, rerank: RerankSpec, queries: list[tuple[str, np.ndarray | None]]) -> list[dict]:
    """For each (query text, vector or None): the fused document ranking (`hybrid`), and at each rerank
    depth d and way of combining c (with weight w for "interp", else None) the ranking with the first d
    fused chunks reordered (`runs[(c, w, d)]`) and the
    seconds that reranking added (`seconds[d]`, wall time: fetching the d chunks' texts, then scoring them
    one pair per model call, as `ask` does; `cpu_seconds[d]`: this process's CPU time for the same);
    `windows`: sentence windows per reranked chunk. What a worker runs."""
    from citebound.retrieval.rerank import reorder

    kb, retriever, chunk_doc = _ranker(spec)
    reranker = _reranker(rerank)
    deepest = max(rerank.depths)
    out = []
    for text, qvec in queries:
        ranked = retriever.rank(text, spec.depth, qvec)
        ids = [c.chunk_id for c in ranked]
        prior = [c.scores["fused"] for c in ranked[:deepest]]
        fetch: dict[int, tuple[float, float]] = {}
        for d in rerank.depths:  # fetching the texts is part of what reranking adds, timed per depth
            w0, c0 = time.perf_counter(), time.process_time()
            texts = {c.id: c.text for c in kb.get_chunks(ids[:d])}
            fetch[d] = (time.perf_counter() - w0, time.process_time() - c0)
        head = [texts.get(cid, "") for cid in ids[:deepest]]
        timed = reranker.timed_scores(text, head)  # each chunk scored alone and timed: one pass serves every depth
        scores = [score for score, _, _ in timed]
        out.append({
            "hybrid": collapse_to_documents([chunk_doc[c] for c in ids]),
            "runs": {(how, w, d): collapse_to_documents([chunk_doc[c] for c in reorder(ids, scores, d, how, prior, w)])
                     for how, w in rerank.ways() for d in rerank.depths},
            "seconds": {d: fetch[d][0] + sum(t[1] for t in timed[:d]) for d in rerank.depths},
            "cpu_seconds": {d: fetch[d][1] + sum(t[2] for t in timed[:d]) for d in rerank.depths},
            "windows": [len(reranker.windows(text, t)) for t in head if t],
        })
    return out


def evaluate_reranking(
    data: str | os.PathLike[str],
    split: str = "test",
    depths: Sequence[int] = RERANK_DEPTHS,
    model_path: str | os.PathLike[str] | None = None,
    gain: str = DEFAULT_GAIN,
    metrics: tuple[str, ...] = DEFAULT_METRICS,
    depth: int = EVALUATION_DEPTH,
    rrf_k: int = 60,
    chunk_size: int | None = None,
    overlap: int | None = None,
    progress: bool = True,
    executor: Executor | None = None,
    queries: Collection[str] | None = None,
    combines: Sequence[str] = ("replace",),
    max_windows: int | None = None,
    weights: Sequence[float] | None = None,
) -> list[dict]:
    """`hybrid`, then `hybrid+rerank` at each depth in `depths` and each way of combining in `combines`
    (`citebound.retrieval.rerank.COMBINE_MODES`; "interp" once per reranker share in `weights`, default
    `config.RERANK_WEIGHT`), from one hybrid ranking and one scoring pass per query.

    The reranker (`citebound.retrieval.rerank.CrossEncoderReranker`: `model_path`, else the bundled
    model or CITEBOUND_RERANKER_MODEL) scores each query's top max(depths) fused chunks once; at depth d
    the first d are reordered by those scores, the rest keep their fused order, and the chunks are
    collapsed to documents (MaxP). Each result at a depth adds the reranking latency per query, wall
    time (`rerank_ms_mean`, `_p50`, `_p95`) and this process's CPU time (`rerank_cpu_ms_*`, which a
    busy machine does not inflate), measured per chunk (see `rerank_queries`). Time it in one process
    (no `executor`): parallel workers share the CPU and slow each other.
    """
    wanted = sorted({d for d in depths})
    if not wanted or any(isinstance(d, bool) or not isinstance(d, int) or d < 1 for d in wanted):
        raise InputError(f"rerank depths must be positive integers, got {list(depths)!r}")
    from citebound import config
    from citebound.retrieval.rerank import COMBINE_MODES, check_weight

    how = tuple(dict.fromkeys(combines))
    if not how or any(c not in COMBINE_MODES for c in how):
        raise InputError(f"combine must be among {', '.join(COMBINE_MODES)}, got {list(combines)!r}")
    shares = tuple(dict.fromkeys(check_weight(w) for w in ((config.RERANK_WEIGHT,) if weights is None else weights)))
    if not shares:
        raise InputError("interp needs at least one rerank weight")
    rerank = RerankSpec(None if model_path is None else str(model_path), tuple(wanted), how, max_windows, shares)
    reranker = _reranker(rerank)  # a missing model fails here, before the KB is built
    job = _Job(data, split, "hybrid", depth, rrf_k, chunk_size, overlap, progress, queries)
    try:
        t1 = time.perf_counter()
        rows = (executor or InProcess()).map(partial(rerank_queries, job.spec, rerank), job.items,
                                             desc=f"{job.beir.name} hybrid+rerank", progress=progress)
        query_s = time.perf_counter() - t1
        results = [job.result({q: r["hybrid"] for q, r in zip(job.qids, rows)}, "hybrid", gain, metrics, query_s, executor)]
        windows = [w for r in rows for w in r["windows"]]
        for (c, w), d in ((way, d) for way in rerank.ways() for d in wanted):
            results.append({
                **job.result({q: r["runs"][(c, w, d)] for q, r in zip(job.qids, rows)}, "hybrid+rerank", gain, metrics,
                             query_s, executor),
                "rerank_depth": d,
                "rerank_combine": c,
                **({"rerank_weight": w} if w is not None else {}),
                "rerank_max_windows": reranker.max_windows,
                "reranker": str(reranker.encoder.model_path),
                **_milliseconds("rerank_ms", [r["seconds"][d] for r in rows]),
                **_milliseconds("rerank_cpu_ms", [r["cpu_seconds"][d] for r in rows]),
                "windows_per_chunk": round(float(np.mean(windows)), 2) if windows else 0.0,
            })
        return results
    finally:
        job.close()
        release_state(rerank)


def _milliseconds(name: str, seconds: list[float]) -> dict[str, float]:
    ms = np.array(seconds) * 1000.0
    return {f"{name}_{stat}": round(float(f(ms)), 1) for stat, f in
            (("mean", np.mean), ("p50", np.median), ("p95", lambda a: np.percentile(a, 95)))}


class _Job:
    """One evaluation's setup: the split's judged queries (all, or those in `queries`), the cached KB
    (built here, vectors included, before any worker opens it), the queries' vectors, and `result()`,
    which scores a document run the way every retrieval evaluation here reports it."""

    def __init__(self, data, split, mode, depth, rrf_k, chunk_size, overlap, progress, queries=None) -> None:
        beir = load_beir(data, split)
        if queries is not None:
            wanted = set(queries)
            beir = replace(beir, queries={q: t for q, t in beir.queries.items() if q in wanted})
        if not beir.queries:
            raise InputError(f"{beir.folder}: no query of split {split!r} has both text and qrels"
                             + (" among the ids asked for" if queries is not None else ""))
        t0 = time.perf_counter()
        built = cached_kb(beir.corpus, beir.name, chunk_size, overlap, progress)
        self.spec = RankSpec(str(built.path), mode, rrf_k, depth)
        built.close()
        self.kb, retriever, _ = _ranker(self.spec, progress)  # warm_up embeds missing chunks here, before any worker opens the KB
        self.build_s = time.perf_counter() - t0
        self.beir, self.split = beir, split
        self.qids = list(beir.queries)
        qvecs = retriever.embed_queries([beir.queries[q] for q in self.qids]) if retriever.uses_dense else None
        self.items = [(beir.queries[q], None if qvecs is None else qvecs[i]) for i, q in enumerate(self.qids)]
        self.stats = self.kb.stats()

    def close(self) -> None:
        release_state(self.spec)

    def result(self, run: dict[str, list[str]], mode: str, gain: str, metrics: tuple[str, ...], query_s: float,
               executor: Executor | None) -> dict:
        per_query = evaluate(run, {q: self.beir.qrels[q] for q in self.qids}, metrics, gain)
        means = mean_metrics(per_query)
        return {
            **{k: round(v, 4) for k, v in means.items()},
            "gain": gain,
            "mode": mode,
            "queries": len(per_query),
            "split": self.split,
            "data": self.beir.name,
            "documents": self.stats["documents"],
            "chunks": self.stats["chunks"],
            "rrf_k": self.spec.rrf_k,
            "depth": self.spec.depth,
            "kb_ready_seconds": round(self.build_s, 1),
            "query_seconds": round(query_s, 2),
            **(executor.describe() if executor is not None else {}),
            "per_query": per_query,
        }


def write_retrieval_report(path: str | os.PathLike[str], results: list[dict]) -> tuple[Path, Path]:
    """HTML + JSON report of one or more `evaluate_retrieval` results (e.g. one per mode)."""
    from citebound.evaluate.report import Plot, Section, write_report

    summary = [{k: v for k, v in r.items() if k != "per_query"} for r in results]
    labels = [f"{r['data']}/{r['mode']}" + (f"@{r['rerank_depth']}" if "rerank_depth" in r else "")
              + (f" {r['rerank_combine']}" if r.get("rerank_combine", "replace") != "replace" else "")
              + (f" {r['rerank_weight']}" if "rerank_weight" in r else "") for r in results]
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
