"""Dense search inside PostgreSQL: the nearest chunk vectors found by pgvector, not in each server process.

A knowledge base in PostgreSQL keeps its vectors there (pgvector `vector` values, keyed by the hash of
the chunk text and the model). `DatabaseVectors` answers the two questions the retriever asks of a
vector index (`citebound.retrieval.vectors.VectorIndex` in the process, for SQLite) with SQL, so a
server holds no vectors at all and several servers share one index:

- `search(query, limit)`: the `limit` retrievable chunks nearest the query, by cosine similarity. The
  nearest vectors come from the HNSW index of migration `m007_postgres_vector_index`
  (`ORDER BY vec::vector(384) <=> query LIMIT n`, n = 2 × limit but at most pgvector's 1,000 rows per
  scan, `hnsw.ef_search` = max(`EF_SEARCH_MIN`, n)), then are joined back to the chunks of current
  versions of active documents that have that text. Vectors of retired text stay in the table (they
  are keyed by text, and come back if the text does), so when fewer than `limit` chunks come back and
  the index had more to give, `n` grows and the search runs again; past what one HNSW scan returns
  (`EF_SEARCH_MAX`), the search is exact (`vec <=> query`, without the index's cast, is not indexed:
  every vector of the model is compared). A search for more than 1,000 chunks is always exact.
- `score_of(query, chunk_ids)`: the exact cosine similarity of given chunks (fused candidates that dense
  did not rank), computed in the database.

Scores are 1 - cosine distance, the retriever's dense score (vectors are unit length). The query runs
with the model's name as a literal, so PostgreSQL can match the partial index's `WHERE model = …`
whatever plan it caches. A model without an index of its own (not the bundled embedder) is searched
exactly. SQLite KBs keep the in-process index; this module is for `KnowledgeBase.shared` ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from citebound.kb.bm25_index import chunk_id_of, chunk_key

EF_SEARCH_MIN = 100  # hnsw.ef_search for a search of up to this many (pgvector's default is 40)
EF_SEARCH_MAX = 1000  # pgvector's ceiling: one HNSW scan returns at most this many rows
OVERFETCH = 2  # nearest vectors asked for per chunk wanted, the first time (retired texts are skipped)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class DatabaseVectors:
    """Nearest-neighbour search over a PostgreSQL KB's vectors of one model, inside the database."""

    def __init__(self, kb: Any, model: str, dim: int | None = None) -> None:
        """`dim`: the model's dimension (None: read from a stored vector)."""
        if not kb.shared:
            raise ValueError("in-database dense search needs a knowledge base in PostgreSQL")
        self.kb = kb
        self.model = model
        model_sql = _literal(model)
        if dim is None:
            row = kb.db.execute(f"SELECT vector_dims(vec) FROM vectors WHERE model = {model_sql} LIMIT 1").fetchone()
            dim = int(row[0]) if row else 1
        self.dim = int(dim)
        self.searches = 0  # statements run by search(): more than one per call when retired texts crowd in
        # ?: the query vector, the number of nearest vectors. The cast matches the HNSW index's expression.
        self._nearest = (f"SELECT content_hash, vec::vector({self.dim}) <=> ? AS distance FROM vectors "
                         f"WHERE model = {model_sql} ORDER BY distance LIMIT ?")
        self._exact = (f"SELECT content_hash, vec <=> ? AS distance FROM vectors "
                       f"WHERE model = {model_sql} ORDER BY distance LIMIT ?")
        # a chunk is in its document's current version when that is the latest version that has it
        # (chunks.version); ids are made of (chunk_key, tail): bm25_index.chunk_id_of
        self._chunks = ("SELECT c.content_hash, c.chunk_key, c.tail FROM chunks c JOIN documents d "
                        "ON d.doc_id = c.doc_id AND d.current_version = c.version "
                        "WHERE c.content_hash = ANY(?) AND d.status = 'active'")
        self._scores = (f"SELECT c.chunk_key, c.tail, 1 - (v.vec <=> ?) FROM chunks c JOIN vectors v "
                        f"ON v.content_hash = c.content_hash AND v.model = {model_sql} WHERE c.chunk_key = ANY(?)")

    def __len__(self) -> int:
        """Vectors of this model in the database (retired texts included)."""
        return int(self.kb.db.execute(f"SELECT count(*) FROM vectors WHERE model = {_literal(self.model)}")
                   .fetchone()[0])

    def _nearest_hashes(self, query: Any, n: int) -> list[tuple[str, float]]:
        db = self.kb.db
        self.searches += 1
        if n > EF_SEARCH_MAX:
            return db.execute(self._exact, (query, n)).fetchall()
        with db.session():  # the setting and the query it is for, with no other thread's statement between
            db.execute(f"SET hnsw.ef_search = {max(EF_SEARCH_MIN, n)}")
            return db.execute(self._nearest, (query, n)).fetchall()

    def search(self, query: np.ndarray, limit: int) -> list[tuple[str, float]]:
        """(chunk id, cosine similarity) of the `limit` retrievable chunks nearest `query`, best first."""
        if limit <= 0:
            return []
        q = self.kb.db.encode_vector(np.asarray(query, dtype=np.float32))
        n = max(limit * OVERFETCH, 10)
        if limit <= EF_SEARCH_MAX:  # a search HNSW can answer in one scan stays on the index
            n = min(n, EF_SEARCH_MAX)
        while True:
            nearest = self._nearest_hashes(q, n)
            distance = {h: float(d) for h, d in nearest}
            found = sorted(((distance[h], chunk_id_of(key, tail)) for h, key, tail in
                            self.kb.db.execute(self._chunks, (list(distance),)).fetchall()))
            # enough chunks, or every vector of the model was looked at (fewer came back than asked for)
            if len(found) >= limit or len(nearest) < min(n, EF_SEARCH_MAX) or n > EF_SEARCH_MAX:
                return [(cid, 1.0 - d) for d, cid in found[:limit]]
            n = n * 4

    def score_of(self, query: np.ndarray, chunk_ids: list[str]) -> dict[str, float]:
        """Exact cosine similarity of the given chunks that have a vector (the others are left out)."""
        ids = set(chunk_ids)
        keys = list(dict.fromkeys(chunk_key(cid)[0] for cid in ids))
        if not keys:
            return {}
        q = self.kb.db.encode_vector(np.asarray(query, dtype=np.float32))
        scores = {chunk_id_of(key, tail): float(s) for key, tail, s in self.kb.db.execute(self._scores, (q, keys))}
        return {cid: s for cid, s in scores.items() if cid in ids}
