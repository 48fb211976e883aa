import json
from pathlib import Path

import pytest

from citebound.evaluate.qa_eval import contains_answer, evaluate_qa, score_rows
from citebound.evaluate.qa_report import QaReport, QaSettings, format_text, write_html

RESULTS = Path(__file__).resolve().parents[3] / "bench" / "results"


def test_contains_answer_is_whole_word_and_normalized():
    assert contains_answer("It happened in the 10th and 11th centuries [1].", ["10th and 11th centuries"])
    assert contains_answer("Café Müller opened.", ["cafe muller"])
    assert not contains_answer("It cost 150 euros.", ["50"])
    assert not contains_answer("Anything.", [])


SETTINGS = QaSettings(data="qa/tiny", split="tiny", backend="extractive", backend_options={"signal": "answerability"},
                      checker="deterministic", k=5, retrieval="hybrid", extractive_threshold=0.5, seconds=1.0,
                      kb_revision=1)


def _row(answerable, abstained, confidence, evidence, answer="", answers=(), cited=(), retrieved=("p1",)):
    return {"id": "q", "question": "?", "context_id": "p1", "answerable": answerable, "answers": list(answers),
            "pipeline_abstained": abstained, "abstain_reason": None, "answer": answer, "confidence": confidence,
            "best_dense": evidence, "cited_docs": list(cited), "retrieved_docs": list(retrieved),
            "groundedness": None if abstained else 1.0, "citation_precision": None if abstained else 1.0,
            "citation_recall": None if abstained else 1.0, "n_claims": 0 if abstained else 1, "n_removed": 0}


ROWS = [
    _row(True, False, 0.9, 0.8, "It boils in three minutes [S1].", ["three minutes"], ["p1"]),  # answered, right
    _row(True, False, 0.4, 0.7, "It is steel [S1].", ["three minutes"], ["p1"]),  # under the threshold 0.5
    _row(False, False, 0.6, 0.3, "Helsinki [S1].", [], ["p1"]),  # answered an unanswerable one
    _row(False, True, None, 0.2),  # abstained on an unanswerable one
]


def test_score_rows_hand_worked():
    r = score_rows([dict(x) for x in ROWS], SETTINGS, baseline_threshold=0.5)
    assert (r.questions, r.answerable, r.unanswerable, r.answered) == (4, 2, 2, 2)
    assert r.answer_recall == 0.5 and r.citation_accuracy == 0.5 and r.coverage == 0.5
    # abstained on: q2 (answerable: fp), q4 (tp); answered q3 (unanswerable: fn)
    assert (r.abstention.tp, r.abstention.fp, r.abstention.fn) == (1, 1, 1) and r.abstention.f1 == 0.5
    # baseline abstains below 0.5: q3, q4 (both tp)
    assert (r.baseline.abstention.tp, r.baseline.abstention.fp, r.baseline.abstention.fn) == (2, 0, 0)
    assert r.auroc_answerable.baseline == 1.0  # evidence 0.8, 0.7 vs 0.3, 0.2
    # system confidence 0.9 (right), 0.6 (wrong), 0.4 (wrong), -inf: risks 0, 1/2, 2/3 over 4 questions
    assert r.aurc.system == round((0 + 1 / 2 + 2 / 3) / 4, 4)


def test_the_json_keeps_the_keys_the_docs_quote():
    """`eval qa --json` and the HTML report's JSON keep the keys of bench/results/qa_squad2_test.json."""
    saved = json.loads((RESULTS / "qa_squad2_test.json").read_text())["meta"]
    d = score_rows([dict(x) for x in ROWS], SETTINGS).to_dict()
    assert [k for k in d if k != "risk_coverage"] == list(saved)  # same keys, same order
    assert set(d["risk_coverage"]) == {"system", "baseline"}
    for key in ("abstention", "baseline", "auroc_answerable", "aurc"):
        assert d[key].keys() == saved[key].keys()
    assert d["baseline"]["abstention"].keys() == saved["baseline"]["abstention"].keys()
    assert QaReport.from_dict(json.loads(json.dumps(d))) == score_rows([dict(x) for x in ROWS], SETTINGS)


def test_the_saved_test_report_renders_back_to_its_own_figures():
    saved = json.loads((RESULTS / "qa_squad2_test.json").read_text())["meta"]
    report = QaReport.from_dict({**saved, "risk_coverage": {"system": [], "baseline": []}})
    assert {k: v for k, v in report.to_dict().items() if k != "risk_coverage"} == saved
    text = format_text(report)
    assert "F1 0.5743" in text and "AUROC answerable-vs-not: system 0.7183" in text


def test_html_and_json_render_the_same_report(tmp_path):
    report = score_rows([dict(x) for x in ROWS], SETTINGS)
    html, js = write_html(report, tmp_path / "report")
    data = json.loads(js.read_text())
    assert data["title"] == "Grounded QA — tiny" and "<img" in html.read_text()
    assert data["meta"] == {k: v for k, v in json.loads(json.dumps(report.to_dict())).items() if k != "risk_coverage"}
    assert data["sections"][1]["table"][0]["f1"] == report.abstention.f1


