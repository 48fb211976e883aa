"""Chunks are offsets into their version's text (migration m005): the text is stored once, every chunk
reads back exactly, and a KB made before the migration opens with the same chunks."""

from __future__ import annotations

import hashlib
import sqlite3

from citebound.db import open_sqlite
from citebound.kb import KnowledgeBase
from citebound.kb.chunk import chunk_id, chunk_spans
from citebound.kb.ingest import RawDocument
from citebound.kb.migrations import MIGRATIONS

TEXT = ("Ærøskøbing has 900 inhabitants — café, naïve façade. " * 40).strip()  # multi-byte characters


def test_chunk_text_is_read_from_its_version(tmp_path):
    with KnowledgeBase.open(tmp_path / "kb", create=True, chunk_size=200, overlap=40) as kb:
        kb.ingest_documents([RawDocument("town", TEXT, "town.txt")], progress=False)
        kb.ingest_documents([RawDocument("town", TEXT + " A new last sentence.", "town.txt")], progress=False)
        columns = {r[1] for r in kb.db.execute("PRAGMA table_info(chunks)")}
        assert "text" not in columns
        for version in (1, 2):
            text = kb.document_text("town", version)
            for chunk in kb.get_chunks(kb.chunk_ids("town", version)):
                assert chunk.text == text[chunk.start : chunk.end]
        assert [t for _, t, _ in kb.active_chunks()] == [c.text for c in kb.get_chunks(kb.chunk_ids("town"))]
        assert kb.bm25.search("inhabitants", 3)


def test_a_kb_with_chunk_text_columns_migrates(tmp_path):
    folder = tmp_path / "kb"
    folder.mkdir()
    db = open_sqlite(folder / "kb.sqlite3")
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT)")
    before = [(name, fn) for name, fn in MIGRATIONS if name < "m005"]
    for name, fn in before:
        fn(db)
        db.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, '')", (name,))
    db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)",
                   [("chunk_size", "200"), ("overlap", "40"), ("revision", "1"), ("kb_id", "old")])
    db.execute("INSERT INTO documents VALUES ('town', 1, 'active', 'town.txt', 1)")
    db.execute("INSERT INTO versions VALUES ('town', 1, 'h', ?, 'town.txt', 0, 1)", (TEXT,))
    for ord_, span in enumerate(chunk_spans(TEXT, 200, 40)):
        text = TEXT[span.start : span.end]
        cid = chunk_id("town", span.start, span.end, text)
        db.execute('INSERT INTO chunks (chunk_id, doc_id, start, "end", text, content_hash) VALUES (?, ?, ?, ?, ?, ?)',
                   (cid, "town", span.start, span.end, text, hashlib.sha256(text.encode()).hexdigest()))
        db.execute("INSERT INTO version_chunks VALUES ('town', 1, ?, ?)", (ord_, cid))
    db.commit()
    db.close()
    with KnowledgeBase.open(folder) as kb:
        chunks = kb.get_chunks(kb.chunk_ids("town"))
        assert [c.text for c in chunks] == [TEXT[s.start : s.end] for s in chunk_spans(TEXT, 200, 40)]
        assert "text" not in {r[1] for r in kb.db.execute("PRAGMA table_info(chunks)")}
        assert kb.bm25.search("inhabitants", 1)
    assert sqlite3.connect(folder / "kb.sqlite3").execute("PRAGMA integrity_check").fetchone()[0] == "ok"
