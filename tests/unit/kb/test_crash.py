"""An index left behind SQLite, missing, corrupt or held by another process must leave a KB that opens
and answers. (A real `kill -9` in the middle of an ingest, on both backends: test_store_backends.py.)"""

from __future__ import annotations

import shutil

from citebound.kb import KnowledgeBase


def _owls_and_bees(folder):
    a, b = folder / "a.txt", folder / "b.txt"
    a.write_text("Owls hunt at night.", encoding="utf-8")
    b.write_text("Bees make honey in hives.", encoding="utf-8")
    return a, b


def test_an_index_behind_sqlite_is_detected_and_resynced_on_open(tmp_path):
    kb_dir, a, b = tmp_path / "kb", *_owls_and_bees(tmp_path)
    with KnowledgeBase.open(kb_dir, create=True) as kb:
        kb.ingest([a], progress=False)
    stale = tmp_path / "bm25-at-revision-1"
    shutil.copytree(kb_dir / "bm25", stale)
    with KnowledgeBase.open(kb_dir) as kb:
        kb.ingest([b], progress=False)
        kb.remove("a.txt")
        assert kb.revision == 3
    # the state a crash between the SQLite commit and the index commit leaves behind
    shutil.rmtree(kb_dir / "bm25")
    shutil.copytree(stale, kb_dir / "bm25")
    with KnowledgeBase.open(kb_dir) as kb:
        assert kb.bm25.revision == 3
        assert [kb.get_chunk(c).doc_id for c, _ in kb.bm25.search("honey bees")] == ["b.txt"]
        assert kb.bm25.search("owls night") == []



def test_an_index_killed_between_its_commit_and_its_revision_holds_each_chunk_once(tmp_path):
    """The index committed a batch but its revision was not written (killed in between): the catch-up on
    open applies that batch again, and must not leave its chunks in the index twice."""
    kb_dir, a, b = tmp_path / "kb", *_owls_and_bees(tmp_path)
    with KnowledgeBase.open(kb_dir, create=True) as kb:
        kb.ingest([a], progress=False)
        kb.ingest([b], progress=False)
        assert kb.revision == 2 and kb.bm25.num_docs() == 2
    (kb_dir / "bm25" / "revision.json").write_text('{"revision": 1}')  # the content is at revision 2
    with KnowledgeBase.open(kb_dir) as kb:
        assert kb.bm25.revision == 2 and kb.bm25.num_docs() == 2
        assert [kb.get_chunk(c).doc_id for c, _ in kb.bm25.search("honey bees")] == ["b.txt"]

def test_a_missing_or_corrupt_index_is_rebuilt(tmp_path):
    kb_dir = tmp_path / "kb"
    doc = tmp_path / "a.txt"
    doc.write_text("Glaciers carve valleys over thousands of years.", encoding="utf-8")
    with KnowledgeBase.open(kb_dir, create=True) as kb:
        kb.ingest([doc], progress=False)
    shutil.rmtree(kb_dir / "bm25")
    (kb_dir / "bm25").mkdir()
    (kb_dir / "bm25" / "meta.json").write_text("{ not json")
    with KnowledgeBase.open(kb_dir) as kb:
        assert kb.bm25.search("glaciers valleys")


def test_a_second_process_opening_during_a_write_does_not_fight_for_the_index(tmp_path):
    kb_dir = tmp_path / "kb"
    doc = tmp_path / "a.txt"
    doc.write_text("Volcanoes erupt molten rock.", encoding="utf-8")
    with KnowledgeBase.open(kb_dir, create=True) as kb:
        kb.ingest([doc], progress=False)
        kb.db.execute("UPDATE meta SET value = '9' WHERE key = 'revision'")  # SQLite ahead of the index
        writer = kb.bm25._index.writer()  # the index is held by a writer, as during an ingest elsewhere
        try:
            with KnowledgeBase.open(kb_dir) as other:  # must open and answer from the last commit
                assert other.bm25.search("volcanoes")
        finally:
            writer.rollback()
            del writer
