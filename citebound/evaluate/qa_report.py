"""The typed report of `citebound eval qa`, and its three renderings: text, JSON and HTML.

`citebound.evaluate.qa_eval.score_rows` builds a `QaReport` from the per-question rows; nothing here
computes a figure. Renderings:
- `QaReport.to_dict()` / `to_json()`: the JSON of `eval qa --json` (the settings first, then every figure;
  keys as in bench/results/qa_squad2_*.json, which docs/benchmarks.md quotes);
- `format_text(report)`: the lines `eval qa` prints;
- `write_html(report, path)`: the HTML page and its JSON twin (`citebound.evaluate.report`).
Figures are stored rounded to 4 places, as reported.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

T = TypeVar("T")


@dataclass(frozen=True)
class QaSettings:
    """What was run: data, backend and its options, checker, retrieval, and how long it took."""

    data: str
    split: str
    backend: str
    backend_options: dict[str, Any]
    checker: str | None
    k: int
    retrieval: str
    extractive_threshold: float | None  # applied after the run (None: the backend's own abstention only)
    seconds: float
    kb_revision: int
    # how the extractive threshold was chosen when `eval qa --calibrate-on DEV` chose it (the dev split,
    # objective and figures there: citebound.evaluate.answer_threshold); None: the backend's default or -o
    threshold_source: dict[str, Any] | None = None


@dataclass(frozen=True)
class AbstentionFigures:
    """`citebound.metrics.abstention_scores`: unanswerable questions are the positive class."""

    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int


@dataclass(frozen=True)
class Paired(Generic[T]):
    """One figure for the system and for the naive retrieval-score baseline."""

    system: T
    baseline: T


@dataclass(frozen=True)
class BaselineFigures:
    """The naive baseline: abstain when the retrieval score is below a threshold chosen on dev."""

    signal: str
    threshold: float
    abstention: AbstentionFigures
    answer_recall: float


@dataclass(frozen=True)
class Latency:
    """Milliseconds per `ask()` in a warm process (models loaded before the first timed question)."""

    p50: float
    p95: float
    mean: float
    n: int


@dataclass(frozen=True)
class QaReport:
    """Every figure of one `eval qa` run (definitions: docs/ask.md and citebound.evaluate.qa_eval)."""

    settings: QaSettings
    questions: int
    answerable: int
    unanswerable: int
    answer_recall: float
    citation_accuracy: float
    retrieval_recall: float
    answered: int
    coverage: float
    groundedness: float
    citation_precision: float
    citation_recall: float
    claims_removed: float
    generated: int  # replies that made claims, including those whose claims were all removed
    groundedness_generated: float
    claims_removed_generated: float
    abstention: AbstentionFigures
    baseline: BaselineFigures
    auroc_answerable: Paired[float]
    risk_coverage: Paired[list[dict[str, float]]]  # [{threshold, coverage, risk}], citebound.metrics.risk_coverage
    aurc: Paired[float]
    latency_ms: Latency | None = None  # None in reports saved before latency was measured

    def to_dict(self) -> dict[str, Any]:
        """The JSON object: the settings' keys first, then the figures (nested dicts for the nested ones)."""
        out = asdict(self.settings)
        out.update({f.name: _plain(getattr(self, f.name)) for f in fields(self) if f.name != "settings"})
        if out["latency_ms"] is None:  # a report scored from rows without times: the keys of older reports
            del out["latency_ms"]
        if out["threshold_source"] is None:  # the threshold was not chosen by --calibrate-on: the keys as before
            del out["threshold_source"]
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> QaReport:
        """The inverse of `to_dict` (e.g. to re-render a saved run)."""
        settings = QaSettings(**{f.name: d[f.name] for f in fields(QaSettings) if f.name in d})
        b = d["baseline"]
        return cls(
            settings=settings,
            **{f.name: d[f.name] for f in fields(cls) if f.name not in
               {"settings", "abstention", "baseline", "auroc_answerable", "risk_coverage", "aurc", "latency_ms"}},
            abstention=AbstentionFigures(**d["abstention"]),
            baseline=BaselineFigures(b["signal"], b["threshold"], AbstentionFigures(**b["abstention"]), b["answer_recall"]),
            auroc_answerable=Paired(**d["auroc_answerable"]),
            risk_coverage=Paired(**d["risk_coverage"]),
            aurc=Paired(**d["aurc"]),
            latency_ms=Latency(**d["latency_ms"]) if d.get("latency_ms") else None,
        )


def _plain(value: Any) -> Any:
    return asdict(value) if hasattr(value, "__dataclass_fields__") else value


