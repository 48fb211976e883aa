from __future__ import annotations

import os

import numpy as np
import pytest

from citebound.errors import InputError
from citebound.retrieval import Retriever
from citebound.types import Hit


def test_bm25_retrieves_labelled_sources_with_offsets(small_kb):
    hits = Retriever(small_kb, mode="bm25").retrieve("Who showed that citrus cures scurvy?", k=3)
    assert [h.source_id for h in hits] == ["S1", "S2", "S3"][: len(hits)]
    top = hits[0]
    assert top.chunk.doc_id == "docs/scurvy.txt"
    assert top.chunk.version == 1
    assert small_kb.document_text(top.chunk.doc_id, top.chunk.version)[top.chunk.start : top.chunk.end] == top.chunk.text
    assert top.scores["bm25"] > 0 and top.scores["fused"] == pytest.approx(1 / 61)


def test_query_syntax_is_never_interpreted(small_kb):
    r = Retriever(small_kb, mode="bm25")
    assert r.retrieve('owls AND "night" OR title:(birds) -prey', k=1)[0].chunk.doc_id == "docs/owls.txt"
    assert r.retrieve("!!! ??? ...", k=3) == []


def test_bad_arguments_are_input_errors(small_kb):
    with pytest.raises(InputError):
        Retriever(small_kb, mode="semantic")
    with pytest.raises(InputError):
        Retriever(small_kb, mode="bm25").retrieve("   ", k=3)
    with pytest.raises(InputError):
        Retriever(small_kb, mode="bm25").retrieve("owls", k=0)


@pytest.mark.slow
def test_dense_model_loads_offline_and_embeds_unit_vectors(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from citebound.models.embedder import Embedder

    vecs = Embedder(threads=1).embed(
        ["A cat sits on the mat.", "A kitten rests on a rug.", "Interest rates rose sharply."], batch_size=2
    )
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    sims = vecs @ vecs.T
    assert sims[0, 1] > 0.5 > sims[0, 2]  # paraphrases close, unrelated text far


@pytest.mark.slow
def test_one_shared_embedder_per_process_and_safe_first_use_from_threads(small_kb):
    """Retriever, KB and extractive backend share one loaded model; threads racing on first use
    (a server's worker pool) all get real vectors, never a half-loaded embedder."""
    from concurrent.futures import ThreadPoolExecutor

    from citebound.generation.backends.extractive import ExtractiveBackend
    from citebound.models.embedder import Embedder, shared_embedder

    assert shared_embedder(threads=1) is shared_embedder(threads=1)
    assert Retriever(small_kb, mode="dense").embedder is shared_embedder()

    fresh = Embedder(threads=1)  # never loaded: every thread below races to load it
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda i: fresh.embed([f"Bees make honey, sample {i}."]), range(8)))
    assert all(r.shape == (1, 384) and abs(float(np.linalg.norm(r)) - 1.0) < 1e-5 for r in results)

    backend = ExtractiveBackend()
    backend._embed(["Bees make honey."])
    assert backend._embedder is shared_embedder()


@pytest.mark.slow
def test_dense_and_hybrid_find_paraphrases_and_score_every_hit(small_kb):
    dense = Retriever(small_kb, mode="dense")
    hits = dense.retrieve("Which insects produce a sweet food?", k=2)
    assert hits[0].chunk.doc_id == "docs/bees.txt"
    hybrid = Retriever(small_kb, mode="hybrid", embedder=dense.embedder)
    hits = hybrid.retrieve("capital of France", k=5)
    assert hits[0].chunk.doc_id == "docs/paris.txt"
    assert all({"bm25", "dense", "fused"} <= set(h.scores) for h in hits)
    assert hits[0].scores["fused"] == pytest.approx(2 / 61)  # first in both rankings
    # every text is embedded once: a second retriever on the same KB embeds nothing
    assert small_kb.ensure_vectors(dense.embedder, progress=False) == 0


@pytest.mark.slow
def test_the_retriever_follows_kb_changes(tmp_path):
    from citebound.kb import KnowledgeBase

    doc = tmp_path / "tides.txt"
    doc.write_text("Tides are caused by the gravity of the Moon.", encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "kb", create=True) as kb:
        kb.ingest([doc], progress=False)
        r = Retriever(kb, mode="hybrid")
        assert r.retrieve("what causes tides", k=1)[0].chunk.version == 1
        doc.write_text("Tides are caused mainly by the Moon's gravity, and partly by the Sun's.", encoding="utf-8")
        kb.ingest([doc], progress=False)
        hit = r.retrieve("what causes tides", k=1)[0]
        assert hit.chunk.version == 2 and "Sun" in hit.chunk.text
        kb.remove("tides.txt")
        assert r.retrieve("what causes tides", k=1) == []


class ReverseReranker:
    """A reranker that reverses the candidates: enough to show the hook is applied, and before labelling."""

    def rerank(self, question, hits):
        return [Hit(h.source_id, h.chunk, {**h.scores, "rerank": float(i)}) for i, h in enumerate(reversed(hits))]


def test_rerank_hook_reorders_candidates_before_labelling(small_kb):
    plain = Retriever(small_kb, mode="bm25", depth=5).retrieve("bees honey owls birds", k=5)
    reranked = Retriever(small_kb, mode="bm25", depth=5, reranker=ReverseReranker()).retrieve("bees honey owls birds", k=5)
    assert [h.chunk.id for h in reranked] == [h.chunk.id for h in reversed(plain)]
    assert reranked[0].source_id == "S1" and "rerank" in reranked[0].scores


def test_should_abstain_uses_the_threshold_stored_in_the_kb(small_kb):
    r = Retriever(small_kb, mode="bm25")
    hits = r.retrieve("owls hunt at night", k=2)
    assert r.should_abstain([]) is True
    assert r.should_abstain(hits) is False  # not calibrated: abstain only without evidence
    best = hits[0].scores["bm25"]
    small_kb.set_json("abstain_threshold", {"bm25": {"feature": "bm25", "threshold": best + 1}})
    try:
        assert r.should_abstain(hits) is True
        small_kb.set_json("abstain_threshold", {"bm25": {"feature": "bm25", "threshold": best - 1}})
        assert r.should_abstain(hits) is False
    finally:
        small_kb.set_json("abstain_threshold", {})
