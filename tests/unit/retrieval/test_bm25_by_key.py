"""`retrieve` in bm25 mode without a reranker takes its own path (chunks named by key from the index to
the fetch, the KB's revision read with the chunks): the same hits as the general path, and it follows a
change another handle on the KB made (as another process or server would), on both backends."""

from __future__ import annotations

from citebound.kb import KnowledgeBase
from citebound.kb.ingest import RawDocument
from citebound.retrieval import Retriever
from citebound.types import Hit

QUERIES = ["Who showed that citrus cures scurvy?", "bees honey owls birds", "capital of France",
           "programming language released 1991", "night", "owls AND \"night\" OR title:(birds)"]


def _general_path(retriever: Retriever, question: str, k: int) -> list[Hit]:
    """What `retrieve` builds from `rank` and `get_chunks` for bm25 mode (its code before the key path)."""
    candidates = retriever.rank(question, k)[:k]
    chunks = {c.id: c for c in retriever.kb.get_chunks([c.chunk_id for c in candidates])}
    found = [c for c in candidates if c.chunk_id in chunks]
    return [Hit(f"S{i}", chunks[c.chunk_id], dict(c.scores)) for i, c in enumerate(found, 1)]


def test_bm25_retrieve_gives_the_hits_of_the_general_path(small_kb):
    retriever = Retriever(small_kb, mode="bm25")
    for k in (1, 3, 10):
        for question in QUERIES:
            assert retriever.retrieve(question, k=k) == _general_path(retriever, question, k)
    assert any(len(retriever.retrieve(q, k=10)) > 1 for q in QUERIES)


def test_bm25_retrieve_follows_a_change_made_through_another_handle(kb_target):
    with KnowledgeBase.open(kb_target, create=True) as kb, KnowledgeBase.open(kb_target) as other:
        kb.ingest_documents([RawDocument("tides", "Tides are caused by the gravity of the Moon.", "t.txt")],
                            progress=False)
        retriever = Retriever(kb, mode="bm25")
        assert retriever.retrieve("what causes tides", k=1)[0].chunk.version == 1
        other.ingest_documents([RawDocument("tides", "Tides are caused mainly by the Moon's gravity, and "
                                            "partly by the Sun's.", "t.txt")], progress=False)
        hit = retriever.retrieve("what causes tides", k=1)[0]
        assert hit.chunk.version == 2 and "Sun" in hit.chunk.text and hit.source_id == "S1"
        other.ingest_documents([RawDocument("eclipse", "A solar eclipse hides the Sun behind the Moon.",
                                            "e.txt")], progress=False)
        assert [h.chunk.doc_id for h in retriever.retrieve("solar eclipse", k=3)] == ["eclipse"]
        other.remove("tides")
        assert retriever.retrieve("what causes tides", k=1) == []
        assert retriever._bm25_revision == kb.revision == other.revision
