"""The drift report as one self-contained HTML page (plots as base64 PNG) and the same numbers as JSON.

Uses the page style and table helper of `citebound.evaluate.report`; the plots are drawn here because
they need what the generic `Plot` does not have: a vertical line, with its label, at each change of
checker, threshold, checker model, backend or KB revision, and the floors as horizontal lines.
"""

from __future__ import annotations

import html
import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from citebound.evaluate.drift import KIND_NAMES, Change, Check, DriftReport, PeriodStats
from citebound.evaluate.report import STYLE, PngFigure, table_html

_RATE_METRICS = ("groundedness", "citation_precision", "citation_recall")
MAX_MARKERS = 12  # more distinct change places than this: one marker per period
MAX_CHANGE_ROWS = 100  # rows of the HTML table of changes (the JSON has them all)


def _nan(value: float | None) -> float:
    return float("nan") if value is None else float(value)


def _png(title: str, labels: Sequence[str], series: Mapping[str, Sequence[float]], changes: Sequence[Change],
         *, kind: str = "line", ylabel: str = "", ylim: tuple[float, float] | None = None,
         hlines: Mapping[str, float] | None = None) -> str:
    n = len(labels)
    figure = PngFigure((7.5, 3.6))
    with figure as ax:
        xs = list(range(n))
        if kind == "stacked":
            bottom = [0.0] * n
            for name, values in series.items():
                vals = [0.0 if not math.isfinite(v) else v for v in values]
                ax.bar(xs, vals, 0.7, bottom=bottom, label=name)
                bottom = [b + v for b, v in zip(bottom, vals)]
            top = max(bottom, default=0.0)
            ax.set_ylim(0, top * 1.3 if top > 0 else 1.0)
        else:
            styles = [("o", "-"), ("s", "--"), ("^", ":"), ("D", "-.")]  # series that coincide stay visible
            for j, (name, values) in enumerate(series.items()):
                marker, line = styles[j % len(styles)]
                ax.plot(xs, list(values), marker=marker, linestyle=line, markersize=7 - 1.5 * (j % 3), label=name)
        colours = {name: line.get_color() for name, line in zip(series, ax.get_lines())}
        for name, y in (hlines or {}).items():
            ax.axhline(y, linestyle=":", linewidth=1.2, color=colours.get(name, "red"))
            ax.annotate(f"{name} ≥ {y:g}" if name in _RATE_METRICS else f"{name} {y:g}", (n - 0.5, y),
                        fontsize="x-small", ha="right", va="bottom", color=colours.get(name, "red"))
        if ylim:
            ax.set_ylim(*ylim)
        # the changes: one dashed line each, labels stacked when several fall at the same place
        low, high = ax.get_ylim()
        for x, texts in _markers(changes):
            ax.axvline(x, color="0.35", linestyle="--", linewidth=1)
            ax.text(x + 0.03, high - (high - low) * 0.02, "\n".join(texts), rotation=90, va="top", ha="left",
                    fontsize="x-small", color="0.25", bbox={"facecolor": "white", "alpha": 0.75, "edgecolor": "none"})
        step = max(1, math.ceil(n / 14))
        ax.set_xticks(xs[::step], [labels[i] for i in xs[::step]], rotation=30 if n > 4 else 0,
                      ha="right" if n > 4 else "center", fontsize="small")
        ax.set_xlim(-0.6, n - 0.4)
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        if series:
            ax.legend(fontsize="x-small", loc="lower left" if kind == "line" else "upper left")
    return figure.png


def _markers(changes: Sequence[Change]) -> list[tuple[float, list[str]]]:
    """(x, labels) of the vertical lines. Up to MAX_MARKERS places, one line per change (changes at the
    same place share a line); beyond that, one line per period that has changes, at its first change,
    labelled with counts per kind, so a log whose KB is re-ingested hourly still gives a readable plot."""
    at: dict[float, list[str]] = {}
    for c in changes:
        at.setdefault(c.position, []).append(c.label)
    if len(at) <= MAX_MARKERS:
        return sorted(at.items())
    per_period: dict[str, list[Change]] = {}
    for c in changes:
        per_period.setdefault(c.period, []).append(c)
    out = []
    for group in per_period.values():
        kinds: dict[str, int] = {}
        for c in group:
            kinds[c.kind] = kinds.get(c.kind, 0) + 1
        out.append((group[0].position, [", ".join(f"{KIND_NAMES.get(k, k)} ×{v}" for k, v in kinds.items())]))
    return sorted(out)


