"""A bulk ingest holds the BM25 index's writer open and indexes each batch as it is written
(`KnowledgeBase._begin_session`, `bm25_index.IndexSession`): the index must end exactly as the KB —
each current chunk once, replaced ones gone, in one segment — also when another writer changes the KB
between two batches, and when the ingest fails half-way."""

from __future__ import annotations

import pytest

from citebound.kb import KnowledgeBase
from citebound.kb import store as store_module
from citebound.kb.ingest import RawDocument

WORDS = ["amber", "basalt", "cobalt", "dolomite", "emerald", "feldspar", "garnet", "hematite", "jasper",
         "kyanite", "lazurite", "malachite"]


def _doc(i: int, version: str = "first") -> RawDocument:
    word = WORDS[i]
    return RawDocument(f"doc{i}", f"The {word} sample was logged in the {version} survey of the quarry.", f"doc{i}.txt")


def _found(kb: KnowledgeBase, word: str) -> list[tuple[str, str]]:
    return sorted((kb.get_chunk(c).doc_id, kb.get_chunk(c).text.split()[-5]) for c, _ in kb.bm25.search(word))


def _index_matches_kb(kb: KnowledgeBase, expected: dict[str, str]) -> None:
    assert kb.bm25.revision == kb.revision
    assert kb.bm25.num_docs() == len(expected)
    for i, word in enumerate(WORDS):
        doc_id = f"doc{i}"
        assert _found(kb, word) == ([(doc_id, expected[doc_id])] if doc_id in expected else [])


def test_a_bulk_ingest_with_updates_across_batches_leaves_the_index_as_the_kb(kb):
    # 3 documents a batch: doc1 and doc4 change in later batches, doc2 twice in one batch
    docs = [_doc(0), _doc(1), _doc(2), _doc(3), _doc(2, "second"), _doc(4), _doc(1, "third"), _doc(5),
            _doc(6), _doc(4, "fourth"), _doc(7)]
    report = kb.ingest_documents(docs, progress=False, batch_docs=3)
    assert kb.revision == 4  # four batches
    expected = {f"doc{i}": "first" for i in range(8)} | {"doc1": "third", "doc2": "second", "doc4": "fourth"}
    _index_matches_kb(kb, expected)
    assert report.chunks_added == 11
    # the first batch's early segment was emptied by the re-add, and the rest went into one segment
    assert kb.bm25.searcher().num_segments == 1
    # a second bulk ingest soon after (its first batch not committed to the index at once)
    kb.ingest_documents([_doc(8), _doc(0, "fifth"), _doc(9), _doc(10), _doc(3, "sixth")], progress=False,
                        batch_docs=2)
    _index_matches_kb(kb, expected | {"doc0": "fifth", "doc3": "sixth", "doc8": "first", "doc9": "first",
                                      "doc10": "first"})


def test_another_writer_between_two_batches_is_caught_up_from_the_database(tmp_path, monkeypatch):
    # the other KB's own sync finds the index's writer held, and gives up at once (not after 30 s)
    monkeypatch.setattr(store_module, "INDEX_WAIT_S", 0.05)
    folder = tmp_path / "kb"
    with KnowledgeBase.open(folder, create=True) as kb:
        def items():
            yield from (_doc(0), _doc(1), _doc(2), _doc(3))
            with KnowledgeBase.open(folder) as other:  # a second writer: a new document, and doc1 changed
                other.ingest_documents([_doc(11), _doc(1, "other")], progress=False)
                assert other.bm25.revision < other.revision  # it could not index them itself
            yield from (_doc(4), _doc(5))

        kb.ingest_documents(items(), progress=False, batch_docs=2)
        assert kb.revision == 4
        expected = {f"doc{i}": "first" for i in range(6)} | {"doc1": "other", "doc11": "first"}
        _index_matches_kb(kb, expected)
    with KnowledgeBase.open(folder) as kb:
        _index_matches_kb(kb, expected)


def test_an_ingest_that_fails_half_way_leaves_an_index_that_catches_up(tmp_path):
    folder = tmp_path / "kb"

    def items():
        yield from (_doc(0), _doc(1), _doc(2), _doc(3), _doc(4))
        raise RuntimeError("the source broke")

    with KnowledgeBase.open(folder, create=True) as kb:
        with pytest.raises(RuntimeError, match="the source broke"):
            kb.ingest_documents(items(), progress=False, batch_docs=2)
        assert kb.revision == 2  # two whole batches were written; the index writer was let go
        kb.ingest_documents([_doc(5)], progress=False)  # so the next write can take it
        _index_matches_kb(kb, {f"doc{i}": "first" for i in (0, 1, 2, 3, 5)})
