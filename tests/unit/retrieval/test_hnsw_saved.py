"""The approximate (HNSW) index is saved beside the KB and loaded by the next process, not rebuilt."""

from __future__ import annotations

import numpy as np
import pytest

from citebound.retrieval.vectors import VectorIndex, top_k

hnswlib = pytest.importorskip("hnswlib")


def _unit(n: int, seed: int) -> np.ndarray:
    m = np.random.default_rng(seed).standard_normal((n, 32)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_graph_is_saved_once_and_loaded_with_the_same_answers(tmp_path):
    ids = [f"c{i}" for i in range(500)]
    matrix = _unit(500, 1)
    built = VectorIndex(ids, matrix, use_hnsw=True, folder=tmp_path)
    assert built.hnsw_file is not None and built.hnsw_file.exists() and not built.hnsw_loaded
    again = VectorIndex(ids, matrix, use_hnsw=True, folder=tmp_path)
    assert again.hnsw_loaded and again.hnsw_file == built.hnsw_file
    query = _unit(1, 2)[0]
    assert again.search(query, 10) == built.search(query, 10)
    exact = {ids[i] for i in top_k(matrix @ query, 10)}
    assert len(exact & {cid for cid, _ in again.search(query, 10)}) >= 9


def test_other_chunks_get_a_new_graph_and_the_old_one_goes(tmp_path):
    first = VectorIndex([f"c{i}" for i in range(100)], _unit(100, 3), use_hnsw=True, folder=tmp_path)
    second = VectorIndex([f"c{i}" for i in range(101)], _unit(101, 3), use_hnsw=True, folder=tmp_path)
    assert not second.hnsw_loaded
    assert [p.name for p in tmp_path.glob("*.bin")] == [second.hnsw_file.name]
    assert not first.hnsw_file.exists()


def test_a_damaged_graph_file_is_rebuilt(tmp_path):
    ids, matrix = [f"c{i}" for i in range(50)], _unit(50, 4)
    path = VectorIndex(ids, matrix, use_hnsw=True, folder=tmp_path).hnsw_file
    path.write_bytes(b"not an index")
    rebuilt = VectorIndex(ids, matrix, use_hnsw=True, folder=tmp_path)
    assert not rebuilt.hnsw_loaded and rebuilt.search(matrix[0], 1)[0][0] == "c0"
