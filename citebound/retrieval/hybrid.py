"""The retriever: BM25 (tantivy), dense (MiniLM) or both fused with RRF, over a KnowledgeBase.

    from citebound.kb import KnowledgeBase
    from citebound.retrieval import Retriever
    kb = KnowledgeBase.open("my-kb")
    retriever = Retriever(kb, mode="hybrid")           # or "bm25", "dense"
    hits = retriever.retrieve("What causes scurvy?", k=5)   # Hit labels S1..S5
    if retriever.should_abstain(hits): ...

Each `Hit.scores` has "bm25", "dense" and "fused": bm25 is tantivy's score, 0.0 when the chunk was not
among BM25's top `depth` candidates (or matched no query word); dense is the cosine similarity (always
exact, computed for every hit when vectors exist); fused is the RRF score (in bm25 or dense mode, the
RRF score of that single ranking). Candidates: `depth` (default 100) from each ranking before fusion.
The retriever follows the KB: when its revision changes, the index and vectors are reloaded, and so are
the vectors when another process (`citebound embed`) has committed more of them. A query embeds the
chunks without a vector itself only when they are few (`embed_at_query`, default
`config.EMBED_AT_QUERY_MAX`); past that, dense ranks the chunks that have one (a chunk without one gets
dense score 0.0) so that a KB answers from BM25 at once after `ingest --no-embed`. `warm_up()` embeds all.

Where dense search runs: for a SQLite KB, in this process (`retrieval.vectors.VectorIndex`: the vectors
loaded into memory, exact or HNSW); for a KB in PostgreSQL, in the database (`kb.dense_db`: pgvector's
HNSW index), so a server loads no vectors (`in_database=False` searches such a KB in the process too).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from citebound import config
from citebound.errors import InputError
from citebound.retrieval.abstain import (
    SETTING_KEY,
    retrieval_strength,
    strength_feature,
)
from citebound.retrieval.base import Reranker
from citebound.retrieval.fusion import DEFAULT_RRF_K, rrf
from citebound.types import Hit

MODES = ("hybrid", "bm25", "dense")
_LABELS = tuple(f"S{i}" for i in range(1, 101))  # the source ids of the first hits, made once
CANDIDATE_DEPTH = config.CANDIDATE_DEPTH  # each ranking's candidates before fusion (evaluations rank deeper)


@dataclass(frozen=True, slots=True)
class Candidate:
    chunk_id: str
    scores: dict[str, float]


class Retriever:
    def __init__(
        self,
        kb,
        mode: str = "hybrid",
        rrf_k: int = DEFAULT_RRF_K,
        reranker: Reranker | None = None,
        depth: int = CANDIDATE_DEPTH,
        embedder=None,
        progress: bool = True,
        embed_at_query: int = config.EMBED_AT_QUERY_MAX,
        in_database: bool | None = None,
        ann: str = "load",
    ) -> None:
        if mode not in MODES:
            raise InputError(f"unknown retrieval mode {mode!r}; choose one of {', '.join(MODES)}")
        if rrf_k < 0:
            raise InputError("rrf_k must be >= 0")
        self.kb = kb
        self.mode = mode
        self.rrf_k = rrf_k
        self.reranker = reranker
        self.depth = depth
        self.progress = progress
        self._embedder = embedder
        self.embed_at_query = embed_at_query
        self.in_database = kb.shared if in_database is None else (in_database and kb.shared)
        self.ann = ann  # past retrieval.vectors.HNSW_MIN_CHUNKS: build | background | load the graph
        self._vectors = None
        self._vectors_stamp: tuple[int, str | None] | None = None
        self._bm25_revision = kb.revision

    # -- components, loaded lazily ---------------------------------------------------------------------
    @property
    def embedder(self):
        if self._embedder is None:
            from citebound.models.embedder import shared_embedder

            self._embedder = shared_embedder()
        return self._embedder

    @property
    def uses_dense(self) -> bool:
        return self.mode in ("dense", "hybrid")

    def warm_up(self, embed_missing: bool = True, ann: str = "build") -> None:
        """Load the model and vectors now instead of on first query, embedding any chunk that has none
        (with `embed_missing=False`, only as many as a query would: `embed_at_query`). Past
        `HNSW_MIN_CHUNKS` vectors the approximate graph is loaded, or built first (`ann="build"`, the
        default: every later search alike) or in the background (`"background"`: a server answers
        exactly meanwhile); `"load"` never builds."""
        if self.uses_dense:
            if ann != self.ann:
                self._drop_vectors()
                self.ann = ann  # this mode from now on, from the next load too
            self._vector_index(embed_all=embed_missing)

    @property
    def vector_index(self):  # noqa: ANN201 - a VectorIndex or DatabaseVectors
        """The dense index loaded now (None before the first dense query or `warm_up`, and in bm25
        mode): what a caller reports on, e.g. whether its approximate graph was built or loaded."""
        return self._vectors

    def _drop_vectors(self) -> None:
        """Forget the loaded vectors; a graph still being built for them is cancelled (not saved)."""
        old, self._vectors = self._vectors, None
        if old is not None and hasattr(old, "cancel"):
            old.cancel()

    def _stamp(self) -> tuple[int, str | None]:
        from citebound.kb.store import VECTORS_STAMP

        return self.kb.revision, self.kb.get_setting(VECTORS_STAMP)

    def _vector_index(self, embed_all: bool = False):
        if self._vectors is None or self._vectors_stamp != self._stamp() or embed_all:
            from citebound.retrieval.vectors import VectorIndex

            at_most = None if embed_all else self.embed_at_query
            if at_most != 0:  # (0: embed nothing, and do not read every chunk's text to find that out)
                self.kb.ensure_vectors(self.embedder, progress=self.progress, at_most=at_most)
            stamp = self._stamp()
            if self._vectors is None or self._vectors_stamp != stamp:
                if self.in_database:  # nothing to load: each search is a query
                    from citebound.kb.dense_db import DatabaseVectors

                    self._vectors = DatabaseVectors(self.kb, self.embedder.name, getattr(self.embedder, "dim", None))
                    self._vectors_stamp = stamp
                    return self._vectors
                ids, matrix = self.kb.load_vectors(self.embedder.name)
                folder = Path(self.kb.path) / "ann" / self.embedder.name if isinstance(self.kb.path, Path) else None
                self._drop_vectors()
                self._vectors = VectorIndex(ids, matrix, folder=folder, ann=self.ann)
                self._vectors_stamp = stamp
        return self._vectors

    def _bm25(self):
        revision = self.kb.revision
        if revision != self._bm25_revision:
            # The KB changed (maybe in another process, or on another machine sharing a PostgreSQL KB): the
            # index catches up unless another process is writing it, then the latest commit is read.
            self.kb.sync_index()
            self.kb.bm25.refresh()
            # Until the index has caught up, look again on the next query instead of keeping a stale
            # searcher until the next change.
            if self.kb.bm25.revision == revision:
                self._bm25_revision = revision
        return self.kb.bm25

    def embed_queries(self, questions: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(list(questions), batch_size=64)

    # -- ranking ---------------------------------------------------------------------------------------
    def rank(self, question: str, depth: int | None = None, query_vector: np.ndarray | None = None) -> list[Candidate]:
        """All fused candidates for `question`, best first, with their scores (no labels, no rerank)."""
        depth = depth or self.depth
        rankings: list[list[str]] = []
        bm25_scores: dict[str, float] = {}
        dense_scores: dict[str, float] = {}
        if self.mode in ("bm25", "hybrid"):
            found = self._bm25().search(question, depth)
            bm25_scores = dict(found)
            rankings.append([cid for cid, _ in found])
        qvec = None
        if self.uses_dense:
            index = self._vector_index()
            qvec = query_vector if query_vector is not None else self.embed_queries([question])[0]
            found = index.search(qvec, depth)
            dense_scores = dict(found)
            rankings.append([cid for cid, _ in found])
        if len(rankings) == 1:  # one ranking: its RRF scores, without fusing (the hot path of bm25 mode)
            k = self.rrf_k
            fused = [(cid, 1.0 / (k + position)) for position, cid in enumerate(rankings[0], 1)]
        else:
            fused = rrf(rankings, self.rrf_k)
        if qvec is not None:
            missing = [cid for cid, _ in fused if cid not in dense_scores]
            dense_scores.update(self._vectors.score_of(qvec, missing))
        out = []
        for cid, score in fused:
            scores = {"bm25": bm25_scores.get(cid, 0.0), "fused": score}
            if self.uses_dense:
                scores["dense"] = dense_scores.get(cid, 0.0)
            out.append(Candidate(cid, scores))
        return out

    def retrieve(self, question: str, k: int = config.TOP_K) -> list[Hit]:
        """The top `k` chunks for `question`, labelled S1..Sk, with document id, version, offsets, text, scores."""
        if not isinstance(question, str) or not question.strip():
            raise InputError("the question is empty")
        if k < 1:
            raise InputError("k must be at least 1")
        if self.mode == "bm25" and self.reranker is None:
            return self._bm25_top(question, k)
        # one ranking and no reranker: the top k is all there is to rank; fusion needs more candidates
        depth = k if (self.mode != "hybrid" and self.reranker is None) else max(self.depth, k)
        candidates = self.rank(question, depth)
        # the reranker sees its own depth of candidates (at least k); without one, the top k is the answer
        rerank_depth = getattr(self.reranker, "depth", len(candidates)) if self.reranker is not None else 0
        candidates = candidates[: max(k, rerank_depth)]
        chunks = {c.id: c for c in self.kb.get_chunks([c.chunk_id for c in candidates])}
        if self.reranker is None:
            found = [c for c in candidates if c.chunk_id in chunks]
            return [Hit(f"S{i}", chunks[c.chunk_id], dict(c.scores)) for i, c in enumerate(found, 1)]
        hits = [Hit("", chunks[c.chunk_id], dict(c.scores)) for c in candidates if c.chunk_id in chunks]
        hits = list(self.reranker.rerank(question, hits))[:k]
        return [Hit(f"S{i}", h.chunk, h.scores) for i, h in enumerate(hits, 1)]

    def _bm25_top(self, question: str, k: int) -> list[Hit]:
        """`retrieve` in bm25 mode without a reranker: what `rank` and the general path give (the same
        hits, labels and scores), with the chunks named by key from the index to the fetch, no id
        written and read back (a BM25 query at 100k chunks, docs/benchmarks.md)."""
        # The index is searched as it is, and the KB's revision is read with the chunks: when it is the
        # revision the index was last brought to (nearly always), that was the check; else the index
        # catches up (`_bm25`) and the query runs again. One statement a query, not two.
        found = self.kb.bm25.search_keys(question, k)
        revision, chunks = self.kb.chunks_by_key([key for key, _ in found])
        if revision is None or revision != self._bm25_revision:
            found = self._bm25().search_keys(question, k)
            chunks = self.kb.chunks_by_key([key for key, _ in found])[1]
        hits: list[Hit] = []
        rrf_k = self.rrf_k
        for position, (key, score) in enumerate(found, 1):
            chunk = chunks.get(key)
            if chunk is not None:  # (an index a little behind the KB may still hold a chunk it dropped)
                label = _LABELS[len(hits)] if len(hits) < len(_LABELS) else f"S{len(hits) + 1}"
                hits.append(Hit(label, chunk, {"bm25": score, "fused": 1.0 / (rrf_k + position)}))
        return hits

    # -- abstention ------------------------------------------------------------------------------------
    def calibration(self) -> dict | None:
        """The abstention threshold stored in the KB for this retriever's mode, if calibrated."""
        stored = self.kb.get_json(SETTING_KEY) or {}
        return stored.get(self.mode)

    def should_abstain(self, hits: Sequence[Hit]) -> bool:
        """True when there is no hit, or the best evidence is below the calibrated threshold."""
        if not hits:
            return True
        cal = self.calibration()
        if cal is None:
            return False
        return retrieval_strength(hits, cal.get("feature", strength_feature(self.mode))) < float(cal["threshold"])

