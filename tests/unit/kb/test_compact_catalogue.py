"""Migration m009 (content hashes as 32 bytes, a document's source stored once), on both backends: a KB
written before it reads the same after it, its vectors still match their chunks, re-ingesting the same
text is still "unchanged", and a document brought back from another path keeps that path."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid

import numpy as np

from citebound.db import is_postgres, open_sqlite, write_transaction
from citebound.kb import KnowledgeBase
from citebound.kb.chunk import chunk_id, chunk_spans, content_hash
from citebound.kb.ingest import RawDocument
from citebound.kb.textcodec import pack

from test_compact_store import _old_db  # the same folder: on sys.path under pytest

SIZE, LAP = 200, 40
MODEL = "test-model"
DOCS = {  # doc id -> (texts of its versions, status)
    "harbour": (["The harbour of Marstal froze in 1942. Ships waited for the ice to break. " * 4,
                 "The harbour of Marstal froze in 1942. Ships waited for the ice to break. " * 4 + "A new ending."],
                "active"),
    "mill": (["The windmill at Rutsker grinds rye on Saturdays from May to September."], "active"),
    "gone": (["Removed documents still resolve for old citations."], "removed"),
}


def write_m008_kb(target, docs=DOCS) -> dict:
    """A KB as the store wrote it before m009 (hashes in hexadecimal, the source in documents and
    versions), with a vector for the first chunk of each document; returns what it holds."""
    db = _old_db(target, before="m009")
    chunks: dict[str, tuple[str, int, str]] = {}
    vectors: dict[str, np.ndarray] = {}
    with write_transaction(db):
        db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)",
                       [("chunk_size", str(SIZE)), ("overlap", str(LAP)), ("revision", "1"), ("kb_id", uuid.uuid4().hex)])
        for doc_id, (versions, status) in docs.items():
            for version, text in enumerate(versions, 1):
                db.execute("INSERT INTO versions (doc_id, version, content_hash, body, chars, source, ingested_at, "
                           "revision) VALUES (?, ?, ?, ?, ?, ?, 0, 1)",
                           (doc_id, version, content_hash(text), pack(text), len(text), f"/old/{doc_id}.txt"))
                for ord_, span in enumerate(chunk_spans(text, SIZE, LAP)):
                    piece = text[span.start : span.end]
                    cid = chunk_id(doc_id, span.start, span.end, piece)
                    db.execute('INSERT INTO chunks (chunk_id, doc_id, start, "end", version, content_hash) '
                               "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (chunk_id) DO UPDATE SET version = excluded.version",
                               (cid, doc_id, span.start, span.end, version, content_hash(piece)))
                    db.execute("INSERT INTO version_chunks (doc_id, version, ord, chunk_id) VALUES (?, ?, ?, ?)",
                               (doc_id, version, ord_, cid))
                    chunks[cid] = (doc_id, version, piece)
                    if ord_ == 0 and content_hash(piece) not in vectors:
                        vec = np.random.default_rng(len(vectors)).standard_normal(8).astype(np.float32)
                        vectors[content_hash(piece)] = vec / np.linalg.norm(vec)
                        db.execute("INSERT INTO vectors (content_hash, model, vec) VALUES (?, ?, ?) "
                                   "ON CONFLICT (content_hash, model) DO NOTHING",
                                   (content_hash(piece), MODEL, db.encode_vector(vectors[content_hash(piece)])))
            db.execute("INSERT INTO documents (doc_id, current_version, status, source, updated_revision) "
                       "VALUES (?, ?, ?, ?, 1)", (doc_id, len(versions), status, f"/old/{doc_id}.txt"))
    db.close()
    return {"chunks": chunks, "vectors": vectors}


def hashed_tables(target) -> tuple[str, ...]:
    """The tables that store content hashes: vectors, and chunks in PostgreSQL (dense search joins on it)."""
    return ("chunks", "vectors") if is_postgres(str(target)) else ("vectors",)


def test_a_kb_from_before_m009_reads_the_same_after_it(kb_target):
    old = write_m008_kb(kb_target)
    with KnowledgeBase.open(kb_target) as kb:
        got = kb.get_chunks(list(old["chunks"]))
        assert {c.id: (c.doc_id, c.version, c.text) for c in got} == old["chunks"]
        assert {d.doc_id: d.source for d in kb.documents(include_removed=True)} == \
            {d: f"/old/{d}.txt" for d in DOCS}
        # stored: 32-byte hashes (none for versions since m011, nor for chunks in SQLite since m012),
        # the source once
        for table in hashed_tables(kb_target):
            assert {len(bytes(h)) for (h,) in kb.db.execute(f"SELECT content_hash FROM {table}")} == {32}
        assert kb.db.execute("SELECT COUNT(*) FROM documents WHERE source IS NOT NULL").fetchone()[0] == 0
        # handed out in hexadecimal, as before; the vectors still belong to their chunks
        active = list(kb.active_chunks())
        assert active and all(h == content_hash(text) for _, text, h in active)
        missing = kb.missing_vectors(MODEL)
        assert set(missing) == {h for _, _, h in active} - set(old["vectors"])
        ids, matrix = kb.load_vectors(MODEL)
        by_id = dict(zip(ids, matrix))
        for cid, text, digest in active:
            if digest in old["vectors"]:
                assert np.allclose(by_id.pop(cid), old["vectors"][digest])
        assert not by_id
        # the same text again is unchanged; a removed document brought back from another path keeps it
        report = kb.ingest_documents([RawDocument("mill", DOCS["mill"][0][0], "/new/mill.txt"),
                                      RawDocument("gone", DOCS["gone"][0][0], "/new/gone.txt")], progress=False)
        assert report.unchanged == ["mill"] and report.added == ["gone"]
        assert kb.document("mill").source == "/old/mill.txt"
        assert kb.document("gone").source == "/new/gone.txt" and kb.document("gone").current_version == 1
        # a new version carries its own source, and the document reads it
        kb.ingest_documents([RawDocument("gone", "Removed documents come back with new text.", "/v2/gone.txt")],
                            progress=False)
        assert kb.document("gone").source == "/v2/gone.txt" and kb.document("gone").current_version == 2
        assert kb.db.execute("SELECT source FROM versions WHERE doc_id = 'gone' ORDER BY version").fetchall() == \
            [("/old/gone.txt",), ("/v2/gone.txt",)]
    if not is_postgres(str(kb_target)):
        con = sqlite3.connect(kb_target / "kb.sqlite3")
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert con.execute("PRAGMA freelist_count").fetchone()[0] == 0  # VACUUM ran after the migration
        con.close()


def test_a_new_kb_keeps_what_its_api_shows(kb_target):
    with KnowledgeBase.open(kb_target, create=True, chunk_size=SIZE, overlap=LAP) as kb:
        kb.ingest_documents([RawDocument("mill", DOCS["mill"][0][0], "mill.txt")], progress=False)
        assert kb.document("mill").source == "mill.txt" and kb.documents()[0].source == "mill.txt"
        assert [(d, v, h) for d, v, h, _, _ in kb.version_list()] == [("mill", 1, content_hash(DOCS["mill"][0][0]))]
        kb.remove("mill")
        assert kb.document("mill").source == "mill.txt" and kb.documents() == []
        assert [d.source for d in kb.documents(include_removed=True)] == ["mill.txt"]
        kb.ingest_documents([RawDocument("mill", DOCS["mill"][0][0], "mill.txt")], progress=False)
        assert kb.db.execute("SELECT source FROM documents").fetchall() == [(None,)]  # the same path: not stored twice


# opens the KB with one migration held open (argv[2]): its writes done, not committed, until killed
CHILD_HOLD = """
import sys, time
from citebound.kb import KnowledgeBase, migrations
steps = migrations.migration.steps
at = [name for name, _ in steps].index(sys.argv[2])
real = steps[at][1]
def held(db):
    real(db)
    print("migrated", flush=True)
    time.sleep(120)
