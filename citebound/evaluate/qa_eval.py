"""`citebound eval qa`: grounded question answering with abstention, on a labelled split.

Data: a folder with `corpus.jsonl` (BEIR rows `{_id, title, text}`) and `questions.jsonl`
(`{id, question, context_id, answerable, answers}`), e.g. ../shared/data/qa/squad2/test — or, instead of
the corpus, `documents.json` listing files read where they are installed (bench/data/techdocs/<split>:
pages of the Python manual from the Debian package python3.11-doc; a question's `context_id` is its
page). The documents are ingested once into a cached KB (keyed by their content) and every question goes
through `ask()` — the same retriever, backend, verifier and policy as `citebound ask` (no audit log, and
no retrieval gate: an evaluation KB carries no calibrated retrieval threshold).

Metrics (definitions in docs/ask.md):
- answerable questions: answer recall (a gold answer string occurs in the final answer), citation
  accuracy (the gold context is among the cited documents); an abstention counts as a miss;
- answers given: groundedness, citation precision, citation recall (ALCE-style, from the verifier's report
  of what the backend generated, before the policy removed anything), and the share of claims removed;
- unanswerable questions: abstention precision / recall / F1, with "should abstain" as the positive class
  (abstaining is a scored outcome, never a missing value);
- the same abstention figures for a naive baseline that abstains on the retrieval score alone (best
  dense cosine of the retrieved sources below a threshold chosen on dev);
- risk–coverage pairs for both signals as their threshold moves (risk = share of answered questions
  whose answer is wrong: unanswerable, or the gold answer not in it), and the area under each curve;
- latency of each `ask()` in this warm process (the models and the index are loaded by one untimed
  question first): p50, p95 and mean, in milliseconds.

The formulas are in `citebound.metrics`; `score_rows` returns a typed `QaReport`
(citebound.evaluate.qa_report), which the CLI prints, writes as JSON or renders as HTML.

The extractive backend runs with its threshold disabled and the threshold is applied afterwards: which
sentences it picks does not depend on the threshold, so this equals running at every threshold.
"""

from __future__ import annotations

import json
import math
import re
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from citebound import config
from citebound.datasets import DocumentSet, load_questions, qa_documents
from citebound.evaluate.qa_report import AbstentionFigures, BaselineFigures, Latency, Paired, QaReport, QaSettings
from citebound.metrics import abstention_scores, aurc, pick_threshold, risk_coverage, roc_auc
from citebound.parallel import Executor, InProcess, release_state, worker_state
from citebound.retrieval.abstain import THRESHOLD_RULE
from citebound.verify.checkers import DEFAULT_CHECKER



def baseline_threshold_default() -> float:
    """The naive baseline's threshold on the best dense cosine of the retrieved sources: chosen on
    ../shared/data/qa/squad2/dev only (`citebound calibrate extractive`, balanced accuracy of
    answer-vs-abstain) and stored with the answerability model's other dev-chosen thresholds."""
    from citebound.generation.answerability import load_calibration

    return float(load_calibration()["baseline"]["threshold"])


OFF = -1.0  # an extractive threshold below every possible relevance: never abstains on its own


# -- pure metric functions -----------------------------------------------------------------------
def normalize_answer(text: str) -> str:
    """Lower-case, strip accents and punctuation, collapse spaces (SQuAD-style, articles kept)."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    text = re.sub(r"[^\w\s]", " ", text)
    return " ".join(text.split())


def contains_answer(answer: str, golds: Sequence[str]) -> bool:
    """True when any gold answer occurs in `answer` as a whole-word match after normalization."""
    hay = f" {normalize_answer(answer)} "
    return any(g and f" {g} " in hay for g in (normalize_answer(x) for x in golds))


# -- running -------------------------------------------------------------------------------------
def open_qa_kb(data: Path, progress: bool = True):
    """The cached KB of a labelled QA folder's documents, and how a question's `context_id` reads as a
    KB document id (the same id for a corpus.jsonl; `name/<page>` for a documents.json)."""
    from citebound.kb.cache import cached_files_kb, cached_kb

    data = Path(data)
    docs = qa_documents(data)
    name = f"qa-{data.parent.name}-{data.name}"
    if isinstance(docs, DocumentSet):
        kb = cached_files_kb(docs.root, docs.pages, docs.name, progress=progress)
        return kb, (lambda cid: docs.doc_id(cid) if cid is not None else None)
    return cached_kb(docs, name, progress=progress), (lambda cid: cid)


@dataclass
class QAEvalResult:
    report: QaReport
    rows: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class AskSpec:
    """What a worker needs to answer questions as this process does: the KB folder, the backend and its
    options (as JSON), k and the checker."""

    kb: str
    backend: str
    options: str
    k: int
    checker: str | None


def _asker(spec: AskSpec, progress: bool = False):  # noqa: ANN202 - (kb, Retriever, Backend)
    """This process's open KB, warmed hybrid retriever and backend for `spec`, built once."""
    def build():  # noqa: ANN202
        from citebound.generation import get_backend
        from citebound.kb import KnowledgeBase
        from citebound.retrieval import Retriever, ask_reranker

        from citebound.pipeline import ask

        kb = KnowledgeBase.open(spec.kb)
        retriever = Retriever(kb, mode="hybrid", progress=progress, reranker=ask_reranker())  # as `ask` runs
        retriever.warm_up()
        gen = get_backend(spec.backend, **json.loads(spec.options))
        # one untimed question loads the backend's models, so every timed `ask` is a warm one
        ask("What is this about?", kb, backend=gen, retriever=retriever, k=spec.k, audit=None,
            checker=spec.checker, abstain_on_weak_retrieval=False)
        return kb, retriever, gen

    return worker_state(spec, build)


