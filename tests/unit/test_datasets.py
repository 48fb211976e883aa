"""The one reader of labelled QA folders."""

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