steps[at] = (steps[at][0], held)
KnowledgeBase.open(sys.argv[1]).close()
"""


def kill_inside(target, migration: str) -> None:
    """Open the KB at `target` in a child process and kill it once `migration` has done its writes."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, "-c", CHILD_HOLD, str(target), migration],
                             stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout.readline().strip() == "migrated"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()


def raw_db(target):  # noqa: ANN201 - a citebound.db connection, no migration applied
    """The KB's database at `target` as stored, opened without migrating it."""
    if is_postgres(str(target)):
        from citebound.db.postgres import open_postgres

        return open_postgres(str(target), lock="kb")
    return open_sqlite(target / "kb.sqlite3")


def _stored_hash(target) -> object:
    db = raw_db(target)
    try:
        return db.execute("SELECT content_hash FROM chunks ORDER BY chunk_id LIMIT 1").fetchone()[0]
    finally:
        db.close()


def killed_inside(target, migration: str) -> dict:
    """An m008 KB of 300 documents (`write_m008_kb`), opened by a process killed inside `migration`."""
    docs = {f"d{i:04d}": ([f"Document {i} tells of harbour number {i % 97}. " * (5 + i % 40)], "active")
            for i in range(300)}
    old = write_m008_kb(target, docs)
    kill_inside(target, migration)
    return old


