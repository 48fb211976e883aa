"""Migration m008 (compressed version text, each chunk's latest version, fewer indexes), on both backends:
a KB written before it opens with the same texts and chunks, keeps working, and a process killed while
migrating leaves a KB that migrates on the next open."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid

from citebound.db import is_postgres, open_sqlite, write_transaction
from citebound.kb import KnowledgeBase
from citebound.kb.chunk import chunk_id, chunk_spans, content_hash
from citebound.kb.ingest import RawDocument
from citebound.kb.migrations import MIGRATIONS
from citebound.kb.textcodec import BLOCK, BLOCKS, pack, unpack

SIZE, LAP = 200, 40
TOWN = ("Ærøskøbing has 900 inhabitants — café, naïve façade, 𝄞 music. " * 30).strip()
LONG = " ".join(f"Paragraph {i}: the ferry to Svendborg leaves at {i % 24:02d}:15 from pier {i % 7}." for i in range(200))
OLD_DOCS = {  # doc id -> (texts of its versions, status)
    "town": ([TOWN, TOWN + " A new last sentence."], "active"),  # v2 keeps most of v1's chunks
    "ferry": ([LONG], "active"),  # longer than one block
    "gone": (["Removed documents still resolve for old citations."], "removed"),
}


def _old_db(target, before: str = "m008"):
    """A connection to `target` with only the migrations before `before` applied."""
    if is_postgres(str(target)):
        from citebound.db.postgres import open_postgres

        db = open_postgres(str(target), lock="kb")
    else:
        target.mkdir()
        db = open_sqlite(target / "kb.sqlite3")
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    for name, fn in MIGRATIONS:
        if name < before:
            with write_transaction(db):
                fn(db)
                db.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, '')", (name,))
    return db


def write_old_kb(target, docs=OLD_DOCS) -> dict:
    """A KB as the store wrote it before m008 (text in `versions.text`, no `chunks.version`); returns
    {chunk id: (doc id, latest version that has it, text)} and {(doc id, version): text}."""
    db = _old_db(target)
    chunks: dict[str, tuple[str, int, str]] = {}
    texts: dict[tuple[str, int], str] = {}
    with write_transaction(db):
        db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)",
                       [("chunk_size", str(SIZE)), ("overlap", str(LAP)), ("revision", "1"), ("kb_id", uuid.uuid4().hex)])
        for doc_id, (versions, status) in docs.items():
            for version, text in enumerate(versions, 1):
                texts[(doc_id, version)] = text
                db.execute("INSERT INTO versions (doc_id, version, content_hash, text, source, ingested_at, revision) "
                           "VALUES (?, ?, ?, ?, ?, 0, 1)", (doc_id, version, content_hash(text), text, f"{doc_id}.txt"))
                for ord_, span in enumerate(chunk_spans(text, SIZE, LAP)):
                    piece = text[span.start : span.end]
                    cid = chunk_id(doc_id, span.start, span.end, piece)
                    db.execute('INSERT INTO chunks (chunk_id, doc_id, start, "end", content_hash) VALUES (?, ?, ?, ?, ?) '
                               "ON CONFLICT (chunk_id) DO NOTHING", (cid, doc_id, span.start, span.end, content_hash(piece)))
                    db.execute("INSERT INTO version_chunks (doc_id, version, ord, chunk_id) VALUES (?, ?, ?, ?)",
                               (doc_id, version, ord_, cid))
                    chunks[cid] = (doc_id, version, piece)
            db.execute("INSERT INTO documents (doc_id, current_version, status, source, updated_revision) "
                       "VALUES (?, ?, ?, ?, 1)", (doc_id, len(versions), status, f"{doc_id}.txt"))
    db.close()
    return {"chunks": chunks, "texts": texts}


def test_a_kb_from_before_m008_reads_the_same_after_it(kb_target):
    old = write_old_kb(kb_target)
    assert any(v == 2 for _, v, _ in old["chunks"].values()) and any(v == 1 for _, v, _ in old["chunks"].values())
    with KnowledgeBase.open(kb_target) as kb:
        for (doc_id, version), text in old["texts"].items():
            assert kb.document_text(doc_id, version) == text
            assert [c.text for c in kb.get_chunks(kb.chunk_ids(doc_id, version))] == \
                [text[s.start : s.end] for s in chunk_spans(text, SIZE, LAP)]
        got = kb.get_chunks(list(old["chunks"]))
        assert {c.id: (c.doc_id, c.version, c.text) for c in got} == old["chunks"]  # cited from its latest version
        active = {cid: text for cid, text, _ in kb.active_chunks()}
        assert active == {cid: t for cid, (d, v, t) in old["chunks"].items()
                          if d != "gone" and cid in kb.chunk_ids(d)}
        assert kb.get_chunks([c for c, _ in kb.bm25.search("Svendborg pier", 3)])[0].doc_id == "ferry"
        body = kb.db.execute("SELECT body FROM versions WHERE doc_id = 'ferry'").fetchone()[0]
        assert bytes(body)[0] == BLOCKS and len(LONG) > BLOCK
        # the migrated KB keeps working: a third version, then a removed document brought back
        kb.ingest_documents([RawDocument("town", TOWN + " Another ending.", "town.txt"),
                             RawDocument("gone", OLD_DOCS["gone"][0][0], "gone.txt")], progress=False)
        first = kb.chunk_ids("town", 1)[0]
        assert kb.get_chunk(first).version == 3 and kb.get_chunk(first).text == TOWN[: len(kb.get_chunk(first).text)]
        assert kb.document("gone").status == "active" and kb.bm25.search("citations", 1)
    if not is_postgres(str(kb_target)):
        con = sqlite3.connect(kb_target / "kb.sqlite3")
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert con.execute("PRAGMA foreign_key_check").fetchall() == []
        schema = dict(con.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall())
        # documents keyed by their id alone; chunks by their integer key, the rowid itself (m012)
        assert "WITHOUT ROWID" in schema["documents"] and "chunk_key INTEGER PRIMARY KEY" in schema["chunks"]
        assert "text TEXT" not in schema["versions"]
        con.close()


def test_texts_round_trip_through_the_codec():
    for text in ("", "a", TOWN, LONG, "é" * BLOCK, "€" * (BLOCK + 1), LONG + TOWN * 5):
        body = pack(text)
        assert unpack(body) == text
        from citebound.kb.textcodec import TextCache

        cache = TextCache(max_chars=3 * BLOCK)
        for start in range(0, len(text) + 1, 997):
            for end in (start, start + 1, start + 1200, len(text)):
                assert cache.slice(("d", 1), body, start, end) == text[start:end]


CHILD_OPEN = """
import sys
from citebound.kb import KnowledgeBase
print("opening", flush=True)
KnowledgeBase.open(sys.argv[1]).close()
print("finished", flush=True)
"""


def test_a_process_killed_while_migrating_leaves_a_kb_that_migrates_next_time(kb_target):
    docs = {f"d{i:04d}": ([f"Document {i} tells of harbour number {i % 97}. " * (5 + i % 40)], "active")
            for i in range(1500)}
    old = write_old_kb(kb_target, docs)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, "-c", CHILD_OPEN, str(kb_target)], stdout=subprocess.PIPE, text=True, env=env)
    assert child.stdout.readline().strip() == "opening"
    time.sleep(0.3)  # imports done; the migration (about a second here) is under way
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    with KnowledgeBase.open(kb_target) as kb:
        sample = list(old["chunks"])[::37]
        assert {c.id: (c.doc_id, c.version, c.text) for c in kb.get_chunks(sample)} == {c: old["chunks"][c] for c in sample}
        assert kb.stats()["documents"] == len(docs)
