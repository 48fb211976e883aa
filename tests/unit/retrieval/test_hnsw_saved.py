"""The approximate (HNSW) index is saved beside the KB and loaded by the next process, not rebuilt."""

from __future__ import annotations

from pathlib import Path

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


def test_load_mode_never_builds_and_searches_exactly(tmp_path):
    ids, matrix = [f"c{i}" for i in range(300)], _unit(300, 5)
    lazy = VectorIndex(ids, matrix, use_hnsw=True, folder=tmp_path, ann="load")
    assert not lazy.uses_graph and lazy._building is None and not list(tmp_path.glob("*.bin"))
    query = _unit(1, 6)[0]
    assert [c for c, _ in lazy.search(query, 10)] == [ids[i] for i in top_k(matrix @ query, 10)]
    built = VectorIndex(ids, matrix, use_hnsw=True, folder=tmp_path)  # what `citebound embed` does
    assert VectorIndex(ids, matrix, use_hnsw=True, folder=tmp_path, ann="load").hnsw_file == built.hnsw_file


def test_background_mode_answers_exactly_until_the_graph_is_built_then_saves_it(tmp_path):
    ids, matrix = [f"c{i}" for i in range(2000)], _unit(2000, 7)
    query = _unit(1, 8)[0]
    exact = [ids[i] for i in top_k(matrix @ query, 10)]
    server = VectorIndex(ids, matrix, use_hnsw=True, folder=tmp_path, ann="background")
    first = [c for c, _ in server.search(query, 10)]  # exact or approximate, whichever is ready: never an error
    assert len(set(first) & set(exact)) >= 9
    assert server.wait_for_graph(timeout=120) and server._hnsw is not None
    assert server.hnsw_file is not None and server.hnsw_file.exists()
    assert len({c for c, _ in server.search(query, 10)} & set(exact)) >= 9
    later = VectorIndex(ids, matrix, use_hnsw=True, folder=tmp_path, ann="background")
    assert later.hnsw_loaded and later._building is None  # loaded, nothing left to build


def test_an_unknown_ann_mode_is_an_error():
    with pytest.raises(ValueError, match="ann must be one of"):
        VectorIndex(["c0"], _unit(1, 9), ann="sometimes")


def test_embed_builds_the_graph_and_a_one_question_retriever_loads_it(tmp_path, monkeypatch):
    """`citebound embed` builds and saves the graph past HNSW_MIN_CHUNKS (lowered here to fit the sample
    handbook), so that `ask` in a fresh process loads it instead of searching exactly or building."""
    import typer
    from typer.testing import CliRunner

    import citebound.retrieval.vectors as vectors
    from citebound.cli import kb as kb_commands
    from citebound.kb import KnowledgeBase
    from citebound.retrieval import Retriever
    from citebound.samples import __file__ as samples_init

    monkeypatch.setattr(vectors, "HNSW_MIN_CHUNKS", 3)
    app = typer.Typer()
    kb_commands.register(app)
    handbook = str(Path(samples_init).parent / "handbook")
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", handbook, "--kb", str(tmp_path / "kb"), "--no-embed"]).exit_code == 0
    assert not (tmp_path / "kb" / "ann").exists()
    result = runner.invoke(app, ["embed", "--kb", str(tmp_path / "kb")])
    assert result.exit_code == 0 and "approximate-search graph over" in result.output, result.output
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        retriever = Retriever(kb, mode="hybrid", progress=False)  # ann="load": what `ask` uses
        hits = retriever.retrieve("How long do refunds take?", k=3)
        assert retriever.vector_index.hnsw_loaded and hits[0].chunk.doc_id.endswith("refunds.md")


def test_a_cancelled_background_build_neither_saves_nor_installs_its_graph(tmp_path):
    ids, matrix = [f"c{i}" for i in range(300)], _unit(300, 10)
    stale = VectorIndex(ids, matrix, use_hnsw=True, folder=tmp_path, ann="load")  # no thread: run its body here
    stale.cancel()  # the KB's vectors changed while it was building
    stale._build_later(tmp_path)
    assert stale._hnsw is None and stale.hnsw_file is None
    assert not list(tmp_path.glob("*.bin")) and not list(tmp_path.glob("*.tmp"))
    live = VectorIndex(ids, matrix, use_hnsw=True, folder=tmp_path, ann="load")
    live._build_later(tmp_path)  # not cancelled: installs and saves
    assert live._hnsw is not None and live.hnsw_file is not None and live.hnsw_file.exists()
