from __future__ import annotations

import json
from pathlib import Path

import pytest

CORPUS = {
    "d1": ("Vitamin C", "Scurvy is caused by a lack of vitamin C in the diet."),
    "d2": ("Paris", "Paris is the capital of France and its largest city."),
    "d3": ("Owls", "Owls hunt small mammals at night with silent flight."),
    "d4": ("Bees", "Honey bees turn nectar into honey inside the hive."),
    "d5": ("Citrus", "Lemons and oranges are citrus fruits rich in vitamin C."),
}
QUERIES = {"q1": "What causes scurvy?", "q2": "capital city of France", "q3": "which fruits contain vitamin C", "q9": "unjudged"}
QRELS = [("q1", "d1", 2), ("q1", "d5", 1), ("q2", "d2", 1), ("q3", "d5", 1)]


@pytest.fixture
def beir_dir(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("CITEBOUND_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "tiny"
    (root / "qrels").mkdir(parents=True)
    with (root / "corpus.jsonl").open("w") as fh:
        for doc_id, (title, text) in CORPUS.items():
            fh.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    with (root / "queries.jsonl").open("w") as fh:
        for qid, text in QUERIES.items():
            fh.write(json.dumps({"_id": qid, "text": text}) + "\n")
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t{s}\n" for q, d, s in QRELS)
    )
    return root
