"""Nearest-neighbour search over the KB's chunk vectors.

Exact search (one matrix-vector product, numpy) is the default: recall 1.0 and about 17 ms per query
at 100k x 384, bound by memory bandwidth. Past `HNSW_MIN_CHUNKS` chunks, and only when the optional
`hnswlib` extra is installed (`pip install 'citebound[ann]'`), an HNSW graph (M=32, ef_construction=200,
ef=max(100, 2*limit)) is used instead, trading a little recall for speed. Given a `folder` (the
retriever passes `<kb>/ann/<model>/`), the graph is saved there once built, as `<digest>.bin` where the
digest hashes the chunk ids in order (a graph's labels are positions in that list), and loaded from there
by every later process with the same vectors instead of being rebuilt; older graphs in the folder are
removed when a new one is saved. Who builds it (`ann`): `citebound embed` / `ingest` and evaluations
build it before they finish, a server in the background while it answers exactly, and a one-question
process only loads a saved one. Any change to the KB's vectors means a new graph (built whole, not
updated).
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from pathlib import Path

import numpy as np

# Past this many vectors the graph is used. At 100k x 384 here (idle, 2 cores): exact search 16.6 ms a
# query, a quarter of a warm `ask` (p50 108 ms); HNSW about 1 ms with recall@10 0.988 against exact search,
# `ask` p50 69 ms; the graph took 30 s to build once and 0.16 s to load (docs/scaling.md).
HNSW_MIN_CHUNKS = 50_000
ANN_MODES = ("build", "background", "load")
log = logging.getLogger(__name__)


def top_k(scores: np.ndarray, limit: int) -> np.ndarray:
    """Indices of the `limit` largest scores, best first (ties by index)."""
    limit = min(limit, scores.shape[0])
    if limit <= 0:
        return np.zeros(0, dtype=np.int64)
    part = np.argpartition(-scores, limit - 1)[:limit]
    return part[np.lexsort((part, -scores[part]))]


class VectorIndex:
    def __init__(
        self, ids: list[str], matrix: np.ndarray, use_hnsw: bool | None = None, folder: Path | None = None,
        ann: str = "build",
    ) -> None:
        """`ann` says what to do when the graph is wanted and no saved one matches these vectors: "build"
        it now (what evaluations and `citebound embed` want: every search approximate alike), build it
        in a "background" thread and search exactly until it is there (a server: it answers at once),
        or only "load" a saved one and otherwise search exactly (a one-question process, which would
        exit before a build finished)."""
        if ann not in ANN_MODES:
            raise ValueError(f"ann must be one of {ANN_MODES}, not {ann!r}")
        self.ids = ids
        self.matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        self.position = {cid: i for i, cid in enumerate(ids)}
        self._hnsw = None
        self.hnsw_file: Path | None = None  # where the graph was loaded from or saved to
        self.hnsw_loaded = False
        self._building: threading.Thread | None = None
        self._cancelled = False
        if use_hnsw is None:
            use_hnsw = len(ids) >= HNSW_MIN_CHUNKS
        if use_hnsw and len(ids):
            self._hnsw = self._graph(folder, build=ann == "build")
            if self._hnsw is None and ann == "background" and _hnswlib() is not None:
                self._building = threading.Thread(target=self._build_later, args=(folder,), daemon=True,
                                                  name="hnsw-build")
                self._building.start()

    def _build_later(self, folder: Path | None) -> None:
        graph = self._graph(folder, keep=lambda: not self._cancelled)
        if graph is None:  # cancelled: the vectors changed meanwhile, a newer index builds its own
            return
        self._hnsw = graph  # one assignment: a search sees either no graph (exact) or the whole graph
        log.info("HNSW graph over %d vectors ready", len(self.ids))

    def cancel(self) -> None:
        """This index is no longer used (the KB's vectors changed): a background build still running
        neither saves its graph (which would remove the newer one's file) nor installs it."""
        self._cancelled = True

    @property
    def uses_graph(self) -> bool:
        """Whether searches go through the approximate graph now (else exact)."""
        return self._hnsw is not None

    def wait_for_graph(self, timeout: float | None = None) -> bool:
        """Wait for a background build (if any); True when the graph is in use."""
        if self._building is not None:
            self._building.join(timeout)
        return self._hnsw is not None

    def _graph(self, folder: Path | None, build: bool = True, keep=lambda: True):  # noqa: ANN202, ANN001
        hnswlib = _hnswlib()
        if hnswlib is None:
            return None
        dim = self.matrix.shape[1]
        path = None
        if folder is not None:
            digest = hashlib.sha256("\n".join(self.ids).encode("utf-8") + str(dim).encode()).hexdigest()[:32]
            path = Path(folder) / f"{digest}.bin"
            if path.exists():
                index = hnswlib.Index(space="ip", dim=dim)
                try:
                    index.load_index(str(path), max_elements=len(self.ids))
                except (RuntimeError, OSError) as exc:  # a truncated or foreign file: rebuild it
                    log.warning("HNSW index %s unreadable (%s): rebuilding it", path, exc)
                else:
                    if index.get_current_count() == len(self.ids):
                        self.hnsw_file, self.hnsw_loaded = path, True
                        return index
        if not build:
            return None
        index = hnswlib.Index(space="ip", dim=dim)
        index.init_index(max_elements=len(self.ids), M=32, ef_construction=200)
        index.add_items(self.matrix, np.arange(len(self.ids)))
        if not keep():
            return None
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
                index.save_index(str(tmp))
                os.replace(tmp, path)
                for old in path.parent.glob("*.bin"):
                    if old != path:
                        old.unlink(missing_ok=True)
                self.hnsw_file = path
            except OSError as exc:  # a read-only KB still answers; it rebuilds the graph next start
                log.warning("could not save the HNSW index to %s: %s", path, exc)
        return index

    def __len__(self) -> int:
        return len(self.ids)

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Cosine similarity of the query with every chunk (vectors are unit length)."""
        if not len(self.ids):
            return np.zeros(0, dtype=np.float32)
        return self.matrix @ query.astype(np.float32)

    def search(self, query: np.ndarray, limit: int) -> list[tuple[str, float]]:
        if not len(self.ids) or limit <= 0:
            return []
        if self._hnsw is not None:
            self._hnsw.set_ef(max(100, 2 * limit))
            labels, distances = self._hnsw.knn_query(query[None, :], k=min(limit, len(self.ids)))
            return [(self.ids[i], float(1.0 - d)) for i, d in zip(labels[0], distances[0])]
        scores = self.scores(query)
        return [(self.ids[i], float(scores[i])) for i in top_k(scores, limit)]

    def score_of(self, query: np.ndarray, chunk_ids: list[str]) -> dict[str, float]:
        rows = [self.position[c] for c in chunk_ids if c in self.position]
        if not rows:
            return {}
        vals = self.matrix[rows] @ query.astype(np.float32)
        return {self.ids[r]: float(v) for r, v in zip(rows, vals)}


def _hnswlib():  # noqa: ANN202 - the module, or None without the optional `ann` extra
    try:
        import hnswlib
    except ImportError:
        return None
    return hnswlib
