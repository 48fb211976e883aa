import json
import math

import pytest

from citebound.errors import InputError
from citebound.evaluate.qa_eval import (
    abstention_scores,
    aurc,
    contains_answer,
    evaluate_qa,
    load_questions,
    risk_coverage,
    write_html,
)


def test_contains_answer_is_whole_word_and_normalized():
    assert contains_answer("It happened in the 10th and 11th centuries [1].", ["10th and 11th centuries"])
    assert contains_answer("Café Müller opened.", ["cafe muller"])
    assert not contains_answer("It cost 150 euros.", ["50"])
    assert not contains_answer("Anything.", [])


def test_abstention_scores_treat_unanswerable_as_positive():
    # abstained on: unanswerable (tp), answerable (fp); answered an unanswerable one (fn)
    s = abstention_scores([True, True, False, False], [False, True, False, True])
    assert (s["tp"], s["fp"], s["fn"]) == (1, 1, 1)
    assert s["precision"] == 0.5 and s["recall"] == 0.5 and s["f1"] == 0.5
    nothing = abstention_scores([False, False], [False, True])
    assert nothing["precision"] == 0.0 and nothing["recall"] == 0.0 and nothing["f1"] == 0.0


def test_risk_coverage_and_aurc_on_a_hand_worked_case():
    conf = [0.9, 0.8, 0.3, -math.inf]
    right = [True, False, True, False]
    points = risk_coverage(conf, right, points=3)
    by_cov = {round(p["coverage"], 2): round(p["risk"], 3) for p in points}
    assert by_cov[0.75] == round(1 / 3, 3)  # threshold 0.3: three answered, one wrong
    assert by_cov[0.25] == 0.0  # threshold 0.9: only the right one
    assert by_cov[0.0] == 0.0
    # AURC: risks at depth 1..3 = 0, 1/2, 1/3, divided by all 4 questions
    assert aurc(conf, right) == pytest.approx((0 + 0.5 + 1 / 3) / 4)


def test_load_questions_rejects_bad_rows(tmp_path):
    (tmp_path / "corpus.jsonl").write_text('{"_id": "a", "title": "A", "text": "x"}\n')
    (tmp_path / "questions.jsonl").write_text('{"id": 1, "question": "q"}\n')
    with pytest.raises(InputError, match="questions.jsonl:1"):
        load_questions(tmp_path)
    with pytest.raises(InputError):
        load_questions(tmp_path / "missing")


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
    learned = evaluate_qa(data, progress=False).summary
    assert learned["backend_options"]["signal"] == "answerability"
    assert learned["abstention"]["recall"] == 1.0 and learned["answer_recall"] >= 0.5
    # The exact figures below check the metric plumbing, on the deterministic relevance signal.
    result = evaluate_qa(data, progress=False, rows_out=tmp_path / "rows.jsonl",
                         backend_options={"signal": "relevance"})
    s = result.summary
    assert s["split"] == "tiny" and s["questions"] == 3 and s["answerable"] == 2
    assert s["answer_recall"] == 1.0 and s["citation_accuracy"] == 1.0
    assert s["groundedness"] == 1.0 and s["citation_precision"] == 1.0
    assert s["abstention"]["recall"] == 1.0 and s["abstention"]["f1"] == 1.0
    assert set(s["baseline"]["abstention"]) >= {"precision", "recall", "f1"}
    assert len((tmp_path / "rows.jsonl").read_text().splitlines()) == 3
    html, js = write_html(result, tmp_path / "report.html")
    assert "<img" in html.read_text() and json.loads(js.read_text())["title"].endswith("tiny")