def _counts(periods: Sequence[PeriodStats], field: str, top: int = 8) -> dict[str, list[float]]:
    """Per-period counts of a dict field (removed_by, flags_by_pattern…), the `top` keys overall."""
    total: dict[str, int] = {}
    for p in periods:
        for k, v in getattr(p, field).items():
            total[k] = total.get(k, 0) + v
    keys = sorted(total, key=lambda k: -total[k])
    shown, rest = keys[:top], keys[top:]
    out = {k: [float(getattr(p, field).get(k, 0)) for p in periods] for k in shown}
    if rest:
        out["other"] = [float(sum(getattr(p, field).get(k, 0) for k in rest)) for p in periods]
    return out


def plots(report: DriftReport, floors: Mapping[str, float] | None = None,
          ceilings: Mapping[str, float] | None = None) -> list[tuple[str, str]]:
    """(title, base64 PNG) for each plot of the report."""
    ps, ch = report.periods, report.changes
    labels = [p.period for p in ps]
    floors, ceilings = dict(floors or {}), dict(ceilings or {})
    quality = {m: [_nan(getattr(p, m)) for p in ps] for m in _RATE_METRICS}
    rates = {"abstention_rate": [_nan(p.abstention_rate) for p in ps],
             "removed_rate": [_nan(p.removed_rate) for p in ps],
             "error_rate": [_nan(p.error_rate) for p in ps]}
    stages = {}
    for p in ps:
        for s in p.stages:
            stages.setdefault(s, None)
    stage_series = {s: [float(sum(p.stages.get(s, {}).values())) for p in ps] for s in stages}
    out = [
        ("Groundedness and citations (claims the backend made, before the policy)",
         _png("Groundedness and citations", labels, quality, ch, ylim=(-0.02, 1.05), ylabel="mean per request",
              hlines={k: v for k, v in floors.items() if k in quality})),
        ("Requests", _png("Requests per period", labels, {
            "answered": [float(p.answered) for p in ps], "abstained": [float(p.abstained) for p in ps],
            "error": [float(p.errors) for p in ps]}, ch, kind="stacked", ylabel="requests")),
        ("Abstentions, removed claims and errors",
         _png("Abstention, removal and error rates", labels, rates, ch, ylim=(-0.02, 1.05), ylabel="share",
              hlines={k: v for k, v in ceilings.items() if k in rates})),
        ("Claims removed by the policy (label · deciding stage)",
         _png("Claims removed, by label and deciding stage", labels, _counts(ps, "removed_by"), ch,
              kind="stacked", ylabel="claims")),
        ("Verifier stages that decided", _png("Claims, by the verifier stage that decided", labels,
                                              stage_series, ch, kind="stacked", ylabel="claims")),
        ("Latency", _png("Latency per request", labels, {
            "p50": [_nan(p.latency.get("p50")) for p in ps], "p95": [_nan(p.latency.get("p95")) for p in ps]},
            ch, ylabel="seconds", hlines={k.replace("latency_", ""): v for k, v in ceilings.items()
                                          if k.startswith("latency_")})),
        ("Injection flags", _png("Instruction-like text flagged in sources", labels,
                                 _counts(ps, "flags_by_pattern"), ch, kind="stacked", ylabel="flags")),
    ]
    return out


def _table(report: DriftReport) -> list[dict[str, Any]]:
    rows = []
    for p in report.periods:
        rows.append({
            "period": p.period, "requests": p.requests, "abstention": _cell(p.abstention_rate),
            "errors": p.errors, "generated": p.generated, "groundedness": _cell(p.groundedness),
            "citation precision": _cell(p.citation_precision), "citation recall": _cell(p.citation_recall),
            "claims removed": f"{p.claims_removed}/{p.claims}" if p.claims else "-",
            "flags": p.flags, "p50 s": _cell(p.latency.get("p50")), "p95 s": _cell(p.latency.get("p95")),
        })
    return rows


