from __future__ import annotations

import numpy as np
import pytest

from citebound.retrieval.vectors import VectorIndex, top_k


def _unit(rng, n, d=16):
    x = rng.standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_top_k_is_sorted_and_breaks_ties_by_index():
    scores = np.array([0.1, 0.9, 0.5, 0.9, -1.0])
    assert top_k(scores, 3).tolist() == [1, 3, 2]
    assert top_k(scores, 10).tolist() == [1, 3, 2, 0, 4]
    assert top_k(scores, 0).tolist() == []


def test_exact_search_returns_cosines_best_first():
    rng = np.random.default_rng(0)
    m = _unit(rng, 50)
    index = VectorIndex([f"c{i}" for i in range(50)], m, use_hnsw=False)
    found = index.search(m[7], 5)
    assert found[0][0] == "c7" and found[0][1] == pytest.approx(1.0, abs=1e-5)
    assert [s for _, s in found] == sorted((s for _, s in found), reverse=True)
    assert index.score_of(m[7], ["c7", "missing"]) == {"c7": pytest.approx(1.0, abs=1e-5)}


def test_hnsw_agrees_with_exact_search_on_a_small_set():
    pytest.importorskip("hnswlib")
    rng = np.random.default_rng(1)
    m = _unit(rng, 500)
    ids = [f"c{i}" for i in range(500)]
    exact, approx = VectorIndex(ids, m, use_hnsw=False), VectorIndex(ids, m, use_hnsw=True)
    assert approx._hnsw is not None
    for q in m[:20]:
        e, a = exact.search(q, 10), approx.search(q, 10)
        assert len({i for i, _ in e} & {i for i, _ in a}) >= 9
        assert a[0][1] == pytest.approx(e[0][1], abs=1e-4)


def test_empty_index_finds_nothing():
    index = VectorIndex([], np.zeros((0, 0), dtype=np.float32))
    assert index.search(np.ones(4, dtype=np.float32), 3) == []
