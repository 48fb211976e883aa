from __future__ import annotations

import pytest

from citebound.kb.bm25_index import B, K1, bm25_term_factor
from citebound.retrieval.fusion import rrf, rrf_score


def test_seed_example_rrf_k60():
    a = rrf_score([1, 3], k=60)
    b = rrf_score([2, 1], k=60)
    assert a == pytest.approx(0.0322665, abs=5e-8)
    assert b == pytest.approx(0.0325225, abs=5e-8)
    fused = rrf([["A", "B", "C"], ["B", "C", "A"]], k=60)
    assert [item for item, _ in fused][:2] == ["B", "A"]
    assert dict(fused)["A"] == pytest.approx(a) and dict(fused)["B"] == pytest.approx(b)


def test_rrf_counts_items_missing_from_a_ranking_once():
    fused = dict(rrf([["x", "y"], ["z"]], k=0))
    assert fused == {"x": 1.0, "y": 0.5, "z": 1.0}


def test_rrf_ties_keep_first_seen_order_and_k_must_be_non_negative():
    assert [i for i, _ in rrf([["a"], ["b"]])] == ["a", "b"]
    with pytest.raises(ValueError):
        rrf_score([1], k=-1)


def test_seed_example_bm25_term_factor():
    assert (K1, B) == (1.2, 0.75)
    assert bm25_term_factor(tf=2, doc_len=100, avg_len=100) == pytest.approx(1.375)