# -- renderings ------------------------------------------------------------------------------------
def format_text(r: QaReport) -> str:
    """The lines `citebound eval qa` prints."""
    s, a, b = r.settings, r.abstention, r.baseline.abstention
    lines = [
        f"{s.data} — split {s.split}, {r.questions} questions ({r.answerable} answerable, "
        f"{r.unanswerable} unanswerable), backend {s.backend}, k={s.k}, retrieval {s.retrieval}, "
        f"checker {s.checker}",
        f"answerable:   answer recall {r.answer_recall:.4f}   citation accuracy {r.citation_accuracy:.4f}"
        f"   (gold context retrieved {r.retrieval_recall:.4f})",
        f"answers:      groundedness {r.groundedness:.4f}   citation precision {r.citation_precision:.4f}"
        f"   citation recall {r.citation_recall:.4f}   claims removed {r.claims_removed:.4f}"
        f"   ({r.answered} answered, coverage {r.coverage:.4f})",
        f"generated:    {r.generated} replies made claims; groundedness before the policy "
        f"{r.groundedness_generated:.4f}, claims removed {r.claims_removed_generated:.4f}",
        f"abstention:   precision {a.precision:.4f}  recall {a.recall:.4f}  F1 {a.f1:.4f}"
        + (f"   (extractive threshold {s.extractive_threshold})" if s.extractive_threshold is not None else "")
        + (f", calibrated on {s.threshold_source['calibrated_on']} ({s.threshold_source['objective']})"
           if s.threshold_source else ""),
        f"baseline:     precision {b.precision:.4f}  recall {b.recall:.4f}  F1 {b.f1:.4f}"
        f"   (abstain when {r.baseline.signal} < {r.baseline.threshold})",
        f"AUROC answerable-vs-not: system {r.auroc_answerable.system}  baseline "
        f"{r.auroc_answerable.baseline};  AURC (lower is better): system {r.aurc.system}  "
        f"baseline {r.aurc.baseline}",
        "risk-coverage (system): " + "  ".join(f"{p['coverage']:.2f}/{p['risk']:.2f}"
                                               for p in r.risk_coverage.system[::4]),
    ]
    if r.latency_ms is not None:
        t = r.latency_ms
        lines.append(f"latency:      ask p50 {t.p50:.0f} ms  p95 {t.p95:.0f} ms  mean {t.mean:.0f} ms "
                     f"({t.n} questions, warm process)")
    return "\n".join(lines)


def _risk_at(points: list[dict[str, float]], grid: list[float]) -> list[float]:
    """A risk-coverage curve read at the given coverages (linear interpolation between its points)."""
    pts = sorted((p["coverage"], p["risk"]) for p in points if p["coverage"] > 0)
    if not pts:
        return [0.0 for _ in grid]
    xs, ys = zip(*pts)
    return [round(float(np.interp(g, xs, ys)), 4) for g in grid]


def write_html(r: QaReport, path: str | Path) -> tuple[Path, Path]:
    """The HTML report (tables, the risk–coverage plot) and its JSON twin; returns both paths."""
    from citebound.evaluate.report import Plot, Section, write_report

    s = r.settings
    table = [
        {"": "system", **{k: getattr(r.abstention, k) for k in ("precision", "recall", "f1")},
         "AUROC": r.auroc_answerable.system, "AURC": r.aurc.system},
        {"": "baseline (retrieval score)", **{k: getattr(r.baseline.abstention, k) for k in ("precision", "recall", "f1")},
         "AUROC": r.auroc_answerable.baseline, "AURC": r.aurc.baseline},
    ]
    answers = [{k: getattr(r, k) for k in ("answer_recall", "citation_accuracy", "retrieval_recall", "groundedness",
                                           "citation_precision", "citation_recall", "claims_removed", "coverage")}]
    grid = [round(0.05 * i, 2) for i in range(1, 21)]
    curves = [Plot("line", "Risk–coverage, system vs naive baseline (lower is better)", x=grid,
                   series={name: _risk_at(getattr(r.risk_coverage, name), grid) for name in ("system", "baseline")},
                   xlabel="coverage (share of questions answered)", ylabel="risk (share of answers wrong)")]
    sections = [
        Section("Answers", text=f"Split: {s.split} ({s.data}); {r.questions} questions; "
                                f"backend {s.backend}.", table=answers),
        Section("Abstention (positive class: unanswerable)", table=table, plots=curves),
    ]
    meta = {k: v for k, v in r.to_dict().items() if k != "risk_coverage"}
    return write_report(path, f"Grounded QA — {s.split}", sections, meta=meta)
