"""The BM25 read path by chunk key (issue 13, the BM25 query at 100k chunks): `Bm25Index.search_keys`
names the same chunks in the same order as `search`, ties included; `KnowledgeBase.chunks_by_key` gives
each chunk's exact text whether its version's text is in the cache (whole, or the blocks of a long text)
or is read from the stored body, with the KB's revision read in the same statement; on both backends."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citebound.db import is_postgres
from citebound.kb import KnowledgeBase
from citebound.kb.bm25_index import chunk_key
from citebound.kb.ingest import RawDocument
from citebound.kb.textcodec import BLOCK

DOCS = Path(__file__).resolve().parents[3] / "docs"
PARAS = [p.strip() for p in re.split(r"\n\s*\n", (DOCS / "architecture.md").read_text(encoding="utf-8"))
         if len(p.strip()) > 80]
LONG = " ".join(PARAS)  # several blocks of BLOCK characters: its chunks are read block by block
TWIN = "Lighthouse keepers on Hammeren logged every ship that passed the northern cliffs."
QUERIES = ["verifier sources", "package import table", "lighthouse keepers ship", "retrieval ranking BM25",
           "environment variable cache folder"]


def _documents() -> list[RawDocument]:
    docs = [RawDocument("long", LONG, "long.md")]
    docs += [RawDocument(f"p{i:02d}", text, f"p{i}.md") for i, text in enumerate(PARAS)]
    # the same text in two documents: two chunks with equal scores, ranked by chunk id
    docs += [RawDocument("twin-a", TWIN, "a.txt"), RawDocument("twin-b", TWIN, "b.txt")]
    return docs


def _statements(kb: KnowledgeBase) -> list[str]:
    """The statements the KB's SQLite connection runs from now on (appended as they run)."""
    seen: list[str] = []
    kb.db.set_trace_callback(seen.append)
    return seen


def test_search_keys_names_the_chunks_search_finds_in_its_order(kb_target):
    assert len(LONG) > 2 * BLOCK
    with KnowledgeBase.open(kb_target, create=True) as kb:
        kb.ingest_documents(_documents(), progress=False)
        tied = 0
        for query in QUERIES:
            found = kb.bm25.search(query, 20)
            assert found and kb.bm25.search_keys(query, 20) == [(chunk_key(cid)[0], score) for cid, score in found]
            tied += sum(a[1] == b[1] for a, b in zip(found, found[1:]))
        assert tied  # the twins: ties are ordered by chunk id in both
        assert kb.bm25.search_keys("   ", 5) == [] and kb.bm25.search_keys("lighthouse", 0) == []


def test_chunks_by_key_read_from_bodies_then_from_the_cache_are_exact(kb_target):
    with KnowledgeBase.open(kb_target, create=True) as kb:
        kb.ingest_documents(_documents(), progress=False)
        docs = dict(kb.chunk_documents())
        truth = {cid: (docs[cid], text) for cid, text, _ in kb.active_chunks()}  # decoded without the cache
        keys = {chunk_key(cid)[0]: cid for cid in truth}
        assert sum(doc == "long" for doc, _ in truth.values()) > 3
        sqlite = not is_postgres(str(kb_target))
        kb._texts.clear()
        # cold: every body is read (each long chunk's blocks only); warm: the same from the cache's blocks
        # and texts; then from whole texts put in the cache by `document_text`
        for state in ("cold", "warm", "whole texts"):
            if state == "whole texts":
                kb._texts.clear()
                for doc in {d for d, _ in truth.values()}:
                    kb.document_text(doc)
            seen = _statements(kb) if sqlite else []
            revision, chunks = kb.chunks_by_key(list(keys))
            assert revision == kb.revision
            assert set(chunks) == set(keys)
            assert {chunk.id: (chunk.doc_id, chunk.text) for chunk in chunks.values()} == truth
            assert all(keys[key] == chunk.id and chunk.version == 1 for key, chunk in chunks.items())
            if sqlite:
                bodies = [s for s in seen if "body" in s]
                assert len(bodies) == (1 if state == "cold" else 0)  # nothing read that the cache holds
                kb.db.set_trace_callback(None)
        assert kb.chunks_by_key([]) == (kb.revision, {})
        assert kb.chunks_by_key([12345]) == (kb.revision, {})  # a key no chunk has


def test_a_chunk_kept_by_a_new_version_is_read_at_that_version(kb_target):
    """A chunk's row names the latest version that has it: read after that version is written (its
    previous version's text in the cache), the chunk comes with the new version and the same text."""
    first, second = PARAS[0], PARAS[1]
    with KnowledgeBase.open(kb_target, create=True, chunk_size=200, overlap=0) as kb:
        kb.ingest_documents([RawDocument("d", first, "d.md")], progress=False)
        kept = kb.chunk_ids("d")[0]
        key = chunk_key(kept)[0]
        assert kb.chunks_by_key([key])[1][key].version == 1
        kb.ingest_documents([RawDocument("d", first + "\n\n" + second, "d.md")], progress=False)
        assert kept in kb.chunk_ids("d")  # the new version begins with the same chunk
        revision, chunks = kb.chunks_by_key([key])
        assert revision == kb.revision and chunks[key].version == 2
        assert chunks[key].text == kb.document_text("d", 2)[chunks[key].start : chunks[key].end]
        assert chunks[key].text == kb.document_text("d", 1)[chunks[key].start : chunks[key].end]


