"""`citebound eval qa`: grounded question answering with abstention, on a labelled split.

Data: a folder with `corpus.jsonl` (BEIR rows `{_id, title, text}`) and `questions.jsonl`
(`{id, question, context_id, answerable, answers}`), e.g. ../shared/data/qa/squad2/test. The corpus is
ingested once into a cached KB (keyed by its content hash) and every question goes through `ask()` —
the same retriever, backend, verifier and policy as `citebound ask` (no audit log, and no retrieval
gate: an evaluation KB carries no calibrated retrieval threshold).

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
  whose answer is wrong: unanswerable, or the gold answer not in it), and the area under each curve.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from citebound.errors import InputError
from citebound.evaluate.qa_data import load_questions as read_question_rows

# The naive baseline's threshold on the best dense cosine of the retrieved sources. Chosen on
# ../shared/data/qa/squad2/dev only, by `citebound calibrate extractive --data ../shared/data/qa/squad2/dev`
# with the same objective as the extractive threshold (balanced accuracy of answer-vs-abstain).
BASELINE_THRESHOLD = 0.5415
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


def prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "tp": tp, "fp": fp, "fn": fn}


def abstention_scores(abstained: Sequence[bool], answerable: Sequence[bool]) -> dict[str, float]:
    """Precision/recall/F1 of abstaining, with unanswerable questions as the positive class."""
    tp = sum(a and not y for a, y in zip(abstained, answerable, strict=True))
    fp = sum(a and y for a, y in zip(abstained, answerable, strict=True))
    fn = sum((not a) and (not y) for a, y in zip(abstained, answerable, strict=True))
    return prf(tp, fp, fn)


def risk_coverage(confidence: Sequence[float], correct: Sequence[bool], points: int = 21) -> list[dict[str, float]]:
    """(threshold, coverage, risk) as the threshold moves over the confidence quantiles.

    A question is answered when its confidence >= threshold (-inf: never answered); risk is the share of
    answered questions that are wrong. Coverage 0 has risk 0 by convention.
    """
    conf = np.asarray(confidence, dtype=np.float64)
    ok = np.asarray(correct, dtype=bool)
    finite = conf[np.isfinite(conf)]
    if not len(finite):
        return [{"threshold": math.inf, "coverage": 0.0, "risk": 0.0}]
    cuts = np.unique(np.quantile(finite, np.linspace(0, 1, points)))
    out = []
    for t in [*cuts, math.inf]:
        answered = conf >= t
        n = int(answered.sum())
        out.append({"threshold": float(t), "coverage": n / len(conf),
                    "risk": float((~ok[answered]).mean()) if n else 0.0})
    return out


def aurc(confidence: Sequence[float], correct: Sequence[bool]) -> float:
    """Area under the risk-coverage curve over all thresholds (lower is better)."""
    conf = np.asarray(confidence, dtype=np.float64)
    ok = np.asarray(correct, dtype=bool)
    order = np.argsort(-np.where(np.isfinite(conf), conf, -np.inf), kind="stable")
    wrong = (~ok[order]).astype(np.float64)
    answerable_n = int(np.isfinite(conf).sum())
    if not answerable_n:
        return 0.0
    risks = np.cumsum(wrong[:answerable_n]) / np.arange(1, answerable_n + 1)
    return float(risks.sum() / len(conf))


# -- running -------------------------------------------------------------------------------------
@dataclass
class QAEvalResult:
    summary: dict[str, Any]
    rows: list[dict[str, Any]] = field(default_factory=list)


def load_questions(data: Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The questions of a QA folder, which must also hold the corpus the questions are asked of."""
    if not (Path(data) / "corpus.jsonl").is_file():
        raise InputError(f"{data} needs corpus.jsonl and questions.jsonl")
    return read_question_rows(data, limit)


