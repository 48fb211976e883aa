from __future__ import annotations

import json
from pathlib import Path

import pytest

from citebound.errors import InputError
from citebound.kb import KnowledgeBase
from citebound.retrieval import Retriever
from citebound.retrieval.calibrate import calibrate_retrieval

PARAGRAPHS = {
    "p1": "The Amazon river flows through Brazil, Peru and Colombia into the Atlantic Ocean.",
    "p2": "Mount Kilimanjaro in Tanzania is the highest mountain in Africa.",
    "p3": "The Great Barrier Reef lies off the coast of Queensland in Australia.",
}
QUESTIONS = [
    ("Which ocean does the Amazon river flow into?", True),
    ("What is the highest mountain in Africa?", True),
    ("Where is the Great Barrier Reef?", True),
    ("Who composed the Moonlight Sonata?", False),
    ("What is the boiling point of ethanol?", False),
    ("When did the Berlin Wall fall?", False),
]


@pytest.fixture
def qa_dir(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("CITEBOUND_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "qa" / "dev"
    root.mkdir(parents=True)
    with (root / "corpus.jsonl").open("w") as fh:
        for pid, text in PARAGRAPHS.items():
            fh.write(json.dumps({"_id": pid, "title": "", "text": text}) + "\n")
    with (root / "questions.jsonl").open("w") as fh:
        for i, (q, a) in enumerate(QUESTIONS):
            fh.write(json.dumps({"id": str(i), "question": q, "answerable": a}) + "\n")
    return root


def test_calibration_learns_a_separating_threshold_and_stores_it_in_the_kb(qa_dir, tmp_path):
    target = tmp_path / "user-kb"
    cal = calibrate_retrieval(qa_dir, target, mode="bm25", k=3, progress=False)
    assert cal.objective == "balanced_accuracy" and cal.questions == 6
    assert cal.objective_value == 1.0 and cal.auc == 1.0  # off-topic questions match no word here
    with KnowledgeBase.open(target) as kb:
        stored = kb.get_json("abstain_threshold")["bm25"]
        assert stored["threshold"] == cal.threshold and stored["k"] == 3
        # BM25 scores depend on the corpus (idf, lengths), so the user's KB here holds the same paragraphs
        kb.ingest([qa_dir / "corpus.jsonl"], progress=False)
        r = Retriever(kb, mode="bm25")
        assert r.should_abstain(r.retrieve("Which ocean does the Amazon river flow into?", k=3)) is False
        assert r.should_abstain(r.retrieve("When did the Berlin Wall fall?", k=3)) is True


def test_calibration_needs_both_classes(qa_dir, tmp_path):
    lines = (qa_dir / "questions.jsonl").read_text().splitlines()
    (qa_dir / "questions.jsonl").write_text("\n".join(l for l in lines if '"answerable": true' in l) + "\n")
    with pytest.raises(InputError, match="both answerable and unanswerable"):
        calibrate_retrieval(qa_dir, tmp_path / "kb", mode="bm25", progress=False)
