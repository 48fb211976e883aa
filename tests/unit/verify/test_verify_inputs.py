"""Reading answers and sources defensively (the library side of `citebound verify`)."""

from __future__ import annotations

import pytest

from citebound.errors import InputError, SchemaError
from citebound.verify.inputs import check_known_sources, parse_answer, parse_sources, read_text
from citebound.verify.schema import GroundedAnswer


def test_sources_as_an_object_or_as_json_lines():
    assert parse_sources('{"S1": "a", "2": "b"}') == {"S1": "a", "2": "b"}
    assert parse_sources('{"id": "S1", "text": "a"}\n\n{"id": 2, "text": "b"}\n') == {"S1": "a", "2": "b"}


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        ("{}", "no sources"),
        ('{"id": "S1", "text": "a"}\n{"id": "S1", "text": "b"}', "duplicate source id"),
        ('{"id": "S1"}', "expected"),
        ('{"S1": ["a"]}', "must be a string"),
        ("not json", "not valid JSON"),
    ],
)
def test_bad_sources(text, message):
    with pytest.raises(InputError, match=message):
        parse_sources(text)


def test_answer_text_or_grounded_answer_json():
    assert parse_answer("Plain [1].") == "Plain [1]."
    parsed = parse_answer('{"answer": "x [S1].", "citations": [{"source_id": "S1", "quote": "x"}]}')
    assert isinstance(parsed, GroundedAnswer)
    with pytest.raises(SchemaError):
        parse_answer('{"answer": "x"}')
    with pytest.raises(InputError, match="empty"):
        parse_answer(" \n")


def test_structured_citation_to_an_unknown_source_is_refused():
    answer = GroundedAnswer(answer="x [S9].", citations=[{"source_id": "S9", "quote": "x"}])
    with pytest.raises(InputError, match="S9"):
        check_known_sources(answer, {"S1": "x"})
    check_known_sources(GroundedAnswer(answer="x [S1].", citations=[{"source_id": "S1", "quote": "x"}]), {"1": "x"})


def test_read_text_refuses_binary_non_utf8_and_oversize(tmp_path):
    (tmp_path / "b").write_bytes(b"abc\x00def")
    (tmp_path / "l").write_bytes("café".encode("latin-1"))
    (tmp_path / "big").write_text("x" * 101)
    (tmp_path / "bom").write_bytes("\ufeffhello".encode("utf-8"))
    with pytest.raises(InputError, match="binary"):
        read_text(tmp_path / "b", max_bytes=None, what="answer")
    with pytest.raises(InputError, match="not UTF-8"):
        read_text(tmp_path / "l", max_bytes=None, what="answer")
    with pytest.raises(InputError, match="larger than"):
        read_text(tmp_path / "big", max_bytes=100, what="answer")
    assert read_text(tmp_path / "bom", max_bytes=None, what="answer") == "hello"


def test_read_text_takes_a_pipe_and_names_a_folder_or_missing_path(tmp_path):
    """`--sources <(cmd)` hands over a FIFO, which has no size to stat: it must still be read, and capped."""
    import os
    import threading

    fifo = tmp_path / "sources.fifo"
    os.mkfifo(fifo)
    payload = '{"S1": "Employees get 25 days of paid leave."}'

    def write():
        with open(fifo, "w", encoding="utf-8") as fh:
            fh.write(payload)

    writer = threading.Thread(target=write)
    writer.start()
    assert read_text(fifo, max_bytes=1000, what="sources") == payload
    writer.join(timeout=5)

    with pytest.raises(InputError, match="is a folder"):
        read_text(tmp_path, max_bytes=None, what="answer")
    with pytest.raises(InputError, match="does not exist"):
        read_text(tmp_path / "nope.json", max_bytes=None, what="sources")
