"""Dense search inside PostgreSQL (citebound.kb.dense_db): pgvector's HNSW index answers, the results are
the in-process exact search's, retired texts are skipped, and the process loads no vectors. Real
PostgreSQL 16 + pgvector (pgserver), the real embedder."""

from __future__ import annotations

import pytest

from citebound.kb import KnowledgeBase
from citebound.kb.ingest import RawDocument

ANIMALS = ["Owls hunt small mammals at night.", "Bees make honey from nectar.", "Volcanoes erupt molten rock.",
           "Glaciers carve valleys over thousands of years.", "Owls have silent feathers for hunting.",
           "Salmon swim upstream to spawn.", "Bats find insects by echolocation.",
           "Penguins cannot fly but swim well.", "Foxes hunt rodents under the snow.",
           "Hawks dive at great speed to catch prey."]
QUESTIONS = ["how do owls hunt", "which animals swim", "what do bees make", "how do glaciers shape land"]


@pytest.fixture
def pg_kb(postgres_server):
    with KnowledgeBase.open(postgres_server.new_database(), create=True) as kb:
        kb.ingest_documents([RawDocument(f"a{i}", t, f"a{i}") for i, t in enumerate(ANIMALS)], progress=False,
                            embed=True)
        yield kb


def test_the_nearest_vectors_come_from_the_hnsw_index_and_match_exact_search(pg_kb):
    from citebound.kb.dense_db import DatabaseVectors
    from citebound.retrieval import Retriever

    in_db = Retriever(pg_kb, mode="dense", progress=False)
    in_process = Retriever(pg_kb, mode="dense", progress=False, in_database=False)
    assert in_db.in_database and not in_process.in_database
    for question in QUESTIONS:
        a = [(h.chunk.id, h.scores["dense"]) for h in in_db.retrieve(question, k=5)]
        b = [(h.chunk.id, h.scores["dense"]) for h in in_process.retrieve(question, k=5)]
        assert [c for c, _ in a] == [c for c, _ in b]
        assert all(abs(x - y) < 1e-5 for (_, x), (_, y) in zip(a, b))
    assert isinstance(in_db.vector_index, DatabaseVectors)  # the server process holds no matrix
    # the query the search runs is planned on the partial HNSW index
    index = in_db.vector_index
    q = pg_kb.db.encode_vector(in_db.embed_queries(["owls"])[0])
    plan = "\n".join(r[0] for r in pg_kb.db.execute("EXPLAIN " + index._nearest, (q, 10)).fetchall())
    assert "vectors_hnsw_minilm" in plan


def test_hybrid_fills_in_exact_dense_scores_for_bm25_only_candidates(pg_kb):
    from citebound.retrieval import Retriever

    a = Retriever(pg_kb, mode="hybrid", progress=False).retrieve("owls hunt at night", k=8)
    b = Retriever(pg_kb, mode="hybrid", progress=False, in_database=False).retrieve("owls hunt at night", k=8)
    assert [h.chunk.id for h in a] == [h.chunk.id for h in b]
    assert all(abs(x.scores["dense"] - y.scores["dense"]) < 1e-5 for x, y in zip(a, b))


def test_retired_texts_are_skipped_even_when_they_are_the_nearest(pg_kb):
    """Vectors stay keyed by text after a document is removed; the search asks for more until it has
    `limit` retrievable chunks."""
    from citebound.kb.dense_db import DatabaseVectors
    from citebound.retrieval import Retriever

    owls = [RawDocument(f"owl{i}", f"Owls hunt mice at night, note {i}.", f"owl{i}") for i in range(14)]
    pg_kb.ingest_documents(owls, progress=False, embed=True)
    for doc in owls:
        pg_kb.remove(doc.doc_id)
    retriever = Retriever(pg_kb, mode="dense", progress=False)
    hits = retriever.retrieve("owls hunting mice at night", k=3)
    assert len(hits) == 3 and not any(h.chunk.doc_id.startswith("owl") for h in hits)
    index = retriever.vector_index
    assert isinstance(index, DatabaseVectors) and index.searches >= 2  # the first 10 nearest were all retired
    assert len(index) == len(ANIMALS) + len(owls)  # their vectors are still stored
    exact = Retriever(pg_kb, mode="dense", progress=False, in_database=False).retrieve("owls hunting mice at night", k=3)
    assert [h.chunk.id for h in hits] == [h.chunk.id for h in exact]


def test_a_search_deeper_than_one_hnsw_scan_is_exact(pg_kb):
    from citebound.kb.dense_db import EF_SEARCH_MAX, DatabaseVectors
    from citebound.retrieval import Retriever

    retriever = Retriever(pg_kb, mode="dense", progress=False)
    q = retriever.embed_queries(["owls"])[0]
    index = DatabaseVectors(pg_kb, retriever.embedder.name)  # dimension read from the stored vectors
    assert index.dim == 384
    deep = index.search(q, EF_SEARCH_MAX + 1)
    assert len(deep) == len(ANIMALS) and deep == sorted(deep, key=lambda x: -x[1])


def test_the_index_migration_runs_only_on_postgresql(tmp_path):
    with KnowledgeBase.open(tmp_path / "kb", create=True) as kb:
        names = [r[0] for r in kb.db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")]
        assert "vectors_hnsw_minilm" not in names and "chunks_by_hash" not in names
        applied = [r[0] for r in kb.db.execute("SELECT name FROM _migrations")]
        assert "m007_postgres_vector_index" in applied