def ask_questions(spec: AskSpec, questions: list[dict]) -> list[dict]:
    """One row per question with what the metrics need: what a worker runs on a chunk of questions."""
    from citebound.pipeline import ask

    kb, retriever, gen = _asker(spec)
    rows = []
    for q in questions:
        started = time.perf_counter()
        result = ask(q["question"], kb, backend=gen, retriever=retriever, k=spec.k, audit=None,
                     checker=spec.checker, abstain_on_weak_retrieval=False)
        seconds = time.perf_counter() - started
        report = result.report or {}
        rows.append({
            **q,
            "seconds": round(seconds, 4),
            "pipeline_abstained": result.abstained,
            "abstain_reason": result.abstain_reason,
            "answer": result.answer,
            "confidence": result.confidence,
            "best_dense": max((s.scores.get("dense", -math.inf) for s in result.sources), default=-math.inf),
            "cited_docs": sorted({c.doc_id for c in result.citations}),
            "retrieved_docs": [s.doc_id for s in result.sources],
            "groundedness": report.get("groundedness"),
            "citation_precision": report.get("citation_precision"),
            "citation_recall": report.get("citation_recall"),
            "n_claims": report.get("n_claims", 0),
            "n_removed": len(result.removed),
        })
    return rows


def run_questions(data: Path, *, backend: str = "extractive", backend_options: dict[str, Any] | None = None,
                  limit: int | None = None, k: int = 5, checker: str | None = None,
                  progress: bool = True, executor: Executor | None = None) -> tuple[list[dict], QaSettings]:
    """Ask every question; one row per question with what the metrics need. Returns (rows, settings).
    The KB is built (or found in the cache) and embedded here; with an `executor` (citebound.parallel)
    its workers answer the questions, each opening the same KB folder."""
    from citebound.generation.registry import backend_class

    data = Path(data)
    qa_documents(data)  # a missing corpus is reported before the questions are read
    backend_class(backend)  # an unknown backend is an error before any ingest
    questions = load_questions(data, limit)
    options = dict(backend_options or {})
    threshold = None
    if backend == "extractive":
        from citebound.generation.backends.extractive import default_signal, default_threshold

        options["signal"] = options.get("signal") or default_signal()  # recorded in the settings
        threshold = options.pop("threshold", None)
        threshold = float(default_threshold(options["signal"]) if threshold is None else threshold)
        options["threshold"] = OFF
    built, doc_id = open_qa_kb(data, progress=progress)
    questions = [{**q, "context_id": doc_id(q["context_id"])} for q in questions]
    spec = AskSpec(str(built.path), backend, json.dumps(options, sort_keys=True), k, checker)
    built.close()
    try:
        kb, _, gen = _asker(spec, progress)  # embeds missing chunks here, before any worker opens the KB
        t0 = time.perf_counter()
        rows = (executor or InProcess()).map(partial(ask_questions, spec), questions, desc="questions",
                                             progress=progress)
        seconds = time.perf_counter() - t0
        described = gen.describe()["options"]
        revision = kb.revision
    finally:
        release_state(spec)
    if threshold is not None:
        described["threshold"] = threshold  # the value applied afterwards, not the OFF used while running
    settings = QaSettings(data=str(data), split=data.name, backend=backend, backend_options=described,
                          checker=checker or gen.default_checker or DEFAULT_CHECKER, k=k, retrieval="hybrid+rerank" if config.rerank_enabled() else "hybrid",
                          extractive_threshold=threshold, seconds=round(seconds, 1), kb_revision=revision)
    return rows, settings


