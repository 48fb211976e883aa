from __future__ import annotations

import base64
import json

import pytest

from citebound.evaluate.report import Plot, Section, write_report


def test_report_writes_html_with_embedded_pngs_and_the_same_data_as_json(tmp_path):
    sections = [
        Section("Summary", text="Gain: linear.\n\nSecond paragraph.", table=[{"mode": "bm25", "ndcg@10": 0.5}, {"mode": "dense", "ndcg@10": 0.25}]),
        Section("Plots", plots=[
            Plot("bar", "nDCG", x=["bm25", "dense"], series={"ndcg@10": [0.5, 0.25]}),
            Plot("line", "curve", x=[1, 2, 3], series={"a": [0.1, 0.2, 0.3], "b": [0.3, 0.2, 0.1]}),
            Plot("hist", "spread", series={"a": [0.1, 0.5, 0.5, float("nan")]}),
        ]),
    ]
    html_path, json_path = write_report(tmp_path / "out" / "r.html", "A <title>", sections, meta={"command": "x"})
    assert html_path.name == "r.html" and json_path.name == "r.json"
    page = html_path.read_text()
    assert "A &lt;title&gt;" in page and "<td>0.5000</td>" in page
    images = page.split("data:image/png;base64,")[1:]
    assert len(images) == 3
    assert base64.b64decode(images[0].split("'")[0])[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads(json_path.read_text())
    assert data["title"] == "A <title>" and data["meta"] == {"command": "x"}
    assert data["sections"][1]["plots"][0]["series"] == {"ndcg@10": [0.5, 0.25]}


def test_unknown_plot_kind_is_refused():
    with pytest.raises(ValueError):
        Plot("pie", "no")
