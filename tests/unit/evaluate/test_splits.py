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


# -- claims/ dev: the grouped rule keeps a document (or a climate claim) on one side ------------------------
import hashlib  # noqa: E402

import pytest  # noqa: E402

from citebound.evaluate.splits import calibration_ids, claim_groups, is_calibration_row  # noqa: E402
from tests.helpers.shared_data import SHARED, need  # noqa: E402

CLAIM_SETS = ["scifact", "wice", "climate_fever", "summedits", "qags"]


def _dev(name: str) -> list[tuple[str, str, str, str]]:
    path = need(SHARED / "claims" / name / "dev.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [(r["id"], r["claim"], r["evidence"], r["label"]) for r in rows]


def test_rows_sharing_a_source_or_a_claim_are_one_group():
    rows = [("a", "Refunds take five days.", "Policy text."), ("b", "Refunds take ten days.", "Policy text."),
            ("c", "Shipping is free.", "Other text."), ("d", "Shipping is free.", "Third text."),
            ("e", "Unrelated.", "Fourth text.")]  # fmt: skip
    groups = claim_groups("handbook", rows)
    assert groups == {"a": "a", "b": "a", "c": "c", "d": "c", "e": "e"}
    # a set whose sources recur under many claims is linked by the claim alone
    assert claim_groups("climate_fever", rows)["b"] == "b"


@pytest.mark.parametrize("name", CLAIM_SETS)
def test_no_claim_or_source_is_on_both_sides_of_a_real_dev_set(name):
    rows = _dev(name)
    held = calibration_ids(name, [r[:3] for r in rows])
    cal = [r for r in rows if r[0] in held]
    fit = [r for r in rows if r[0] not in held]
    assert cal and fit and len(cal) + len(fit) == len(rows)
    assert not {r[1] for r in cal} & {r[1] for r in fit}
    if name != "climate_fever":  # its Wikipedia sentences recur under other claims (documented in splits.py)
        assert not {r[2] for r in cal} & {r[2] for r in fit}
    # both sides hold both labels and neither side is tiny
    assert {r[3] for r in cal} == {r[3] for r in fit} == {"supported", "unsupported"}
    assert 0.3 < len(cal) / len(rows) < 0.7


def test_the_row_rule_is_the_rule_of_the_models_trained_before():
    rows = _dev("summedits")
    held = calibration_ids("summedits", [r[:3] for r in rows], "row")
    assert held == {r[0] for r in rows if is_calibration_row("summedits", r[0])}
    assert held == {r[0] for r in rows if hashlib.sha1(f"summedits:{r[0]}".encode()).digest()[0] % 2 == 0}
    # and it is why the grouped rule exists: every summedits calibration row's document is also a fit row's
    fit_sources = {r[2] for r in rows if r[0] not in held}
    assert all(r[2] in fit_sources for r in rows if r[0] in held)


def test_an_unknown_rule_is_an_error():
    with pytest.raises(ValueError, match="unknown split rule"):
        calibration_ids("wice", [("a", "c", "s")], "by-vibes")