@pytest.mark.slow
def test_eval_qa_end_to_end_on_a_tiny_split(tmp_path, monkeypatch):
    monkeypatch.setenv("CITEBOUND_CACHE", str(tmp_path / "cache"))
    data = tmp_path / "tiny"
    data.mkdir()
    corpus = [
        {"_id": "kettle#0", "title": "Kettle", "text": "The Lumen kettle boils one litre of water in three minutes. "
                                                       "It is made of brushed steel."},
        {"_id": "grinder#0", "title": "Grinder", "text": "The Lumen grinder has forty grind settings. "
                                                         "Its burrs are made of ceramic."},
    ]
    questions = [
        {"id": "q1", "question": "How long does the Lumen kettle take to boil a litre of water?",
         "context_id": "kettle#0", "answerable": True, "answers": ["three minutes"]},
        {"id": "q2", "question": "How many grind settings does the Lumen grinder have?",
         "context_id": "grinder#0", "answerable": True, "answers": ["forty"]},
        {"id": "q3", "question": "Who was the first president of Finland?",
         "context_id": "kettle#0", "answerable": False, "answers": []},
    ]
    (data / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus))
    (data / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in questions))
    # The default signal (the learned answerability model) on the same split: the unanswerable question
    # is abstained on and the kettle question answered. (Its score for the grinder question, 0.53, sits
    # just under its threshold: a known weak spot, see citebound/models/answerability/README.md.)
    learned = evaluate_qa(data, progress=False).report
    assert learned.settings.backend_options["signal"] == "answerability"
    assert learned.abstention.recall == 1.0 and learned.answer_recall >= 0.5
    # The exact figures below check the metric plumbing, on the deterministic relevance signal.
    result = evaluate_qa(data, progress=False, rows_out=tmp_path / "rows.jsonl",
                         backend_options={"signal": "relevance"})
    s = result.report
    assert s.settings.split == "tiny" and s.questions == 3 and s.answerable == 2
    assert s.answer_recall == 1.0 and s.citation_accuracy == 1.0
    assert s.groundedness == 1.0 and s.citation_precision == 1.0
    assert s.abstention.recall == 1.0 and s.abstention.f1 == 1.0
    assert 0.0 <= s.baseline.abstention.f1 <= 1.0
    assert len((tmp_path / "rows.jsonl").read_text().splitlines()) == 3
    html, js = write_html(s, tmp_path / "report.html")
    assert "<img" in html.read_text() and json.loads(js.read_text())["title"].endswith("tiny")


def test_eval_qa_reads_a_documents_json_split(tmp_path, monkeypatch):
    """A split whose documents are HTML files read where they are installed (bench/data/techdocs):
    ingested as `citebound ingest` ingests a folder, a question's context_id is its page path."""
    monkeypatch.setenv("CITEBOUND_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "installed" / "html"
    (root / "library").mkdir(parents=True)
    (root / "library" / "kettle.html").write_text(
        "<html><body><h1>Kettle</h1><p>The Lumen kettle boils one litre of water in three minutes. "
        "It is made of brushed steel.</p></body></html>")
    (root / "library" / "grinder.html").write_text(
        "<html><body><h1>Grinder</h1><p>The Lumen grinder has forty grind settings. "
        "Its burrs are made of ceramic.</p></body></html>")
    (root / "unlisted.html").write_text("<p>Never ingested: not in documents.json.</p>")
    data = tmp_path / "docs" / "dev"
    data.mkdir(parents=True)
    (data / "documents.json").write_text(json.dumps(
        {"name": "manual", "root": str(root), "pages": ["library/kettle.html", "library/grinder.html"]}))
    questions = [
        {"id": "q1", "question": "How long does the Lumen kettle take to boil a litre of water?",
         "context_id": "library/kettle.html", "answerable": True, "answers": ["three minutes"]},
        {"id": "q2", "question": "Who was the first president of Finland?",
         "context_id": "library/grinder.html", "answerable": False, "answers": []},
    ]
    (data / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in questions))
    result = evaluate_qa(data, progress=False, backend_options={"signal": "relevance"})
    r = result.report
    assert r.questions == 2 and r.answer_recall == 1.0 and r.citation_accuracy == 1.0
    assert result.rows[0]["context_id"] == "manual/library/kettle.html"
    assert all(d.startswith("manual/library/") for row in result.rows for d in row["retrieved_docs"])
    assert r.latency_ms is not None and r.latency_ms.n == 2 and r.latency_ms.p50 <= r.latency_ms.p95
    assert "latency:" in format_text(r) and QaReport.from_dict(r.to_dict()).latency_ms == r.latency_ms
