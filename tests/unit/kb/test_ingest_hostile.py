"""Hostile input to `ingest` (issue 11): every bad document is skipped with its reason, the rest goes in."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from citebound.errors import InputError
from citebound.kb import KnowledgeBase
from citebound.kb.chunk import ChunkSettingsError, chunk_spans
from citebound.kb.ingest import RawDocument, collect
from citebound.kb.ingest.text import decode_text


def _reasons(report) -> dict[str, str]:
    return {s.source: s.reason for s in report.skipped}


def test_jsonl_rows_that_cannot_be_documents_are_skipped_and_the_rest_goes_in(tmp_path: Path, kb: KnowledgeBase):
    corpus = tmp_path / "rows.jsonl"
    corpus.write_bytes(
        b'{"_id": "good1", "text": "Aspirin reduces the risk of heart attack."}\n'
        b'{"_id": "surrogate", "text": "broken \\ud800 text"}\n'  # a JSON escape Python keeps, UTF-8 cannot store
        b'{"_id": null, "text": "A row whose id is null must not become a document named None."}\n'
        b'{"_id": ' + b"9" * 5000 + b', "text": "An id of five thousand digits."}\n'
        + b"[" * 100_000 + b"\n"
        b'{"_id": "badtitle", "title": 5, "text": "The title is a number."}\n'
        b'{"_id": "latin1", "text": "caf\xe9"}\n'  # not UTF-8
        b'{"_id": "", "text": "Empty id."}\n'
        b'{"_id": 7, "text": "Integer ids are fine and become the text 7."}\n'
        b'{"_id": "good2", "text": "Metformin is a first-line drug for type 2 diabetes."}\n'
    )
    report = kb.ingest(corpus, progress=False)
    assert sorted(report.added) == ["7", "good1", "good2"]
    reasons = " | ".join(s.reason for s in report.skipped)
    assert len(report.skipped) == 7
    for expected in (":2: text is not valid Unicode", ":3: _id must be a string or an integer, not null",
                     ":4: malformed JSON (Exceeds the limit (4300 digits)", ":5: malformed JSON (nested too deeply)",
                     ":6: title must be a string", ":7: not UTF-8 text", ":8: _id is empty"):
        assert expected in reasons, expected
    assert "None" not in [d.doc_id for d in kb.documents()]


def test_a_lone_surrogate_in_a_document_handed_to_the_store_skips_only_that_document(kb: KnowledgeBase):
    docs = [RawDocument("a", "Alpha is the first letter.", "mem:a"),
            RawDocument("b", "Beta \ud800 is broken.", "mem:b"),
            RawDocument("c\udcff", "Gamma has a broken id.", "mem:c"),
            RawDocument("d", "Delta is the fourth letter.", "mem:d")]
    report = kb.ingest_documents(docs, progress=False)
    assert sorted(report.added) == ["a", "d"]
    assert _reasons(report) == {"mem:b": "text is not valid Unicode (a lone surrogate at character 5)",
                                "mem:c": "document id is not valid Unicode (a lone surrogate at character 1)"}
    assert kb.document_text("d") == "Delta is the fourth letter."


def test_a_document_that_fails_inside_the_transaction_is_rolled_back_alone(kb: KnowledgeBase):
    # Text is checked before the transaction; a value SQLite cannot bind fails inside it.
    docs = [RawDocument("a", "Alpha is the first letter.", "mem:a"),
            RawDocument("b", "Beta is the second letter.", object()),  # type: ignore[arg-type]
            RawDocument("c", "Gamma is the third letter.", "mem:c")]
    report = kb.ingest_documents(docs, progress=False)
    assert sorted(report.added) == ["a", "c"] and len(report.skipped) == 1
    assert report.skipped[0].reason.startswith("not stored:")
    assert [d.doc_id for d in kb.documents()] == ["a", "c"]
    assert kb.versions("b") == []  # nothing of it was left behind


def test_a_pdf_with_a_huge_declared_xref_is_skipped_with_pypdfs_reason(tmp_path: Path, corpus: Path,
                                                                        kb: KnowledgeBase):
    folder = tmp_path / "docs"
    folder.mkdir()
    data = (corpus / "report.pdf").read_bytes()  # a real one-page PDF (conftest.make_pdf)
    (folder / "good.pdf").write_bytes(data)
    (folder / "crafted.pdf").write_bytes(data.replace(b"xref\n0 6\n", b"xref\n0 999999999\n"))
    (folder / "notes.txt").write_text("The Eiffel Tower is 330 metres tall.", encoding="utf-8")
    report = kb.ingest(folder, progress=False)
    assert sorted(report.added) == ["docs/good.pdf", "docs/notes.txt"]
    (reason,) = [s.reason for s in report.skipped]
    assert "safety limits" in reason and "999999999" in reason


def test_binary_without_nul_bytes_is_not_read_as_cp1252_text(tmp_path: Path, kb: KnowledgeBase):
    rng = random.Random(7)
    noise = bytes(rng.randrange(1, 256) for _ in range(20_000))  # no NUL anywhere
    high_only = bytes(rng.randrange(0xA0, 0x100) for _ in range(5_000))  # no control bytes either
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "noise.txt").write_bytes(noise)
    (folder / "high.md").write_bytes(high_only)
    (folder / "cafe.txt").write_bytes("Un café coûte 2 € à Paris.".encode("cp1252"))  # real cp1252 text
    report = kb.ingest(folder, progress=False)
    assert report.added == ["docs/cafe.txt"]
    assert kb.document_text("docs/cafe.txt") == "Un café coûte 2 € à Paris."
    reasons = _reasons(report)
    assert "control characters" in reasons[str(folder / "noise.txt")]
    assert "above 0x7F" in reasons[str(folder / "high.md")]
    with pytest.raises(InputError):
        decode_text(noise, "noise")


@pytest.mark.skipif(os.name != "posix", reason="byte file names are a POSIX thing")
def test_a_file_name_that_is_not_utf8_is_skipped_not_fatal(tmp_path: Path, kb: KnowledgeBase):
    folder = tmp_path / "docs"
    folder.mkdir()
    try:
        (Path(os.fsdecode(bytes(folder) + b"/bad\xff.txt"))).write_text("Some text here.", encoding="utf-8")
    except (OSError, UnicodeError):
        pytest.skip("this file system refuses non-UTF-8 names")
    (folder / "fine.txt").write_text("Fine text here.", encoding="utf-8")
    report = kb.ingest(folder, progress=False)
    assert report.added == ["docs/fine.txt"]
    (skipped,) = report.skipped
    assert skipped.source.endswith("bad\\xff.txt") and "not valid UTF-8" in skipped.reason
    skipped.source.encode("utf-8")  # printable


def test_chunk_settings_are_checked_before_a_kb_is_created(tmp_path: Path):
    for size, overlap in ((0, 0), (100, 100), (100, 150), (-5, 0), (100, -1)):
        with pytest.raises(ChunkSettingsError) as exc:
            KnowledgeBase.open(tmp_path / "kb", create=True, chunk_size=size, overlap=overlap)
        assert isinstance(exc.value, InputError) and isinstance(exc.value, ValueError)
        assert not (tmp_path / "kb").exists()
    with pytest.raises(ChunkSettingsError):
        chunk_spans("text", 0)


def test_ingest_cli_with_bad_chunk_settings_is_one_clean_error(tmp_path: Path, capsys):
    from citebound.cli import main

    doc = tmp_path / "a.txt"
    doc.write_text("Some text.", encoding="utf-8")
    for extra in (["--chunk-size", "0"], ["--chunk-size", "100", "--overlap", "100"]):
        with pytest.raises(SystemExit) as exc:
            main(["ingest", str(doc), "--kb", str(tmp_path / "kb"), "--no-embed", *extra])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and "error:" in err and "Traceback" not in err
        assert "chunk" in err
        assert not (tmp_path / "kb").exists()


def test_collect_never_raises_on_a_reader_failure(tmp_path: Path):
    # An HTML file whose bytes are binary: the reader raises InputError, collect turns it into a skip.
    (tmp_path / "x.html").write_bytes(bytes(range(1, 32)) * 100)
    (tmp_path / "y.txt").write_text("Fine.", encoding="utf-8")
    items = list(collect([tmp_path]))
    assert [type(i).__name__ for i in items] == ["Skipped", "RawDocument"]