def score_rows(rows: list[dict[str, Any]], settings: QaSettings,
               baseline_threshold: float | None = None) -> QaReport:
    """All figures of one run (see the module docstring). Adds `answered`, `correct` and
    `baseline_answered` to each row."""
    if baseline_threshold is None:
        baseline_threshold = baseline_threshold_default()
    threshold = settings.extractive_threshold
    for row in rows:
        # Answered = the pipeline produced a verified answer, and (extractive) it cleared the threshold.
        conf = row["confidence"]
        gate = threshold is None or (conf is not None and conf >= threshold)
        row["answered"] = (not row["pipeline_abstained"]) and gate
        row["correct"] = row["answered"] and row["answerable"] and contains_answer(row["answer"], row["answers"])
        row["baseline_answered"] = row["best_dense"] >= baseline_threshold
    answerable = [r for r in rows if r["answerable"]]
    answered = [r for r in rows if r["answered"]]
    generated = [r for r in rows if r["n_claims"] and r["groundedness"] is not None]
    is_answerable = [r["answerable"] for r in rows]

    def mean(values: list[float]) -> float:
        return round(float(np.mean(values)), 4) if values else 0.0

    system_conf = [(r["confidence"] if r["confidence"] is not None else r["best_dense"])
                   if not r["pipeline_abstained"] else -math.inf for r in rows]
    baseline_conf = [r["best_dense"] for r in rows]
    # What answered-and-correct means for the risk-coverage curves: unanswerable answered = wrong.
    right = [r["answerable"] and contains_answer(r["answer"], r["answers"]) and not r["pipeline_abstained"]
             for r in rows]
    baseline_right = right  # the baseline answers with the system's answer when it answers
    return QaReport(
        settings=settings,
        questions=len(rows),
        answerable=len(answerable),
        unanswerable=len(rows) - len(answerable),
        answer_recall=mean([float(r["correct"]) for r in answerable]),
        citation_accuracy=mean([float(r["answered"] and r["context_id"] in r["cited_docs"]) for r in answerable]),
        retrieval_recall=mean([float(r["context_id"] in r["retrieved_docs"]) for r in answerable]),
        answered=len(answered),
        coverage=round(len(answered) / len(rows), 4) if rows else 0.0,
        groundedness=mean([r["groundedness"] for r in answered if r["groundedness"] is not None]),
        citation_precision=mean([r["citation_precision"] for r in answered if r["citation_precision"] is not None]),
        citation_recall=mean([r["citation_recall"] for r in answered if r["citation_recall"] is not None]),
        claims_removed=_share_removed(answered),
        # Over every reply that made claims, including those whose claims were all removed (then the
        # question is abstained on): how grounded the backend is before the policy cleans up.
        generated=len(generated),
        groundedness_generated=mean([r["groundedness"] for r in generated]),
        claims_removed_generated=_share_removed(generated),
        abstention=_abstention([not r["answered"] for r in rows], is_answerable),
        baseline=BaselineFigures(
            signal="best dense cosine of the retrieved sources",
            threshold=baseline_threshold,
            abstention=_abstention([not r["baseline_answered"] for r in rows], is_answerable),
            answer_recall=mean([float(r["baseline_answered"] and right[i]) for i, r in enumerate(rows)
                                if r["answerable"]]),
        ),
        auroc_answerable=Paired(_auc(system_conf, is_answerable), _auc(baseline_conf, is_answerable)),
        risk_coverage=Paired(risk_coverage(system_conf, right), risk_coverage(baseline_conf, baseline_right)),
        aurc=Paired(round(aurc(system_conf, right), 4), round(aurc(baseline_conf, baseline_right), 4)),
        latency_ms=_latency([r["seconds"] for r in rows if r.get("seconds") is not None]),
    )


def _latency(seconds: list[float]) -> Latency | None:
    """Percentiles of the per-question `ask()` times (None when the rows carry no times)."""
    if not seconds:
        return None
    ms = np.asarray(seconds) * 1000.0
    return Latency(p50=round(float(np.percentile(ms, 50)), 1), p95=round(float(np.percentile(ms, 95)), 1),
                   mean=round(float(ms.mean()), 1), n=len(ms))


def _share_removed(rows: list[dict[str, Any]]) -> float:
    """Claims the policy removed, over the claims the backend made, in these rows."""
    return round(sum(r["n_removed"] for r in rows) / max(1, sum(r["n_claims"] for r in rows)), 4)


def _abstention(abstained: list[bool], answerable: list[bool]) -> AbstentionFigures:
    figures = abstention_scores(abstained, answerable)
    return AbstentionFigures(**{k: (round(v, 4) if isinstance(v, float) else v) for k, v in figures.items()})


