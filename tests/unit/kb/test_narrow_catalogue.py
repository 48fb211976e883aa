"""Migration m011 (no stored version hash, no index of documents by revision), on both backends: a KB
written before it reads the same after it, a process killed inside it leaves the KB as it was, and what
the hash was for still works: unchanged text is recognised, the API's version hash is the same value,
and an index that is behind catches up."""

from __future__ import annotations

from citebound.db import is_postgres
from citebound.kb import KnowledgeBase
from citebound.kb.chunk import content_hash
from citebound.kb.ingest import RawDocument

# the same folder: on sys.path under pytest
from test_compact_catalogue import DOCS, LAP, SIZE, killed_inside, raw_db, reads_as_before


def schema(target) -> dict[str, set[str]]:
    """{table or index name: its columns (empty for an index)} of the KB's database as stored."""
    db = raw_db(target)
    out: dict[str, set[str]] = {}
    if is_postgres(str(target)):
        try:
            for table, column in db.execute("SELECT table_name, column_name FROM information_schema.columns "
                                            "WHERE table_schema = current_schema()"):
                out.setdefault(table, set()).add(column)
            for (index,) in db.execute("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()"):
                out.setdefault(index, set())
            return out
        finally:
            db.close()
    try:
        for name, kind in db.execute("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'index')"):
            out[name] = {r[1] for r in db.execute(f"PRAGMA table_info({name})")} if kind == "table" else set()
        return out
    finally:
        db.close()


def test_a_process_killed_inside_m011_leaves_a_kb_that_migrates_next_time(kb_target):
    old = killed_inside(kb_target, "m011_narrow_catalogue")
    before = schema(kb_target)
    assert "content_hash" in before["versions"] and "documents_revision" in before  # nothing of it kept
    with KnowledgeBase.open(kb_target) as kb:
        assert reads_as_before(kb, old)
    after = schema(kb_target)
    assert "content_hash" not in after["versions"] and "documents_revision" not in after


def test_unchanged_text_is_found_without_a_stored_hash(kb_target):
    text = DOCS["mill"][0][0]
    same_length = text.replace("rye", "oat")
    with KnowledgeBase.open(kb_target, create=True, chunk_size=SIZE, overlap=LAP) as kb:
        kb.ingest_documents([RawDocument("mill", text, "mill.txt")], progress=False)
        report = kb.ingest_documents([RawDocument("mill", text, "mill.txt")], progress=False)
        assert report.unchanged == ["mill"] and report.updated == []
        # the same number of characters, another text: a new version
        report = kb.ingest_documents([RawDocument("mill", same_length, "mill.txt")], progress=False)
        assert len(same_length) == len(text) and report.updated == [("mill", 2)]
        assert [(v, h) for _, v, h, _, _ in kb.version_list()] == [(1, content_hash(text)), (2, content_hash(same_length))]
        # removed, then the same text again: brought back, not a third version
        kb.remove("mill")
        report = kb.ingest_documents([RawDocument("mill", same_length, "mill.txt")], progress=False)
        assert report.added == ["mill"] and kb.current_version("mill") == 2
        assert [c for c, _ in kb.bm25.search("oat Saturdays", 3)] == kb.chunk_ids("mill")


def test_an_index_behind_the_kb_catches_up_without_the_revision_index(kb_target):
    with KnowledgeBase.open(kb_target, create=True, chunk_size=SIZE, overlap=LAP) as kb:
        kb.ingest_documents([RawDocument(d, versions[0], f"{d}.txt") for d, (versions, _) in DOCS.items()],
                            progress=False)
        at = kb.revision
        kb.remove("gone")
        kb.ingest_documents([RawDocument("harbour", DOCS["harbour"][0][1], "harbour.txt")], progress=False)
        adds, deletes, revision, reset = kb._index_delta(at)
        assert revision == kb.revision and not reset
        # every chunk the changed documents had up to `at` goes, every chunk they have now comes back (and
        # is deleted first: an index killed between its commit and its revision may hold it already)
        assert {cid for cid, _ in adds} == set(kb.chunk_ids("harbour"))
        assert deletes == set(kb.chunk_ids("gone")) | set(kb.chunk_ids("harbour", 1)) | set(kb.chunk_ids("harbour"))


def test_a_process_killed_inside_m012_leaves_a_kb_that_migrates_next_time(kb_target):
    old = killed_inside(kb_target, "m012_chunk_keys")
    before = schema(kb_target)
    assert "version_chunks" in before and "chunk_id" in before["chunks"]  # nothing of it kept
    assert "chunk_keys" not in before["versions"]
    with KnowledgeBase.open(kb_target) as kb:
        assert reads_as_before(kb, old)
        # each version's chunk list, in document order, and the chunks of the current versions
        by_version: dict[tuple[str, int], list[str]] = {}
        for cid, (doc_id, version, _) in old["chunks"].items():
            by_version.setdefault((doc_id, version), []).append(cid)
        assert all(kb.chunk_ids(doc_id, version) == ids for (doc_id, version), ids in by_version.items())
        assert dict(kb.chunk_documents()) == {cid: doc for cid, (doc, _, _) in old["chunks"].items()}
        ids, _ = kb.load_vectors("test-model")
        assert sorted(ids) == sorted(c for c, (_, _, text) in old["chunks"].items() if content_hash(text) in old["vectors"])
    after = schema(kb_target)
    assert "version_chunks" not in after and {"chunk_key", "tail"} <= after["chunks"]
    assert ("content_hash" in after["chunks"]) == is_postgres(str(kb_target))  # dense search in PostgreSQL joins on it


def test_a_chunk_id_is_found_by_its_whole_id_only(kb_target):
    from citebound.kb.bm25_index import chunk_id_of, chunk_key

    with KnowledgeBase.open(kb_target, create=True, chunk_size=SIZE, overlap=LAP) as kb:
        kb.ingest_documents([RawDocument("harbour", DOCS["harbour"][0][0], "harbour.txt")], progress=False)
        real = kb.chunk_ids("harbour")
        key, tail = chunk_key(real[0])
        other_tail = chunk_id_of(key, (tail + 1) % 2**32)  # the same first 64 bits, another id
        assert [c.id for c in kb.get_chunks([other_tail, real[0], "not an id", real[0]])] == [real[0], real[0]]
        # a chunk every version has keeps its id and is cited from the latest
        text = DOCS["harbour"][0][1]
        kb.ingest_documents([RawDocument("harbour", text, "harbour.txt")], progress=False)
        assert kb.get_chunk(real[0]).version == 2 and real[0] in kb.chunk_ids("harbour", 2)
        assert kb.chunk_ids("harbour", 1) == real
        assert {cid: t for cid, t, _ in kb.active_chunks()} == {c.id: c.text for c in kb.get_chunks(kb.chunk_ids("harbour"))}
