"""Evaluation reports: one self-contained HTML page (plots embedded as base64 PNG) and the same data as JSON.

Generic on purpose, so every evaluation (retrieval, QA, verifier) writes reports the same way:

    from citebound.evaluate.report import Section, Plot, write_report
    write_report("out/retrieval", "Retrieval on SciFact (test)", [
        Section("Summary", text="nDCG gain: linear.", table=[{"mode": "bm25", "ndcg@10": 0.69}, ...]),
        Section("By mode", plots=[Plot("bar", "nDCG@10", x=["bm25", "dense"], series={"ndcg@10": [0.69, 0.64]})]),
    ], meta={"command": "citebound eval retrieval ..."})
    # -> (Path("out/retrieval.html"), Path("out/retrieval.json"))

`path` may end in `.html` or `.json` or have no suffix; both files are written side by side. The JSON
holds `title`, `meta`, and every section's heading, text, table and plot data: everything the HTML
shows, as numbers. Plot kinds: "bar" (grouped bars, one group per x label), "line" (x numeric or
labels), "hist" (one histogram per series; x is ignored).
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

PLOT_KINDS = ("bar", "line", "hist")


@dataclass(frozen=True)
class Plot:
    kind: str
    title: str
    x: Sequence[Any] = ()
    series: dict[str, Sequence[float]] = field(default_factory=dict)
    xlabel: str = ""
    ylabel: str = ""

    def __post_init__(self) -> None:
        if self.kind not in PLOT_KINDS:
            raise ValueError(f"unknown plot kind {self.kind!r}; use one of {PLOT_KINDS}")


@dataclass(frozen=True)
class Section:
    heading: str
    text: str = ""
    table: list[dict[str, Any]] | None = None
    plots: list[Plot] = field(default_factory=list)


class PngFigure:
    """One matplotlib figure on the Agg backend (no display needed), as a context manager whose block
    draws on the axes it yields; afterwards `.png` holds the figure as a base64 PNG. The figure is
    closed whatever happens, so a long evaluation never accumulates open figures."""

    def __init__(self, figsize: tuple[float, float]) -> None:
        self.figsize = figsize
        self.png = ""

    def __enter__(self):
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        self._plt = plt
        self._fig, self._ax = plt.subplots(figsize=self.figsize, dpi=100)
        return self._ax

    def __exit__(self, exc_type, exc, tb) -> bool:
        try:
            if exc_type is None:
                self._ax.grid(alpha=0.3)
                self._fig.tight_layout()
                buf = io.BytesIO()
                self._fig.savefig(buf, format="png")
                self.png = base64.b64encode(buf.getvalue()).decode("ascii")
        finally:
            self._plt.close(self._fig)
        return False


def _png(plot: Plot) -> str:
    figure = PngFigure((6.4, 3.6))
    with figure as ax:
        if plot.kind == "bar":
            n = max(len(plot.series), 1)
            width = 0.8 / n
            positions = range(len(plot.x))
            for j, (name, values) in enumerate(plot.series.items()):
                ax.bar([p + j * width - 0.4 + width / 2 for p in positions], list(values), width, label=name)
            ax.set_xticks(list(positions), [str(v) for v in plot.x], rotation=0)
            top = max((v for vals in plot.series.values() for v in vals if math.isfinite(v)), default=1.0)
            ax.set_ylim(0, top * 1.25 if top > 0 else 1.0)  # headroom so the legend never hides a bar
        elif plot.kind == "line":
            for name, values in plot.series.items():
                ax.plot(list(plot.x) if plot.x else range(len(values)), list(values), marker="o", label=name)
        else:
            for name, values in plot.series.items():
                finite = [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
                ax.hist(finite, bins=30, alpha=0.6, label=name)
        ax.set_title(plot.title)
        ax.set_xlabel(plot.xlabel)
        ax.set_ylabel(plot.ylabel)
        if len(plot.series) > 1 or plot.kind == "hist":
            ax.legend(fontsize="small")
    return figure.png


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def table_html(rows: list[dict[str, Any]]) -> str:
    columns: list[str] = []
    for row in rows:
        columns.extend(c for c in row if c not in columns)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_fmt(row.get(c, '')))}</td>" for c in columns) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


STYLE = """
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0;display:block;overflow-x:auto;max-width:100%}td,th{border:1px solid #ccc;padding:.25rem .6rem;text-align:right}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}img{max-width:100%}
pre{background:#f6f6f6;padding:.5rem;overflow-x:auto}
"""


def render_html(title: str, sections: Sequence[Section], meta: dict[str, Any] | None = None) -> str:
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"]
    parts.append(f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>")
    for section in sections:
        parts.append(f"<h2>{html.escape(section.heading)}</h2>")
        if section.text:
            parts.extend(f"<p>{html.escape(p)}</p>" for p in section.text.split("\n\n"))
        if section.table:
            parts.append(table_html(section.table))
        for plot in section.plots:
            parts.append(f"<img alt='{html.escape(plot.title)}' src='data:image/png;base64,{_png(plot)}'>")
    if meta:  # the run's settings and raw figures: there for the record, folded so the tables come first
        parts.append("<details><summary>Run details (settings and raw figures)</summary><pre>"
                     + html.escape(json.dumps(meta, indent=2, sort_keys=True, default=str)) + "</pre></details>")
    parts.append("</body></html>")
    return "\n".join(parts)


def report_data(title: str, sections: Sequence[Section], meta: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"title": title, "meta": meta or {}, "sections": [asdict(s) for s in sections]}


def write_report(
    path: str | os.PathLike[str], title: str, sections: Sequence[Section], meta: dict[str, Any] | None = None
) -> tuple[Path, Path]:
    """Write `<path>.html` and `<path>.json`; return both paths."""
    base = Path(path)
    if base.suffix in (".html", ".json"):
        base = base.with_suffix("")
    base.parent.mkdir(parents=True, exist_ok=True)
    html_path, json_path = base.with_suffix(".html"), base.with_suffix(".json")
    html_path.write_text(render_html(title, sections, meta), encoding="utf-8")
    json_path.write_text(json.dumps(report_data(title, sections, meta), indent=2, default=str), encoding="utf-8")
    return html_path, json_path