def reads_as_before(kb: KnowledgeBase, old: dict) -> bool:
    """Every 7th chunk of `write_m008_kb`'s KB reads as it was written."""
    sample = list(old["chunks"])[::7]
    return {c.id: (c.doc_id, c.version, c.text) for c in kb.get_chunks(sample)} == {c: old["chunks"][c] for c in sample}


def test_a_process_killed_inside_m009_leaves_a_kb_that_migrates_next_time(kb_target):
    old = killed_inside(kb_target, "m009_compact_catalogue")
    first = _stored_hash(kb_target)
    assert isinstance(first, str) and len(first) == 64  # nothing of the killed migration was kept
    with KnowledgeBase.open(kb_target) as kb:
        assert reads_as_before(kb, old)
        assert kb.documents()[0].source == "/old/d0000.txt"
        for table in hashed_tables(kb_target):
            assert {len(bytes(h)) for (h,) in kb.db.execute(f"SELECT content_hash FROM {table}")} == {32}
        assert set(kb.missing_vectors(MODEL)).isdisjoint(old["vectors"])


def test_m010_keeps_each_source_path_once(kb_target):
    """Sources that end with their document id (a JSONL row, a file in a folder) become a shared prefix;
    the others stay whole; every source reads as it was, before and after new ingests."""
    docs = {"d1": (["First row of the export."], "active"), "d2": (["Second row of the export."], "active"),
            "handbook/a.md": (["A page of the handbook."], "active")}
    sources = {"d1": "/data/export.jsonl#d1", "d2": "/data/export.jsonl#d2", "handbook/a.md": "/srv/handbook/a.md"}
    db = _old_db(kb_target, before="m010")
    with write_transaction(db):
        db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)",
                       [("chunk_size", str(SIZE)), ("overlap", str(LAP)), ("revision", "1"), ("kb_id", uuid.uuid4().hex)])
        for doc_id, ((text,), status) in docs.items():
            db.execute("INSERT INTO versions (doc_id, version, content_hash, body, chars, source, ingested_at, revision) "
                       "VALUES (?, 1, ?, ?, ?, ?, 0, 1)",
                       (doc_id, bytes.fromhex(content_hash(text)), pack(text), len(text), sources[doc_id]))
            db.execute("INSERT INTO documents (doc_id, current_version, status, source, updated_revision) "
                       "VALUES (?, 1, ?, NULL, 1)", (doc_id, status))
        # one version whose source does not end with its id: kept whole
        db.execute("INSERT INTO versions (doc_id, version, content_hash, body, chars, source, ingested_at, revision) "
                   "VALUES ('odd', 1, ?, ?, 3, 'elsewhere.txt', 0, 1)", (bytes.fromhex(content_hash("odd")), pack("odd")))
        db.execute("INSERT INTO documents VALUES ('odd', 1, 'active', NULL, 1)")
    db.close()
    with KnowledgeBase.open(kb_target) as kb:
        assert {d.doc_id: d.source for d in kb.documents()} == {**sources, "odd": "elsewhere.txt"}
        assert sorted(r[0] for r in kb.db.execute("SELECT prefix FROM source_prefixes")) == ["/data/export.jsonl#", "/srv/"]
        assert kb.db.execute("SELECT doc_id, source FROM versions WHERE source IS NOT NULL").fetchall() == \
            [("odd", "elsewhere.txt")]
        kb.ingest_documents([RawDocument("d3", "Third row.", "/data/export.jsonl#d3"),
                             RawDocument("d1", "First row, edited.", "/data/export.jsonl#d1"),
                             RawDocument("x", "No shared path.", "/data/x.txt")], progress=False)
        assert kb.document("d3").source == "/data/export.jsonl#d3" and kb.document("d1").source == sources["d1"]
        assert kb.document("x").source == "/data/x.txt"  # "/data/" + "x.txt" != "x": kept whole
        assert kb.db.execute("SELECT COUNT(*) FROM source_prefixes").fetchone()[0] == 2


