"""The one split rule, on the real techdocs dev set: the pages the answerability model may train on and
the pages held out for choosing never overlap, and the held-out pages are the ones docs/benchmarks.md names."""

import json
from pathlib import Path

from citebound.evaluate.splits import is_calibration_paragraph

TECHDOCS_DEV = Path(__file__).resolve().parents[3] / "bench" / "data" / "techdocs" / "dev"


def test_techdocs_dev_is_split_by_page():
    rows = [json.loads(line) for line in (TECHDOCS_DEV / "questions.jsonl").read_text().splitlines() if line.strip()]
    held = {r["context_id"] for r in rows if is_calibration_paragraph(r["context_id"], "techdocs")}
    fit = {r["context_id"] for r in rows if not is_calibration_paragraph(r["context_id"], "techdocs")}
    assert held == {"library/heapq.html", "library/random.html", "library/secrets.html", "tutorial/venv.html"}
    assert not held & fit
    held_rows = [r for r in rows if r["context_id"] in held]
    assert (len(held_rows), sum(r["answerable"] for r in held_rows)) == (35, 24)


def test_the_rule_depends_on_the_dataset_name():
    # the same key falls on different sides for another dataset's rule: each set has its own split
    pages = json.loads((TECHDOCS_DEV / "documents.json").read_text())["pages"]
    assert [is_calibration_paragraph(p, "techdocs") for p in pages] != [is_calibration_paragraph(p) for p in pages]
