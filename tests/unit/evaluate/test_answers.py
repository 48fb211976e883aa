"""`citebound eval answers` and `citebound.evaluate_answers`: logged RAG answers in RAGAS, DeepEval and own
column names, scored by the real verifier; through the real CLI entry point where it matters."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import citebound
from citebound.cli import main
from citebound.errors import InputError
from citebound.evaluate.answers import (
    bootstrap_ci,
    evaluate_answers,
    parse_mapping,
    supported_text,
    verify_row,
)
from citebound.text.citations import ABSTENTION_SENTENCE
from citebound.verify.checkers import DEFAULT_CHECKER

REFUND = "Refunds are paid within five business days of the return."
EXPRESS = "Express delivery arrives the next business day and costs 12 euros."


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def _jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


RAGAS_ROWS = [
    {"user_input": "How long do refunds take?", "response": f"{REFUND[:-1]} [1]. Express delivery costs 12 euros [2].",
     "retrieved_contexts": [REFUND, EXPRESS], "reference": "Five business days."},
    {"user_input": "How much is express?", "response": "Express delivery costs 15 euros [2]. Refunds take a week [1].",
     "retrieved_contexts": [REFUND, EXPRESS]},
    {"user_input": "Returns?", "response": "Express delivery costs 12 euros. The warehouse is in Lyon.",
     "retrieved_contexts": [REFUND, EXPRESS]},
    {"user_input": "Gift cards?", "response": ABSTENTION_SENTENCE, "retrieved_contexts": [REFUND]},
    {"user_input": "Anything?", "response": "", "retrieved_contexts": [REFUND]},
]


def test_ragas_jsonl_through_the_cli(tmp_path, capsys):
    path = _jsonl(tmp_path / "ragas.jsonl", [*RAGAS_ROWS, "{not json", {"user_input": "q", "response": "x"}])
    code, out, _ = run(["eval", "answers", str(path), "--json", "--no-progress"], capsys)
    assert code == 0
    report = json.loads(out)
    assert report["n"] == 7 and report["n_scored"] == 5 and report["n_errors"] == 2
    assert [e["index"] for e in report["errors"]] == [6, 7]
    assert "line 6: not JSON" in report["errors"][0]["reason"] and "no contexts column" in report["errors"][1]["reason"]
    rows = report["rows"]
    assert [r["label"] for r in rows] == ["faithful", "unfaithful", "partially_faithful", "abstained", "empty"]
    assert [r["faithfulness"] for r in rows] == [1.0, 0.0, 0.5, 1.0, 1.0]
    # the mean is over the three rows with claims: abstained and empty rows are scored, never NaN, not averaged
    assert report["faithfulness"] == pytest.approx(0.5) and report["abstained"] == 1
    assert report["labels"]["empty"] == 1 and report["n_with_claims"] == 3
    lo, hi = report["faithfulness_ci"]
    assert 0.0 <= lo <= 0.5 <= hi <= 1.0
    # with markers: citation figures; the wrong number is named in the claim's reason
    assert rows[0]["mode"] == "cited" and rows[0]["citation_precision"] == 1.0 and rows[0]["citation_recall"] == 1.0
    assert rows[1]["citation_recall"] == 0.0 and "15" in rows[1]["claims"][0]["reason"]
    # without markers: each claim is checked against every context and names the one that supports it
    assert rows[2]["mode"] == "uncited"
    supported, unsupported = rows[2]["claims"]
    assert supported["supporting_contexts"] == ["S2"] and supported["span"] == [0, len(EXPRESS)]
    assert unsupported["label"] == "unsupported" and unsupported["supporting_contexts"] == []


def test_deepeval_csv_with_python_literal_contexts_and_text_output(tmp_path, capsys):
    path = tmp_path / "deepeval.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["input", "actual_output", "retrieval_context", "expected_output"])
        writer.writeheader()  # pandas writes list columns as Python literals: ['a', 'b']
        writer.writerow({"input": "q1", "actual_output": "Express delivery costs 12 euros.",
                         "retrieval_context": repr([REFUND, EXPRESS]), "expected_output": "12 euros"})
        writer.writerow({"input": "q2", "actual_output": "Refunds are paid within ten business days.",
                         "retrieval_context": json.dumps([REFUND]), "expected_output": ""})
    code, out, _ = run(["eval", "answers", str(path), "--no-progress"], capsys)
    assert code == 0
    assert out.splitlines()[0].startswith(f"2 rows: 2 scored, 0 errors; checker {DEFAULT_CHECKER}")
    assert "faithfulness (mean over 2 rows with claims, 95% CI): 0.500" in out
    assert "labels: faithful 1, unfaithful 1" in out


def test_own_columns_with_map_and_id_to_text_contexts(tmp_path, capsys):
    rows = [{"qid": "a", "out": "Refunds are paid within five business days [2].", "docs": {"1": EXPRESS, "2": REFUND}},
            {"qid": "b", "out": "Express delivery costs 12 euros [S1].", "docs": {"1": EXPRESS}}]
    path = _jsonl(tmp_path / "own.jsonl", rows)
    code, out, _ = run(["eval", "answers", str(path), "--json", "--no-progress",
                        "--map", "id=qid,answer=out,contexts=docs"], capsys)
    report = json.loads(out)
    assert code == 0 and [r["id"] for r in report["rows"]] == ["a", "b"]
    assert [r["claims"][0]["source_id"] for r in report["rows"]] == ["2", "1"]
    assert report["faithfulness"] == 1.0
    code, _, err = run(["eval", "answers", str(path), "--map", "colour=out"], capsys)
    assert code == 2 and "unknown field 'colour'" in err


def test_bad_rows_are_counted_with_their_reason_and_the_run_goes_on():
    report = evaluate_answers([
        {"answer": "Refunds take five days.", "contexts": []},
        {"answer": "Refunds take five days.", "contexts": ["Refunds take five days.", 7]},
        {"answer": 42, "contexts": ["x"]},
        {"answer": "Refunds take five days.", "contexts": "Refunds take five days."},  # one context as a string
        InputError("line 9: not JSON"),
    ])
    reasons = [e["reason"] for e in report.errors]
    assert reasons == ["the row has no contexts (empty list or blank texts)", "context S2 is not text (int)",
                       "the answer is not text (int)", "line 9: not JSON"]
    assert report.to_dict()["n"] == 5 and len(report.rows) == 1 and report.rows[0]["label"] == "faithful"


def test_no_rows_gives_no_mean_not_nan():
    report = evaluate_answers([])
    data = report.to_dict()
    assert data["n"] == 0 and data["faithfulness"] is None and data["faithfulness_ci"] is None and data["rows"] == []


def test_public_api_and_the_model_checker():
    assert citebound.evaluate_answers is evaluate_answers
    report = evaluate_answers([{"response": "Express delivery costs 12 euros.", "retrieved_contexts": [EXPRESS]},
                               {"response": "Express delivery costs 20 euros.", "retrieved_contexts": [EXPRESS]}],
                              checker="full")
    assert report.checker == "full" and [r["label"] for r in report.rows] == ["faithful", "unfaithful"]


def test_bootstrap_is_seeded_and_brackets_the_mean():
    values = [0.0, 0.5, 1.0, 1.0, 0.25, 0.75, 1.0, 0.0]
    assert bootstrap_ci(values) == bootstrap_ci(values)
    lo, hi = bootstrap_ci(values)
    assert lo < sum(values) / len(values) < hi
    assert bootstrap_ci([0.4] * 5) == (0.4, 0.4) and bootstrap_ci([]) is None


def test_supported_text_and_mapping():
    row = verify_row(f"{REFUND[:-1]} [1]. Refunds are paid within ten days [1]. Express delivery costs 12 euros [2].",
                     [REFUND, EXPRESS])
    assert supported_text(row) == f"{REFUND[:-1]} [1]. Express delivery costs 12 euros [2]."
    assert supported_text(verify_row("The warehouse is in Lyon.", [REFUND])) == ABSTENTION_SENTENCE
    assert parse_mapping("answer=out, contexts=docs") == {"answer": "out", "contexts": "docs"}
    with pytest.raises(InputError):
        parse_mapping("answer")


def test_html_report_worst_rows_first_escaped_and_highlighted(tmp_path, capsys):
    rows = [*RAGAS_ROWS, {"user_input": "<b>xss</b>?", "response": "The page says <script>alert(1)</script> hi there.",
                          "retrieved_contexts": ["<script>alert(1)</script> is not text & never runs."]}]
    path = _jsonl(tmp_path / "ragas.jsonl", rows)
    html_path = tmp_path / "out" / "report.html"
    code, _, err = run(["eval", "answers", str(path), "--html", str(html_path), "--no-progress"], capsys)
    assert code == 0 and f"report: {html_path}" in err
    page = html_path.read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;b&gt;xss" in page
    assert page.count("data:image/png;base64,") == 2  # faithfulness distribution, rows per label
    worst = page.split("Worst rows first", 1)[1]
    order = [worst.index(f"<h3>row {i} ") for i in (2, 3, 1)]  # 0.0, 0.5, then 1.0
    assert order == sorted(order)
    assert "<mark class='unsupported'" in worst and "Express delivery costs 15 euros" in worst
    assert f"<mark class='evidence' title='Express delivery costs 12 euros.'>{EXPRESS}</mark>" in worst


def test_objects_with_ragas_or_deepeval_fields_are_rows():
    from dataclasses import dataclass

    from pydantic import BaseModel

    class Sample(BaseModel):  # the shape of RAGAS's SingleTurnSample
        user_input: str
        response: str
        retrieved_contexts: list[str]

    @dataclass
    class Case:  # the shape of DeepEval's LLMTestCase
        input: str
        actual_output: str
        retrieval_context: list[str]

    report = evaluate_answers([Sample(user_input="q", response="Express delivery costs 12 euros.",
                                      retrieved_contexts=[EXPRESS]),
                               Case("q", "Express delivery costs 20 euros.", [EXPRESS]), 42])
    assert [r["label"] for r in report.rows] == ["faithful", "unfaithful"]
    assert report.errors == [{"index": 3, "id": None, "reason": "row is not an object (int)"}]


def test_other_systems_abstentions(tmp_path, capsys):
    rows = [{"response": "I don't know.", "retrieved_contexts": [EXPRESS]},
            {"response": "The context does not say.", "retrieved_contexts": [EXPRESS]}]
    path = _jsonl(tmp_path / "abstain.jsonl", rows)
    code, out, _ = run(["eval", "answers", str(path), "--json", "--no-progress"], capsys)
    assert code == 0 and [r["label"] for r in json.loads(out)["rows"]] == ["abstained", "unfaithful"]
    code, out, _ = run(["eval", "answers", str(path), "--json", "--no-progress",
                        "--abstention", "The context does not say."], capsys)
    report = json.loads(out)
    assert [r["label"] for r in report["rows"]] == ["abstained", "abstained"] and report["abstained"] == 2
    assert report["faithfulness"] is None and report["abstention_rate"] == 1.0
