"""Knowledge-base and retrieval commands: ingest, remove, `eval retrieval`, `calibrate retrieval`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from citebound import config
from citebound.cli.common import kb_path
from citebound.cli.common import RAY_HELP, WORKERS_HELP, executor


def parse_depths(text: str) -> list[int]:
    """'10,20,50' -> [10, 20, 50]; anything else is a clear error."""
    from citebound.errors import InputError

    try:
        depths = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        depths = []
    if not depths or min(depths) < 1:
        raise InputError(f"--rerank-depth takes positive integers separated by commas, got {text!r}")
    return depths


def parse_weights(text: str | None) -> list[float] | None:
    """'0.3,0.5' -> [0.3, 0.5] (None stays None: the configured weight); anything else is a clear error."""
    from citebound.errors import InputError

    if text is None:
        return None
    try:
        weights = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        weights = []
    if not weights or any(not 0.0 <= w <= 1.0 for w in weights):
        raise InputError(f"--rerank-weight takes numbers from 0 to 1 separated by commas, got {text!r}")
    return weights


def _build_ann(store) -> None:  # noqa: ANN001 - a KnowledgeBase
    """Past `HNSW_MIN_CHUNKS` vectors, build and save the approximate-search graph now, in the batch job
    that changed the vectors, so that no question has to wait for it (or search exactly) later."""
    from citebound.retrieval import Retriever
    from citebound.retrieval.vectors import HNSW_MIN_CHUNKS

    if store.shared or store.stats().get("chunks", 0) < HNSW_MIN_CHUNKS:
        return  # PostgreSQL searches in the database; a smaller KB is searched exactly
    retriever = Retriever(store, mode="dense", progress=False)
    retriever.warm_up(embed_missing=False, ann="build")
    index = retriever.vector_index
    if index is not None and index.hnsw_file is not None and not index.hnsw_loaded:
        typer.echo(f"approximate-search graph over {len(index)} vectors built and saved ({index.hnsw_file.name})")


def register(app: typer.Typer) -> None:
    from citebound.cli import calibrate_app, err_console, eval_app

    @app.command()
    def ingest(
        paths: List[Path] = typer.Argument(..., help="Files and folders: .txt .md .html .pdf, BEIR .jsonl."),
        kb: str = typer.Option(..., "--kb", help="Knowledge-base folder (created if missing), or a postgresql:// URL."),
        embed: bool = typer.Option(True, "--embed/--no-embed", help="Embed new chunks now (else on first dense query)."),
        chunk_size: Optional[int] = typer.Option(None, help="Chunk size in characters, fixed at KB creation (default 1200)."),
        overlap: Optional[int] = typer.Option(None, help="Chunk overlap in characters, fixed at KB creation (default 200)."),
    ) -> None:
        """Add documents to a knowledge base; changed files get a new version, unchanged ones are skipped."""
        import logging

        from citebound.kb import KnowledgeBase

        logging.getLogger("citebound.kb").setLevel(logging.ERROR)  # skips are listed below, once, not logged too
        with KnowledgeBase.open(kb_path(kb), create=True, chunk_size=chunk_size, overlap=overlap) as store:
            report = store.ingest(paths, progress=True, embed=embed)
            if embed:
                _build_ann(store)
        for skipped in report.skipped:
            err_console.print(f"[yellow]skipped[/] {skipped.source}: {skipped.reason}")
        typer.echo(report.summary())

    @app.command()
    def remove(
        doc_ids: List[str] = typer.Argument(..., help="Document ids to retire (old versions stay resolvable)."),
        kb: str = typer.Option(..., "--kb", help="Knowledge-base folder, or a postgresql:// URL."),
    ) -> None:
        """Retire documents: they are no longer retrieved; citations of their versions still resolve."""
        from citebound.kb import KnowledgeBase

        with KnowledgeBase.open(kb_path(kb)) as store:
            for doc_id in doc_ids:
                revision = store.remove(doc_id)
                typer.echo(f"removed {doc_id} (KB revision {revision})")

    @app.command()
    def embed(
        kb: str = typer.Option(..., "--kb", help="Knowledge-base folder, or a postgresql:// URL."),
        threads: Optional[int] = typer.Option(None, "--threads", min=1, help="onnxruntime threads (default CITEBOUND_THREADS or 2)."),
        batch: int = typer.Option(256, "--batch", min=1, help="Vectors committed per transaction (what a kill can lose)."),
        ray: Optional[str] = typer.Option(None, "--ray", help=RAY_HELP),
        workers: Optional[int] = typer.Option(None, "--workers", min=1, help=WORKERS_HELP),
    ) -> None:
        """Embed the chunks that have no vector yet, with progress; a killed run resumes where it stopped.

        The KB answers from BM25 meanwhile, and hybrid retrieval uses each vector as soon as it is committed."""
        from citebound.kb import KnowledgeBase
        from citebound.models.embedder import shared_embedder

        with KnowledgeBase.open(kb_path(kb)) as store, executor(ray, workers) as runner:
            done = store.ensure_vectors(shared_embedder(threads), progress=True, batch=batch, executor=runner)
            left = len(store.missing_vectors(shared_embedder(threads).name))
            if not left:
                _build_ann(store)
        typer.echo(f"embedded {done} chunks; {left} without a vector")

    @app.command()
    def compact(
        kb: str = typer.Option(..., "--kb", help="Knowledge-base folder, or a postgresql:// URL."),
    ) -> None:
        """Store the KB's texts smaller: pack those written without a compression dictionary with one the KB
        trains on its own texts, then VACUUM. Texts, chunks and citations do not change; safe to stop."""
        from citebound.kb import KnowledgeBase

        with KnowledgeBase.open(kb_path(kb)) as store:
            done = store.compact(progress=True)
        if done["dictionary"] is None:
            typer.echo(f"{done['versions']} versions; too little text to train a dictionary on: nothing changed")
            return
        saved = done.get("bytes_before", 0) - done.get("bytes_after", 0)
        typer.echo(f"repacked {done['repacked']} of {done['versions']} versions with dictionary {done['dictionary']}"
                   f"{' (trained now)' if done['trained'] else ''}: {saved / 2**20:.1f} MB less text")
        if "database_bytes_after" in done:
            typer.echo(f"the database: {done['database_bytes_before'] / 2**20:.1f} -> "
                       f"{done['database_bytes_after'] / 2**20:.1f} MB")

    @eval_app.command("retrieval")
    def eval_retrieval(
        data: Path = typer.Option(..., "--data", help="Folder in BEIR layout (corpus.jsonl, queries.jsonl, qrels/)."),
        split: str = typer.Option("test", "--split", help="Which qrels/<split>.tsv to score."),
        mode: str = typer.Option("hybrid", "--mode", help="hybrid | bm25 | dense | all (the three, one report) | "
                                 "hybrid+rerank (hybrid, then reranked at each --rerank-depth, with the added latency)"),
        gain: str = typer.Option("linear", "--gain", help="nDCG gain: linear (trec_eval) or exponential."),
        rrf_k: int = typer.Option(60, "--rrf-k", help="RRF constant k."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object per mode (no per-query scores)."),
        report: Optional[Path] = typer.Option(None, "--report", help="Also write an HTML + JSON report here."),
        ray: Optional[str] = typer.Option(None, "--ray", help=RAY_HELP),
        workers: Optional[int] = typer.Option(None, "--workers", min=1, help=WORKERS_HELP),
        rerank_depth: str = typer.Option("10,20,50", "--rerank-depth", help="hybrid+rerank: fused chunks the reranker "
                                         "rescores, comma-separated (one result per depth)."),
        reranker_model: Optional[Path] = typer.Option(None, "--reranker-model", help="hybrid+rerank: an ONNX "
                                                      "cross-encoder (question, text) (default: the bundled reranker)."),
        rerank_combine: str = typer.Option("replace", "--rerank-combine", help="hybrid+rerank: how the reranker's "
                                           "order is used, comma-separated: replace (its order), rrf (fused "
                                           "with the hybrid order) and/or interp (its score weighed against the "
                                           "fused score); one result per depth and way."),
        rerank_weight: Optional[str] = typer.Option(None, "--rerank-weight", help="hybrid+rerank, interp: the "
                                                    "reranker's share(s) from 0 to 1, comma-separated (default: "
                                                    "config.RERANK_WEIGHT)."),
        rerank_windows: Optional[int] = typer.Option(None, "--rerank-windows", min=0, help="hybrid+rerank: sentence "
                                                     "windows scored per chunk, those sharing most words with the "
                                                     "question; 0: all (default: config.RERANK_MAX_WINDOWS)."),
    ) -> None:
        """Score retrieval on labelled data: nDCG@10, recall@10/100, MRR@10, MAP (per document, MaxP)."""
        from citebound.evaluate.retrieval_eval import (
            evaluate_reranking,
            evaluate_retrieval,
            write_retrieval_report,
        )

        modes = ["bm25", "dense", "hybrid"] if mode == "all" else [mode]
        with executor(ray, workers) as runner:
            if mode == "hybrid+rerank":
                results = evaluate_reranking(data, split=split, depths=parse_depths(rerank_depth), model_path=reranker_model,
                                             gain=gain, rrf_k=rrf_k, progress=True, executor=runner,
                                             combines=[c.strip() for c in rerank_combine.split(",") if c.strip()],
                                             max_windows=rerank_windows, weights=parse_weights(rerank_weight))
            else:
                results = [evaluate_retrieval(data, split=split, mode=m, gain=gain, rrf_k=rrf_k, progress=True,
                                              executor=runner) for m in modes]
        if report is not None:
            paths = write_retrieval_report(report, results)
            err_console.print(f"report: {paths[0]} and {paths[1]}")
        for result in results:
            summary = {k: v for k, v in result.items() if k != "per_query"}
            if as_json:
                typer.echo(json.dumps(summary, sort_keys=True))
                continue
            way = summary.get("rerank_combine", "") + (f" {summary['rerank_weight']}" if "rerank_weight" in summary else "")
            at = (f" at depth {summary['rerank_depth']} ({way})" if "rerank_depth" in summary else "")
            typer.echo(
                f"{summary['data']} {split} ({summary['queries']} queries), mode {summary['mode']}{at}, nDCG gain {gain}: "
                + "  ".join(f"{m} {summary[m]:.4f}" for m in ("ndcg@10", "recall@10", "recall@100", "mrr@10", "map"))
                + (f"  +{summary['rerank_ms_mean']:.0f} ms/query (p50 {summary['rerank_ms_p50']:.0f}, "
                   f"p95 {summary['rerank_ms_p95']:.0f}; CPU {summary['rerank_cpu_ms_mean']:.0f})" if at else "")
            )

    @calibrate_app.command("retrieval")
    def calibrate_retrieval(
        data: Path = typer.Option(..., "--data", help="Folder with corpus.jsonl and questions.jsonl {question, answerable}."),
        kb: Path = typer.Option(..., "--kb", help="Knowledge base that stores the learned threshold."),
        mode: str = typer.Option("hybrid", "--mode", help="hybrid | bm25 | dense"),
        k: int = typer.Option(config.TOP_K, "--k", help="Hits per question (as the answer pipeline uses)."),
        objective: str = typer.Option("balanced_accuracy", "--objective", help="balanced_accuracy | answer_rate"),
        min_answered: float = typer.Option(0.95, "--min-answered", help="answer_rate: share of answerable questions kept."),
    ) -> None:
        """Learn the abstention threshold from answerable / unanswerable questions; store it in the KB."""
        from citebound.retrieval.calibrate import calibrate_retrieval as run

        cal = run(data, kb, mode=mode, k=k, objective=objective, min_answered=min_answered, progress=True)
        typer.echo(json.dumps(cal.to_dict(), sort_keys=True))
