from __future__ import annotations

import os
from pathlib import Path

import pytest

from citebound.errors import InputError, KnowledgeBaseError
from citebound.kb import KnowledgeBase


def test_each_format_is_ingested_with_its_text(kb, corpus):
    report = kb.ingest([corpus], progress=False)
    assert sorted(report.added) == ["corpus/notes.md", "corpus/paris.html", "corpus/report.pdf", "corpus/scurvy.txt", "d1", "d2"]
    assert report.skipped == []
    assert "Bergen is 2250 millimetres" in kb.document_text("corpus/report.pdf")
    assert kb.document_text("d1") == "Aspirin\n\nAspirin reduces the risk of heart attack."
    assert kb.document_text("d2") == "Metformin is a first-line drug for type 2 diabetes."
    assert kb.document_text("corpus/notes.md").startswith("# Notes\n\nThe Eiffel Tower")


def test_html_keeps_visible_text_and_drops_scripts_and_styles(kb, corpus):
    kb.ingest([corpus / "paris.html"], progress=False)
    text = kb.document_text("paris.html")
    assert text == "Paris\n\nParis is the capital of France.\n\nIt has 2.1 million inhabitants."
    assert "tracking" not in text and "color" not in text


def test_bad_files_are_skipped_with_a_reason_naming_them(kb, tmp_path):
    root = tmp_path / "mixed"
    root.mkdir()
    (root / "good.txt").write_text("A real sentence about owls.", encoding="utf-8")
    (root / "empty.txt").write_text("", encoding="utf-8")
    (root / "blank.md").write_text("   \n\n  ", encoding="utf-8")
    (root / "binary.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (root / "image.png").write_bytes(b"\x89PNG\r\n")
    (root / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (root / "bad.jsonl").write_text('{"_id": "x", "text": "fine"}\nnot json\n{"title": "no id"}\n', encoding="utf-8")
    report = kb.ingest([root, tmp_path / "missing.txt"], progress=False)
    assert sorted(report.added) == ["mixed/good.txt", "x"]
    reasons = {Path(s.source.split(":")[0]).name: s.reason for s in report.skipped}
    assert set(reasons) == {"empty.txt", "blank.md", "binary.txt", "image.png", "broken.pdf", "bad.jsonl", "missing.txt"}
    assert "binary" in reasons["binary.txt"]
    assert "unsupported" in reasons["image.png"]
    assert "empty" in reasons["empty.txt"]
    assert len([s for s in report.skipped if "bad.jsonl" in s.source]) == 2


def test_symlinks_leaving_the_folder_are_not_followed(kb, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("The password is hunter2.", encoding="utf-8")
    root = tmp_path / "root"
    root.mkdir()
    (root / "ok.txt").write_text("Inside the corpus.", encoding="utf-8")
    os.symlink(outside / "secret.txt", root / "leak.txt")
    os.symlink(outside, root / "leakdir")
    report = kb.ingest([root], progress=False)
    assert report.added == ["root/ok.txt"]
    assert {Path(s.source).name for s in report.skipped} == {"leak.txt", "leakdir"}
    assert kb.bm25.search("password hunter2") == []


def test_unchanged_is_a_no_op_and_a_change_makes_a_version_while_the_old_resolves(kb, tmp_path):
    doc = tmp_path / "policy.txt"
    doc.write_text("Refunds are accepted within 30 days. Keep the receipt.", encoding="utf-8")
    first = kb.ingest([doc], progress=False)
    old_chunk = kb.get_chunk(kb.chunk_ids("policy.txt")[0])
    rev = kb.revision
    again = kb.ingest([doc], progress=False)
    assert again.unchanged == ["policy.txt"] and again.added == [] and kb.revision == rev
    doc.write_text("Refunds are accepted within 14 days. Keep the receipt.", encoding="utf-8")
    changed = kb.ingest([doc], progress=False)
    assert first.added == ["policy.txt"]
    assert changed.updated == [("policy.txt", 2)]
    assert kb.revision == rev + 1
    assert kb.current_version("policy.txt") == 2
    assert "30 days" in kb.document_text("policy.txt", 1)
    assert "14 days" in kb.document_text("policy.txt")
    assert kb.versions("policy.txt") == [1, 2]
    # the old chunk still resolves, with its text and offsets into version 1
    resolved = kb.get_chunk(old_chunk.id)
    assert resolved.text == "Refunds are accepted within 30 days. Keep the receipt."
    assert kb.document_text("policy.txt", resolved.version)[resolved.start : resolved.end] == resolved.text
    # only the new text is searchable
    hits = [cid for cid, _ in kb.bm25.search("30 days refunds")]
    assert old_chunk.id not in hits
    assert kb.get_chunk(hits[0]).text.endswith("14 days. Keep the receipt.")


def test_chunk_ids_are_stable_across_kbs_and_orders(tmp_path, corpus):
    with KnowledgeBase.open(tmp_path / "a", create=True) as a:
        a.ingest([corpus], progress=False)
        ids_a = {d.doc_id: a.chunk_ids(d.doc_id) for d in a.documents()}
    files = sorted(corpus.iterdir(), reverse=True)
    with KnowledgeBase.open(tmp_path / "b", create=True) as b:
        for f in files:  # another order, one file at a time, and file ids not folder ids
            b.ingest([f], progress=False)
        b.ingest([corpus], progress=False)
        ids_b = {d.doc_id: b.chunk_ids(d.doc_id) for d in b.documents()}
    for doc_id, ids in ids_a.items():
        assert ids_b[doc_id] == ids


def test_remove_retires_but_versions_still_resolve(kb, corpus):
    kb.ingest([corpus], progress=False)
    cid = kb.chunk_ids("corpus/scurvy.txt")[0]
    rev = kb.remove("corpus/scurvy.txt")
    assert rev == kb.revision
    assert [d.doc_id for d in kb.documents()].count("corpus/scurvy.txt") == 0
    assert all(kb.get_chunk(c).doc_id != "corpus/scurvy.txt" for c, _ in kb.bm25.search("scurvy vitamin"))
    assert "Lind" in kb.get_chunk(cid).text
    assert "James Lind" in kb.document_text("corpus/scurvy.txt", 1)
    with pytest.raises(InputError):
        kb.remove("no/such/doc")
    # ingesting it again brings it back without a new version
    report = kb.ingest([corpus], progress=False)
    assert report.added == ["corpus/scurvy.txt"]
    assert kb.current_version("corpus/scurvy.txt") == 1
    assert kb.bm25.search("scurvy vitamin")


def test_unknown_ids_and_missing_kb_are_clear_errors(kb, tmp_path):
    with pytest.raises(InputError):
        kb.get_chunk("c-nope")
    with pytest.raises(InputError):
        kb.document_text("nope")
    with pytest.raises(KnowledgeBaseError):
        KnowledgeBase.open(tmp_path / "does-not-exist")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "kb.sqlite3").write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(KnowledgeBaseError):
        KnowledgeBase.open(tmp_path / "junk")


def test_chunking_parameters_are_fixed_at_creation(tmp_path):
    KnowledgeBase.open(tmp_path / "kb", create=True, chunk_size=300, overlap=50).close()
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        assert (kb.chunk_size, kb.overlap) == (300, 50)
    with pytest.raises(KnowledgeBaseError):
        KnowledgeBase.open(tmp_path / "kb", chunk_size=500)


def test_wal_mode_and_migrations_are_idempotent(kb, tmp_path):
    from citebound.kb.migrations import MIGRATIONS, migrate

    if kb.db.dialect == "sqlite":
        assert kb.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert migrate(kb.db) == []
    names = [r[0] for r in kb.db.execute("SELECT name FROM _migrations ORDER BY name")]
    assert names == sorted(n for n, _ in MIGRATIONS)


def test_two_versions_in_one_batch_leave_only_the_last_searchable(kb):
    from citebound.kb.ingest import RawDocument

    kb.ingest_documents(
        [RawDocument("memo", "The meeting is on Monday.", "a"), RawDocument("memo", "The meeting is on Friday.", "b"),
         RawDocument("memo", "The meeting is on Monday.", "c")],
        progress=False,
    )
    assert kb.versions("memo") == [1, 2, 3]
    assert [kb.get_chunk(c).text for c, _ in kb.bm25.search("meeting")] == ["The meeting is on Monday."]
    assert kb.bm25.num_docs() == 1
    kb.ingest_documents([RawDocument("memo", "The meeting is on Friday.", "d")], progress=False)
    assert [kb.get_chunk(c).text for c, _ in kb.bm25.search("meeting")] == ["The meeting is on Friday."]
    assert kb.bm25.num_docs() == 1