def _auc(scores: Sequence[float], answerable: Sequence[bool]) -> float:
    """ROC AUC for "answerable", rounded (NaN when a class is missing)."""
    value = roc_auc(scores, answerable)
    return round(value, 4) if not math.isnan(value) else value


def evaluate_qa(data: str | Path, *, backend: str = "extractive", backend_options: dict[str, Any] | None = None,
                limit: int | None = None, k: int = 5, checker: str | None = None,
                rows_out: str | Path | None = None, baseline_threshold: float | None = None,
                progress: bool = True, executor: Executor | None = None,
                calibrate_on: str | Path | None = None, objective: str | None = None,
                target: float | None = None) -> QAEvalResult:
    """Run and score one split. With `calibrate_on` (a labelled dev split: other documents of the same
    collection, never the split measured), the extractive threshold is first chosen on that split's
    questions as `citebound calibrate answers` chooses a KB's threshold (`objective`, `target`), then
    applied here: how a per-KB threshold carries over to questions it was not chosen on."""
    threshold_source = None
    if calibrate_on is not None:
        from citebound.errors import InputError
        from citebound.evaluate.answer_threshold import DEFAULT_OBJECTIVE, DEFAULT_TARGET, pick_answer_threshold

        if backend != "extractive":
            raise InputError("--calibrate-on chooses the extractive backend's threshold")
        if "threshold" in (backend_options or {}):
            raise InputError("--calibrate-on chooses the threshold: do not also set -o threshold")
        if Path(calibrate_on).resolve() == Path(data).resolve():
            raise InputError("--calibrate-on names the split being measured; calibrate on another (dev) split")
        dev_rows, _ = run_questions(calibrate_on, backend=backend, backend_options=backend_options, k=k,
                                    checker=checker, progress=progress, executor=executor)
        picked = pick_answer_threshold(dev_rows, objective or DEFAULT_OBJECTIVE,
                                       DEFAULT_TARGET if target is None else target)
        threshold_source = {"calibrated_on": str(calibrate_on), **picked}
        backend_options = {**(backend_options or {}), "threshold": picked["threshold"]}
    rows, settings = run_questions(data, backend=backend, backend_options=backend_options, limit=limit, k=k,
                                   checker=checker, progress=progress, executor=executor)
    if threshold_source is not None:
        settings = replace(settings, threshold_source=threshold_source)
    report = score_rows(rows, settings, baseline_threshold)
    if rows_out is not None:
        write_rows(rows, rows_out)
    return QAEvalResult(report, rows)


def write_rows(rows: list[dict[str, Any]], path: str | Path) -> None:
    """Per-question rows as JSON lines (infinite scores written as null)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with Path(path).open("w", encoding="utf-8") as fh:
        for row in rows:
            clean = {k: (None if isinstance(v, float) and math.isinf(v) else v) for k, v in row.items()}
            fh.write(json.dumps(clean, ensure_ascii=False) + "\n")


def calibrate_extractive(data: str | Path, *, limit: int | None = None, k: int = 5,
                         rows_out: str | Path | None = None, progress: bool = True) -> dict[str, Any]:
    """Thresholds for the extractive backend and the naive baseline, by balanced accuracy, on `data`
    (a dev split: never tune on test), picked as every abstention threshold is (`THRESHOLD_RULE`)."""
    rows, settings = run_questions(data, backend="extractive", limit=limit, k=k, progress=progress)
    if rows_out is not None:
        write_rows(rows, rows_out)
    answerable = [r["answerable"] for r in rows]
    conf = [r["confidence"] if (r["confidence"] is not None and not r["pipeline_abstained"]) else -math.inf
            for r in rows]
    t, bacc, tpr, tnr = pick_threshold(conf, answerable, **THRESHOLD_RULE)
    bt, bbacc, btpr, btnr = pick_threshold([r["best_dense"] for r in rows], answerable, **THRESHOLD_RULE)
    return {
        "data": str(data), "split": Path(data).name, "questions": len(rows), "objective": "balanced_accuracy",
        # the extractive backend's default signal; the shipped answerability threshold was chosen on the
        # calibration half of squad2 dev only (the model trained on the other half): bench/qa_answerability.py
        "signal": settings.backend_options.get("signal"),
        "extractive": {"threshold": round(t, 4), "balanced_accuracy": round(bacc, 4),
                       "answered_when_answerable": round(tpr, 4), "abstained_when_unanswerable": round(tnr, 4)},
        "baseline": {"threshold": round(bt, 4), "balanced_accuracy": round(bbacc, 4),
                     "answered_when_answerable": round(btpr, 4), "abstained_when_unanswerable": round(btnr, 4)},
    }