def test_a_rolled_back_write_forgets_the_source_prefix_it_created(kb_target, monkeypatch):
    from citebound.kb import store

    real = store.chunk_spans
    with KnowledgeBase.open(kb_target, create=True, chunk_size=SIZE, overlap=LAP) as kb:
        def fail_for(doc_text: str, error: type[BaseException]):
            def spans(text, *a, **kw):
                if text == doc_text:
                    raise error("the chunker failed")
                return real(text, *a, **kw)
            return spans

        # a bad document alone is rolled back (savepoint); the next one in the batch reuses its new prefix
        monkeypatch.setattr(store, "chunk_spans", fail_for("Bad row.", ValueError))
        report = kb.ingest_documents([RawDocument("r1", "Bad row.", "/new/rows.jsonl#r1"),
                                      RawDocument("r2", "Good row.", "/new/rows.jsonl#r2")], progress=False)
        assert [s.source for s in report.skipped] == ["/new/rows.jsonl#r1"] and report.added == ["r2"]
        assert kb.document("r2").source == "/new/rows.jsonl#r2"
        # the whole batch rolled back (an error that is not the document's)
        monkeypatch.setattr(store, "chunk_spans", fail_for("Row three.", RuntimeError))
        try:
            kb.ingest_documents([RawDocument("r3", "Row three.", "/other/rows.jsonl#r3")], progress=False)
        except RuntimeError:
            pass
        else:
            raise AssertionError("the batch should have failed")
        monkeypatch.setattr(store, "chunk_spans", real)
        kb.ingest_documents([RawDocument("r4", "Row four.", "/other/rows.jsonl#r4")], progress=False)
        assert kb.document("r4").source == "/other/rows.jsonl#r4"
        assert kb.db.execute("SELECT COUNT(*) FROM source_prefixes").fetchone()[0] == 2


def test_compact_vacuums_a_fragmented_sqlite_kb_with_nothing_to_repack(tmp_path):
    """A fresh ingest leaves pages part empty (chunk ids are hashes, inserted in no order): `compact` gives
    them back even when every text already has the dictionary."""
    docs = [RawDocument(f"n{i:04d}", f"Note {i}: the ferry from pier {i % 7} leaves at {i % 24:02d}:15. " * (3 + i % 9),
                        f"/notes/n{i:04d}") for i in range(1200)]
    with KnowledgeBase.open(tmp_path / "kb", create=True, chunk_size=SIZE, overlap=LAP) as kb:
        kb.ingest_documents(docs[:600], progress=False)
        assert kb.compact()["dictionary"] is not None  # (trained here if the ingest did not)
        for lo in range(600, len(docs), 100):
            kb.ingest_documents(docs[lo : lo + 100], progress=False)
        chunks = {c.id: c for c in kb.get_chunks([cid for cid, _, _ in kb.active_chunks()])}
        done = kb.compact()
        assert done["repacked"] == 0
        assert done["database_bytes_after"] < done["database_bytes_before"]  # 4 % here
    con = sqlite3.connect(tmp_path / "kb" / "kb.sqlite3")  # closed: the WAL is checkpointed into the file
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert (tmp_path / "kb" / "kb.sqlite3").stat().st_size == done["database_bytes_after"]
    con.close()
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        assert {c.id: c for c in kb.get_chunks(list(chunks))} == chunks
        assert kb.bm25.search("ferry pier", 1)