def _cell(value: float | None) -> Any:
    return "-" if value is None else value


def render_html(report: DriftReport, checks: Sequence[Check] = (), *, floors: Mapping[str, float] | None = None,
                ceilings: Mapping[str, float] | None = None) -> str:
    e = html.escape
    title = "citebound: answer quality over time"
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{e(title)}</title>",
             f"<style>{STYLE}</style></head><body><h1>{e(title)}</h1>"]
    window = f"since {report.since}" if report.since else "the whole log"
    parts.append(f"<p>{report.requests} requests from {e(str(report.source))}, {e(window)}, by {e(report.by)}. "
                 "Groundedness and citation figures are means over the requests whose backend made claims, "
                 "before the policy removed any (see docs/drift.md). Dashed vertical lines mark a change of "
                 "checker, threshold, checker model, backend or KB revision.</p>")
    if checks:
        parts.append("<h2>Checks on the last period</h2><ul>")
        for c in checks:
            colour = "#b00" if c.failed else "#070"
            parts.append(f"<li style='color:{colour}'>{'FAIL' if c.failed else 'ok'}: {e(c.message)}</li>")
        parts.append("</ul>")
    for heading, png in plots(report, floors, ceilings):
        parts.append(f"<h2>{e(heading)}</h2><img alt='{e(heading)}' src='data:image/png;base64,{png}'>")
    parts.append("<h2>Per period</h2>" + table_html(_table(report)))
    if report.changes:
        shown = report.changes[-MAX_CHANGE_ROWS:]
        note = (f"<p>The last {len(shown)} of {len(report.changes)} changes; all of them are in the JSON.</p>"
                if len(shown) < len(report.changes) else "")
        parts.append("<h2>Changes</h2>" + note + table_html([{"at": c.at, "period": c.period, "change": c.label,
                                                                 "request": c.request_id[:12]} for c in shown]))
    in_use = [{"period": p.period, "backend": "; ".join(f"{k} ({v})" for k, v in p.backends.items()),
               "verifier": "; ".join(f"{k} ({v})" for k, v in p.verifiers.items()),
               "KB revision": "; ".join(f"{k} ({v})" for k, v in p.kb_revisions.items())}
              for p in report.periods if p.requests]
    parts.append("<h2>Backend, verifier and KB revision in use</h2>" + table_html(in_use))
    why = [{"period": p.period, "removed (label · stage)": "; ".join(f"{k} {v}" for k, v in p.removed_by.items()),
            "most frequent reasons": "; ".join(f"{k} ({v})" for k, v in p.removed_reasons.items()),
            "abstained because": "; ".join(f"{k} ({v})" for k, v in p.abstain_reasons.items())}
           for p in report.periods if p.requests]
    parts.append("<h2>Why claims were removed and requests abstained</h2>" + table_html(why))
    parts.append("</body></html>")
    return "\n".join(parts)


def write_drift_report(path: str | os.PathLike[str], report: DriftReport, checks: Sequence[Check] = (), *,
                       floors: Mapping[str, float] | None = None,
                       ceilings: Mapping[str, float] | None = None) -> tuple[Path, Path]:
    """Write `<path>.html` and `<path>.json` (the same numbers as `citebound report --json`)."""
    base = Path(path)
    if base.suffix in (".html", ".json"):
        base = base.with_suffix("")
    base.parent.mkdir(parents=True, exist_ok=True)
    html_path, json_path = base.with_suffix(".html"), base.with_suffix(".json")
    html_path.write_text(render_html(report, checks, floors=floors, ceilings=ceilings), encoding="utf-8")
    data = {**report.to_dict(), "checks": [c.to_dict() for c in checks]}
    json_path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    return html_path, json_path


__all__ = ["plots", "render_html", "write_drift_report"]