def test_an_index_that_stored_its_keys_is_rebuilt_on_open(tmp_path):
    """The index before fast fields kept `key` and `tail` as stored fields: it does not open with the
    schema now, and the KB rebuilds it from its chunks."""
    import tantivy

    from citebound.kb.bm25_index import ANALYZER, build_analyzer

    with KnowledgeBase.open(tmp_path / "kb", create=True) as kb:
        kb.ingest_documents(_documents()[1:6], progress=False)
        chunks, revision = list(kb.active_chunks()), kb.revision
    folder = tmp_path / "kb" / "bm25"
    for f in folder.iterdir():
        f.unlink()
    builder = tantivy.SchemaBuilder()
    builder.add_integer_field("key", stored=True, indexed=True)
    builder.add_integer_field("tail", stored=True, indexed=False)
    builder.add_text_field("body", stored=False, tokenizer_name=ANALYZER, index_option="freq")
    index = tantivy.Index(builder.build(), path=str(folder))
    index.register_tokenizer(ANALYZER, build_analyzer())
    writer = index.writer(heap_size=64_000_000, num_threads=1)
    for cid, text, _ in chunks:
        doc = tantivy.Document(body=text)
        doc.add_integer("key", chunk_key(cid)[0])
        doc.add_integer("tail", chunk_key(cid)[1])
        writer.add_document(doc)
    writer.commit()
    writer.wait_merging_threads()
    del writer, index
    (folder / "revision.json").write_text(f'{{"revision": {revision}}}')
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        assert kb.bm25.revision == revision and kb.bm25.num_docs() == len(chunks)
        found = kb.bm25.search_keys("package import table", 3)
        assert found and set(kb.chunks_by_key([k for k, _ in found])[1]) == {k for k, _ in found}


@pytest.mark.parametrize("n", [1, 501])
def test_more_keys_than_one_statement_takes(tmp_path, n):
    """Keys past one statement's page of 500 are read in further statements, the revision with each."""
    with KnowledgeBase.open(tmp_path / "kb", create=True, chunk_size=100, overlap=0) as kb:
        text = " ".join(f"Entry {i} of the ledger names the {i}th keeper of the light." for i in range(n * 2))
        kb.ingest_documents([RawDocument("ledger", text, "ledger.md")], progress=False)
        truth = {cid: t for cid, t, _ in kb.active_chunks()}
        assert len(truth) >= n
        revision, chunks = kb.chunks_by_key([chunk_key(cid)[0] for cid in truth])
        assert revision == kb.revision and {c.id: c.text for c in chunks.values()} == truth


def _segments(kb: KnowledgeBase) -> int:
    return kb.bm25.searcher().num_segments


def test_the_first_batch_s_early_commit_is_folded_into_the_last(kb_target, monkeypatch):
    """Ingest commits its first batch at once (the KB answers early) and defers the rest: the commit that
    ends the ingest adds that batch's chunks again, so the index ends as one segment holding each chunk
    once, also when a later batch of the same ingest changed a document of the first."""
    from citebound.kb import store

    monkeypatch.setattr(store, "INDEX_SYNC_EVERY_S", 3600.0)  # only the first batch commits early
    docs = [RawDocument(f"p{i:02d}", text, f"p{i}.md") for i, text in enumerate(PARAS)]
    changed = RawDocument("p01", "The keeper of the Hammeren light wrote the new rota on Mondays.", "p1.md")
    with KnowledgeBase.open(kb_target, create=True) as kb:
        report = kb.ingest_documents(docs + [changed], progress=False, batch_docs=5)
        assert report.updated == [("p01", 2)] and len(docs) >= 10
        chunks = dict(kb.chunk_documents())
        assert _segments(kb) == 1 and kb.bm25.num_docs() == len(chunks)
        assert [kb.get_chunk(c).doc_id for c, _ in kb.bm25.search("Hammeren rota Mondays", 3)] == ["p01"]
        old_text = kb.document_text("p01", 1)
        assert all(kb.get_chunk(c).version == 2 or kb.get_chunk(c).doc_id != "p01"
                   for c, _ in kb.bm25.search(old_text, 50))
        for doc in ("p00", "p04", "p05", docs[-1].doc_id):  # the first batch and the rest
            assert doc in {kb.get_chunk(c).doc_id for c, _ in kb.bm25.search(kb.document_text(doc)[:300], 20)}
        kb.ingest_documents([RawDocument("late", "A note about the lighthouse written later.", "late.md")],
                            progress=False)  # one batch: its own commit, one segment more
        assert _segments(kb) == 2 and kb.bm25.num_docs() == len(chunks) + 1