def test_the_index_keeps_chunk_ids_as_two_integers():
    from citebound.kb.bm25_index import chunk_id_of, chunk_key

    for cid in [chunk_id("d", 0, 5, "hello"), "c" + "f" * 24, "c" + "0" * 24, "c8000000000000000ffffffff"]:
        key, tail = chunk_key(cid)
        assert -(2**63) <= key < 2**63 and 0 <= tail < 2**32 and chunk_id_of(key, tail) == cid
    for bad in ["c", "x" + "0" * 24, "c" + "A" * 24, "c" + "_" * 24, "c" + "0" * 23 + " ", "c" + "0" * 25]:
        try:
            chunk_key(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} taken for a chunk id")


def test_a_chunk_whose_key_another_chunk_has_is_refused(kb_target, monkeypatch):
    """Two chunk ids that begin alike (forced here: real ids are hashes) cannot both be kept: the index
    deletes by the first 64 bits, so the second document is skipped, and the first stays whole."""
    import hashlib

    from citebound.kb import store

    def alike(doc_id, start, end, text):
        return "c" + "0" * 16 + hashlib.sha256(f"{doc_id}{start}{end}{text}".encode()).hexdigest()[:8]

    monkeypatch.setattr(store, "chunk_id", alike)
    with KnowledgeBase.open(kb_target, create=True, chunk_size=SIZE, overlap=LAP) as kb:
        report = kb.ingest_documents([RawDocument("a", "The lighthouse on Hammeren was lit in 1802.", "a.txt"),
                                      RawDocument("b", "The ferry to Christiansø leaves at dawn.", "b.txt")],
                                     progress=False)
        assert report.added == ["a"] and len(report.skipped) == 1 and "first 64 bits" in report.skipped[0].reason
        (hit,) = kb.get_chunks([cid for cid, _ in kb.bm25.search("lighthouse Hammeren", 5)])
        assert hit.doc_id == "a" and kb.bm25.search("ferry Christiansø", 5) == []
        kb.remove("a")
        assert kb.bm25.search("lighthouse", 5) == [] and kb.stats()["documents"] == 0


def test_an_index_written_with_text_ids_is_rebuilt_on_open(tmp_path):
    import tantivy

    from citebound.kb.bm25_index import ANALYZER, build_analyzer

    with KnowledgeBase.open(tmp_path / "kb", create=True, chunk_size=SIZE, overlap=LAP) as kb:
        kb.ingest_documents([RawDocument("mill", DOCS["mill"][0][0], "mill.txt")], progress=False)
        chunks, revision = list(kb.active_chunks()), kb.revision
    folder = tmp_path / "kb" / "bm25"  # the index as the store wrote it before (the id as a text field)
    for f in folder.iterdir():
        f.unlink()
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("chunk_id", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("body", stored=False, tokenizer_name=ANALYZER, index_option="freq")
    index = tantivy.Index(builder.build(), path=str(folder))
    index.register_tokenizer(ANALYZER, build_analyzer())
    writer = index.writer(heap_size=64_000_000, num_threads=1)
    for cid, text, _ in chunks:
        writer.add_document(tantivy.Document(chunk_id=cid, body=text))
    writer.commit()
    writer.wait_merging_threads()
    del writer, index
    (folder / "revision.json").write_text(f'{{"revision": {revision}}}')
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        assert [c for c, _ in kb.bm25.search("windmill Rutsker", 5)] == [chunks[0][0]]
        assert kb.bm25.revision == revision and kb.bm25.num_docs() == len(chunks)
