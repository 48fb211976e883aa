"""The one reader of labelled QA folders."""

import json

import pytest

from citebound.datasets import load_questions, require_corpus
from citebound.errors import InputError


def test_rows_are_normalised_and_limited(tmp_path):
    (tmp_path / "questions.jsonl").write_text(
        '{"id": 7, "question": "Who?", "context_id": "p1", "answerable": 1, "answers": ["Ann", 3]}\n\n'
        '{"question": "Where?", "answerable": false}\n'
        '{"question": "When?", "answerable": true}\n'
    )
    rows = load_questions(tmp_path, limit=2)
    assert rows == [
        {"id": "7", "question": "Who?", "context_id": "p1", "answerable": True, "answers": ["Ann", "3"]},
        {"id": "3", "question": "Where?", "context_id": None, "answerable": False, "answers": []},  # id = line
    ]


def test_bad_rows_and_missing_files_are_input_errors(tmp_path):
    (tmp_path / "questions.jsonl").write_text('{"id": 1, "question": "q"}\n')
    with pytest.raises(InputError, match="questions.jsonl:1"):
        load_questions(tmp_path)
    with pytest.raises(InputError, match="questions.jsonl is missing"):
        load_questions(tmp_path / "missing")
    with pytest.raises(InputError, match="corpus.jsonl is missing"):
        require_corpus(tmp_path)
    (tmp_path / "corpus.jsonl").write_text("")
    assert require_corpus(tmp_path) == tmp_path / "corpus.jsonl"


def test_a_documents_json_lists_installed_pages(tmp_path):
    from citebound.datasets import DocumentSet, load_document_set, qa_documents

    root = tmp_path / "html"
    (root / "library").mkdir(parents=True)
    (root / "library" / "json.html").write_text("<p>JSON</p>")
    data = tmp_path / "split"
    data.mkdir()
    spec = {"name": "python3.11-doc", "package": "python3.11-doc", "root": str(root), "pages": ["library/json.html"]}
    (data / "documents.json").write_text(json.dumps(spec))
    docs = qa_documents(data)
    assert isinstance(docs, DocumentSet) and docs.paths() == [root / "library" / "json.html"]
    assert docs.doc_id("library/json.html") == "python3.11-doc/library/json.html"
    spec["pages"].append("library/csv.html")
    (data / "documents.json").write_text(json.dumps(spec))
    with pytest.raises(InputError, match=r"1 of 2 pages not found .*apt-get install python3.11-doc"):
        load_document_set(data)
    for bad in ({"name": "x", "root": str(root), "pages": ["../secret.html"]}, {"name": "x"}, []):
        (data / "documents.json").write_text(json.dumps(bad))
        with pytest.raises(InputError, match="documents.json"):
            load_document_set(data)