def run_questions(data: Path, *, backend: str = "extractive", backend_options: dict[str, Any] | None = None,
                  limit: int | None = None, k: int = 5, checker: str | None = None,
                  progress: bool = True) -> tuple[list[dict], dict]:
    """Ask every question; one row per question with what the metrics need. Returns (rows, settings)."""
    from tqdm import tqdm

    from citebound.generation import get_backend
    from citebound.kb.cache import cached_kb
    from citebound.pipeline import ask
    from citebound.retrieval import Retriever

    data = Path(data)
    questions = load_questions(data, limit)
    options = dict(backend_options or {})
    threshold = None
    if backend == "extractive":
        from citebound.generation.backends.extractive import default_signal, default_threshold

        options["signal"] = options.get("signal") or default_signal()  # recorded in the settings
        threshold = options.pop("threshold", None)
        threshold = float(default_threshold(options["signal"]) if threshold is None else threshold)
        options["threshold"] = OFF
    gen = get_backend(backend, **options)
    kb = cached_kb(data / "corpus.jsonl", f"qa-{data.parent.name}-{data.name}", progress=progress)
    retriever = Retriever(kb, mode="hybrid", progress=progress)
    retriever.warm_up()
    rows = []
    t0 = time.perf_counter()
    for q in tqdm(questions, desc="questions", unit="q", disable=not progress, file=None):
        result = ask(q["question"], kb, backend=gen, retriever=retriever, k=k, audit=None, checker=checker,
                     abstain_on_weak_retrieval=False)
        report = result.report or {}
        rows.append({
            **q,
            "pipeline_abstained": result.abstained,
            "abstain_reason": result.abstain_reason,
            "answer": result.answer,
            "confidence": result.confidence,
            "evidence": max((s.scores.get("dense", -math.inf) for s in result.sources), default=-math.inf),
            "cited_docs": sorted({c.doc_id for c in result.citations}),
            "retrieved_docs": [s.doc_id for s in result.sources],
            "groundedness": report.get("groundedness"),
            "citation_precision": report.get("citation_precision"),
            "citation_recall": report.get("citation_recall"),
            "n_claims": report.get("n_claims", 0),
            "n_removed": len(result.removed),
        })
    described = gen.describe()["options"]
    if threshold is not None:
        described["threshold"] = threshold  # the value applied afterwards, not the OFF used while running
    settings = {"data": str(data), "split": data.name, "backend": backend, "backend_options": described,
                "checker": checker or gen.default_checker,
                "k": k, "retrieval": "hybrid", "extractive_threshold": threshold,
                "seconds": round(time.perf_counter() - t0, 1), "kb_revision": kb.revision}
    kb.close()
    return rows, settings


def score_rows(rows: list[dict[str, Any]], settings: dict[str, Any],
               baseline_threshold: float = BASELINE_THRESHOLD) -> dict[str, Any]:
    """All figures of one run (see the module docstring)."""
    threshold = settings.get("extractive_threshold")
    for row in rows:
        # Answered = the pipeline produced a verified answer, and (extractive) it cleared the threshold.
        conf = row["confidence"]
        gate = threshold is None or (conf is not None and conf >= threshold)
        row["answered"] = (not row["pipeline_abstained"]) and gate
        row["correct"] = row["answered"] and row["answerable"] and contains_answer(row["answer"], row["answers"])
        row["baseline_answered"] = row["evidence"] >= baseline_threshold
    answerable = [r for r in rows if r["answerable"]]
    answered = [r for r in rows if r["answered"]]
    generated = [r for r in rows if r["n_claims"] and r["groundedness"] is not None]

    def mean(values: list[float]) -> float:
        return float(np.mean(values)) if values else 0.0

    system_conf = [(r["confidence"] if r["confidence"] is not None else r["evidence"])
                   if not r["pipeline_abstained"] else -math.inf for r in rows]
    # What answered-and-correct means for the risk-coverage curves: unanswerable answered = wrong.
    right = [r["answerable"] and contains_answer(r["answer"], r["answers"]) and not r["pipeline_abstained"]
             for r in rows]
    baseline_right = right  # the baseline answers with the system's answer when it answers
    summary = {
        **settings,
        "questions": len(rows),
        "answerable": len(answerable),
        "unanswerable": len(rows) - len(answerable),
        "answer_recall": mean([float(r["correct"]) for r in answerable]),
        "citation_accuracy": mean([float(r["answered"] and r["context_id"] in r["cited_docs"]) for r in answerable]),
        "retrieval_recall": mean([float(r["context_id"] in r["retrieved_docs"]) for r in answerable]),
        "answered": len(answered),
        "coverage": len(answered) / len(rows) if rows else 0.0,
        "groundedness": mean([r["groundedness"] for r in answered if r["groundedness"] is not None]),
        "citation_precision": mean([r["citation_precision"] for r in answered if r["citation_precision"] is not None]),
        "citation_recall": mean([r["citation_recall"] for r in answered if r["citation_recall"] is not None]),
        "claims_removed": (sum(r["n_removed"] for r in answered) / max(1, sum(r["n_claims"] for r in answered))),
        # Over every reply that made claims, including those whose claims were all removed (then the
        # question is abstained on): how grounded the backend is before the policy cleans up.
        "generated": len(generated),
        "groundedness_generated": mean([r["groundedness"] for r in generated]),
        "claims_removed_generated": sum(r["n_removed"] for r in generated) / max(1, sum(r["n_claims"] for r in generated)),
        "abstention": _rounded(abstention_scores([not r["answered"] for r in rows], [r["answerable"] for r in rows])),
        "baseline": {
            "signal": "best dense cosine of the retrieved sources",
            "threshold": baseline_threshold,
            "abstention": _rounded(abstention_scores([not r["baseline_answered"] for r in rows],
                                                     [r["answerable"] for r in rows])),
            "answer_recall": mean([float(r["baseline_answered"] and right[i]) for i, r in enumerate(rows)
                                   if r["answerable"]]),
        },
        "auroc_answerable": {
            "system": _auc(system_conf, [r["answerable"] for r in rows]),
            "baseline": _auc([r["evidence"] for r in rows], [r["answerable"] for r in rows]),
        },
        "risk_coverage": {
            "system": risk_coverage(system_conf, right),
            "baseline": risk_coverage([r["evidence"] for r in rows], baseline_right),
        },
        "aurc": {"system": aurc(system_conf, right), "baseline": aurc([r["evidence"] for r in rows], baseline_right)},
    }
    for key in ("answer_recall", "citation_accuracy", "retrieval_recall", "coverage", "groundedness",
                "citation_precision", "citation_recall", "claims_removed", "groundedness_generated",
                "claims_removed_generated"):
        summary[key] = round(summary[key], 4)
    summary["aurc"] = {k: round(v, 4) for k, v in summary["aurc"].items()}
    summary["baseline"]["answer_recall"] = round(summary["baseline"]["answer_recall"], 4)
    return summary


def _auc(scores: Sequence[float], answerable: Sequence[bool]) -> float:
    from citebound.retrieval.abstain import roc_auc

    s = np.asarray(scores, dtype=np.float64)
    s = np.where(np.isfinite(s), s, -1e9)
    value = roc_auc(s, np.asarray(answerable, dtype=bool))
    return round(value, 4) if not math.isnan(value) else value


def _rounded(d: dict[str, float]) -> dict[str, float]:
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in d.items()}


def evaluate_qa(data: str | Path, *, backend: str = "extractive", backend_options: dict[str, Any] | None = None,
                limit: int | None = None, k: int = 5, checker: str | None = None,
                rows_out: str | Path | None = None, baseline_threshold: float = BASELINE_THRESHOLD,
                progress: bool = True) -> QAEvalResult:
    rows, settings = run_questions(data, backend=backend, backend_options=backend_options, limit=limit, k=k,
                                   checker=checker, progress=progress)
    summary = score_rows(rows, settings, baseline_threshold)
    if rows_out is not None:
        write_rows(rows, rows_out)
    return QAEvalResult(summary, rows)


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
    (a dev split: never tune on test)."""
    from citebound.retrieval.abstain import choose_threshold

    rows, settings = run_questions(data, backend="extractive", limit=limit, k=k, progress=progress)
    if rows_out is not None:
        write_rows(rows, rows_out)
    answerable = [r["answerable"] for r in rows]
    conf = [r["confidence"] if (r["confidence"] is not None and not r["pipeline_abstained"]) else -math.inf
            for r in rows]
    t, bacc, tpr, tnr = choose_threshold(conf, answerable)
    bt, bbacc, btpr, btnr = choose_threshold([r["evidence"] for r in rows], answerable)
    return {
        "data": str(data), "split": Path(data).name, "questions": len(rows), "objective": "balanced_accuracy",
        # the extractive backend's default signal; the shipped answerability threshold was chosen on the
        # calibration half of squad2 dev only (the model trained on the other half): bench/qa_answerability.py
        "signal": settings["backend_options"].get("signal"),
        "extractive": {"threshold": round(t, 4), "balanced_accuracy": round(bacc, 4),
                       "answered_when_answerable": round(tpr, 4), "abstained_when_unanswerable": round(tnr, 4)},
        "baseline": {"threshold": round(bt, 4), "balanced_accuracy": round(bbacc, 4),
                     "answered_when_answerable": round(btpr, 4), "abstained_when_unanswerable": round(btnr, 4)},
    }


# -- output --------------------------------------------------------------------------------------
def format_summary(s: dict[str, Any]) -> str:
    a, b = s["abstention"], s["baseline"]["abstention"]
    lines = [
        f"{s['data']} — split {s['split']}, {s['questions']} questions ({s['answerable']} answerable, "
        f"{s['unanswerable']} unanswerable), backend {s['backend']}, k={s['k']}, retrieval {s['retrieval']}, "
        f"checker {s.get('checker')}",
        f"answerable:   answer recall {s['answer_recall']:.4f}   citation accuracy {s['citation_accuracy']:.4f}"
        f"   (gold context retrieved {s['retrieval_recall']:.4f})",
        f"answers:      groundedness {s['groundedness']:.4f}   citation precision {s['citation_precision']:.4f}"
        f"   citation recall {s['citation_recall']:.4f}   claims removed {s['claims_removed']:.4f}"
        f"   ({s['answered']} answered, coverage {s['coverage']:.4f})",
        f"generated:    {s['generated']} replies made claims; groundedness before the policy "
        f"{s['groundedness_generated']:.4f}, claims removed {s['claims_removed_generated']:.4f}",
        f"abstention:   precision {a['precision']:.4f}  recall {a['recall']:.4f}  F1 {a['f1']:.4f}"
        + (f"   (extractive threshold {s['extractive_threshold']})" if s.get("extractive_threshold") is not None
           else ""),
        f"baseline:     precision {b['precision']:.4f}  recall {b['recall']:.4f}  F1 {b['f1']:.4f}"
        f"   (abstain when {s['baseline']['signal']} < {s['baseline']['threshold']})",
        f"AUROC answerable-vs-not: system {s['auroc_answerable']['system']}  baseline "
        f"{s['auroc_answerable']['baseline']};  AURC (lower is better): system {s['aurc']['system']}  "
        f"baseline {s['aurc']['baseline']}",
        "risk-coverage (system): " + "  ".join(f"{p['coverage']:.2f}/{p['risk']:.2f}"
                                               for p in s["risk_coverage"]["system"][::4]),
    ]
    return "\n".join(lines)


def _risk_at(points: list[dict[str, float]], grid: list[float]) -> list[float]:
    """A risk-coverage curve read at the given coverages (linear interpolation between its points)."""
    pts = sorted((p["coverage"], p["risk"]) for p in points if p["coverage"] > 0)
    if not pts:
        return [0.0 for _ in grid]
    xs, ys = zip(*pts)
    return [round(float(np.interp(g, xs, ys)), 4) for g in grid]


def write_html(result: QAEvalResult, path: str | Path) -> tuple[Path, Path]:
    from citebound.evaluate.report import Plot, Section, write_report

    s = result.summary
    table = [
        {"": "system", **{k: s["abstention"][k] for k in ("precision", "recall", "f1")},
         "AUROC": s["auroc_answerable"]["system"], "AURC": s["aurc"]["system"]},
        {"": "baseline (retrieval score)", **{k: s["baseline"]["abstention"][k] for k in ("precision", "recall", "f1")},
         "AUROC": s["auroc_answerable"]["baseline"], "AURC": s["aurc"]["baseline"]},
    ]
    answers = [{k: s[k] for k in ("answer_recall", "citation_accuracy", "retrieval_recall", "groundedness",
                                  "citation_precision", "citation_recall", "claims_removed", "coverage")}]
    grid = [round(0.05 * i, 2) for i in range(1, 21)]
    curves = [Plot("line", "Risk–coverage, system vs naive baseline (lower is better)", x=grid,
                   series={name: _risk_at(s["risk_coverage"][name], grid) for name in ("system", "baseline")},
                   xlabel="coverage (share of questions answered)", ylabel="risk (share of answers wrong)")]
    sections = [
        Section("Answers", text=f"Split: {s['split']} ({s['data']}); {s['questions']} questions; "
                                f"backend {s['backend']}.", table=answers),
        Section("Abstention (positive class: unanswerable)", table=table, plots=curves),
    ]
    return write_report(path, f"Grounded QA — {s['split']}", sections, meta={k: v for k, v in s.items()
                                                                             if k != "risk_coverage"})
