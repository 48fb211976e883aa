"""The knowledge base: documents, their versions and chunks in SQLite (WAL), a BM25 index beside it,
and embeddings keyed by the hash of the text they embed.

Layout of a KB folder:
    kb.sqlite3    documents, versions (normalized text + hash), chunks, vectors, meta (revision, settings)
    bm25/         tantivy index of the chunks of current versions of active documents

Consistency: each ingest batch is one SQLite transaction that also bumps `revision`; only after it
commits is the BM25 index updated (one tantivy commit), and then the index records the revision it
reflects. A process killed in between leaves SQLite at the new revision and the index at the old one;
the next `open` sees the mismatch and re-syncs the index from SQLite. Vectors need no such step: they
are looked up by content hash, and any chunk without one is embedded before dense search.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import numpy as np

from citebound.db import write_transaction
from citebound.errors import InputError, KnowledgeBaseError
from citebound.kb.chunk import (
    DEFAULT_CHUNK_SIZE,
    DEFAULT_OVERLAP,
    check_settings,
    chunk_id,
    chunk_spans,
    content_hash,
)
from citebound.kb.ingest import RawDocument, Skipped, collect
from citebound.kb.migrations import migrate
from citebound.text.unicode import lone_surrogate
from citebound.types import Chunk

log = logging.getLogger(__name__)

DB_FILE = "kb.sqlite3"
BM25_DIR = "bm25"
DEFAULT_BATCH_DOCS = 500

_ACTIVE_CHUNKS = """
    SELECT c.chunk_id, c.text, c.content_hash
    FROM documents d
    JOIN version_chunks vc ON vc.doc_id = d.doc_id AND vc.version = d.current_version
    JOIN chunks c ON c.chunk_id = vc.chunk_id
    WHERE d.status = 'active'
    ORDER BY d.doc_id, vc.ord
"""


@dataclass(frozen=True)
class IngestReport:
    """What one `ingest` did. `updated` holds (doc_id, new_version) for documents whose text changed."""

    added: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    updated: list[tuple[str, int]] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    chunks_added: int = 0
    revision: int = 0

    @property
    def new_versions(self) -> list[tuple[str, int]]:
        return self.updated

    def summary(self) -> str:
        return (
            f"{len(self.added)} added, {len(self.updated)} new versions, {len(self.unchanged)} unchanged, "
            f"{len(self.skipped)} skipped; {self.chunks_added} new chunks; KB revision {self.revision}"
        )


# What one bad document can raise while it is written (text SQLite cannot encode, a value it cannot bind,
# a chunker error): that document is skipped, the batch goes on. sqlite3.OperationalError (locked, disk
# full) is not among them: it is the database's problem, not the document's.
BAD_DOCUMENT_ERRORS: tuple[type[BaseException], ...] = (
    ValueError, TypeError, RecursionError, InputError, sqlite3.IntegrityError, sqlite3.InterfaceError,
    sqlite3.DataError, sqlite3.ProgrammingError, OverflowError,
)


def _reason(exc: BaseException) -> str:
    text = str(exc).encode("utf-8", "backslashreplace").decode("utf-8")
    return f"{type(exc).__name__}: {text}"[:300]


def _checked(doc: RawDocument) -> RawDocument | Skipped:
    """`doc`, or why it cannot be stored: an id or text that is not a string, empty, or not encodable."""
    source = doc.source if isinstance(doc.source, str) else repr(doc.source)
    source = source.encode("utf-8", "backslashreplace").decode("utf-8")
    if not isinstance(doc.doc_id, str) or not doc.doc_id.strip():
        return Skipped(source, "document id must be a non-empty string")
    if not isinstance(doc.text, str) or not doc.text.strip():
        return Skipped(source, "empty document")
    for what, value in (("document id", doc.doc_id), ("text", doc.text), ("source", doc.source)):
        at = lone_surrogate(value) if isinstance(value, str) else None
        if at is not None:
            return Skipped(source, f"{what} is not valid Unicode (a lone surrogate at character {at})")
    return doc


@dataclass(frozen=True)
class DocumentInfo:
    doc_id: str
    current_version: int
    status: str
    source: str | None


class KnowledgeBase:
    """A versioned document store with a BM25 index and an embedding cache. Use `KnowledgeBase.open`."""

    def __init__(self, path: Path, db: sqlite3.Connection) -> None:
        self.path = path
        self._db = db
        self._lock = threading.RLock()
        self._bm25 = None
        self.chunk_size = int(self.get_setting("chunk_size"))
        self.overlap = int(self.get_setting("overlap"))

    # -- lifecycle ------------------------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        create: bool = False,
        chunk_size: int | None = None,
        overlap: int | None = None,
    ) -> "KnowledgeBase":
        """Open the KB in folder `path` (creating it when `create`), apply migrations, re-sync the index.

        `chunk_size` / `overlap` (characters) are fixed when the KB is created; passing different values
        for an existing KB is an error, because chunk ids and offsets depend on them.
        """
        folder = Path(path)
        db_path = folder / DB_FILE
        size = chunk_size if chunk_size is not None else DEFAULT_CHUNK_SIZE
        lap = overlap if overlap is not None else DEFAULT_OVERLAP
        check_settings(size, lap)  # before anything is created: a bad pair leaves no empty KB behind
        if not db_path.exists():
            if not create:
                raise KnowledgeBaseError(f"no knowledge base at {folder} (create one with `citebound ingest`)")
            if folder.exists() and not folder.is_dir():
                raise KnowledgeBaseError(f"{folder} exists and is not a folder")
            folder.mkdir(parents=True, exist_ok=True)
        try:
            db = sqlite3.connect(db_path, isolation_level=None, check_same_thread=False, timeout=30)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # with WAL: atomic and safe against process kills
            db.execute("PRAGMA foreign_keys=ON")
            migrate(db)
        except sqlite3.DatabaseError as exc:
            raise KnowledgeBaseError(f"{db_path}: not a usable knowledge base ({exc})") from exc
        stored = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('chunk_size', 'overlap')").fetchall())
        if not stored:
            with write_transaction(db):
                db.executemany(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
                    [("chunk_size", str(size)), ("overlap", str(lap)), ("revision", "0")],
                )
        elif (chunk_size is not None and int(stored["chunk_size"]) != chunk_size) or (
            overlap is not None and int(stored["overlap"]) != overlap
        ):
            db.close()
            raise KnowledgeBaseError(
                f"{folder} was built with chunk size {stored['chunk_size']} and overlap {stored['overlap']}; "
                "use a new KB folder for other values"
            )
        kb = cls(folder, db)
        kb.sync_index()
        return kb

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None  # type: ignore[assignment]
            self._bm25 = None

    def __enter__(self) -> "KnowledgeBase":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            raise KnowledgeBaseError("the knowledge base is closed")
        return self._db

    # -- settings and revision ------------------------------------------------------------------------
    @property
    def revision(self) -> int:
        """Monotonically increasing number of the KB's state; every change to the documents bumps it."""
        return int(self.get_setting("revision", "0"))

    def get_setting(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_setting(self, key: str, value: str) -> None:
        with self._lock:
            self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def get_json(self, key: str) -> object | None:
        raw = self.get_setting(key)
        return None if raw is None else json.loads(raw)

    def set_json(self, key: str, value: object) -> None:
        self.set_setting(key, json.dumps(value, sort_keys=True))

    # -- BM25 index -----------------------------------------------------------------------------------
    @property
    def bm25(self):
        """The BM25 index (`citebound.kb.bm25_index.Bm25Index`), in step with this KB's revision."""
        if self._bm25 is None:
            from citebound.kb.bm25_index import Bm25Index

            self._bm25 = Bm25Index(self.path / BM25_DIR, threads=min(2, os.cpu_count() or 1))
        return self._bm25

    def sync_index(self) -> bool:
        """Rebuild the BM25 index from SQLite if it does not reflect the current revision. True if rebuilt."""
        with self._lock:
            revision = self.revision
            if self.bm25.revision == revision:
                return False
            if self.bm25.revision != -1 or revision != 0:  # not just a new, empty KB
                log.warning("BM25 index at revision %s, KB at %s: re-syncing it", self.bm25.revision, revision)
            rows = ((cid, text) for cid, text, _ in self.db.execute(_ACTIVE_CHUNKS))
            try:
                self.bm25.apply(rows, [], revision, reset=True)
            except ValueError as exc:
                if "LockBusy" not in str(exc):
                    raise
                # another process is writing this KB right now; it brings the index up to date itself
                log.warning("BM25 index is being written by another process; not re-syncing it now")
                return False
            return True

    # -- ingest ---------------------------------------------------------------------------------------
    def ingest(
        self,
        paths: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
        progress: bool = True,
        embed: bool = False,
        batch_docs: int = DEFAULT_BATCH_DOCS,
    ) -> IngestReport:
        """Ingest files and folders (see `citebound.kb.ingest`). Atomic per batch of `batch_docs` documents.

        With `embed=True`, chunks without a vector are embedded afterwards (otherwise dense retrieval
        does it on first use). Skipped files are logged as warnings and listed in the report.
        """
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        return self.ingest_documents(collect(paths), progress=progress, embed=embed, batch_docs=batch_docs)

    def ingest_documents(
        self,
        items: Iterable[RawDocument | Skipped],
        progress: bool = True,
        embed: bool = False,
        batch_docs: int = DEFAULT_BATCH_DOCS,
    ) -> IngestReport:
        report = IngestReport()  # frozen, but its lists fill up as batches go
        chunks_added = 0
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(desc="ingesting", unit="doc", leave=False)
        batch: list[RawDocument] = []
        for item in items:
            if isinstance(item, RawDocument):
                item = _checked(item)
            if isinstance(item, Skipped):
                log.warning("skipped %s: %s", item.source, item.reason)
                report.skipped.append(item)
                continue
            batch.append(item)
            if len(batch) >= batch_docs:
                chunks_added += self._ingest_batch(batch, report)
                if bar is not None:
                    bar.update(len(batch))
                batch = []
        if batch:
            chunks_added += self._ingest_batch(batch, report)
            if bar is not None:
                bar.update(len(batch))
        if bar is not None:
            bar.close()
        if embed:
            self.ensure_vectors(progress=progress)
        return replace(report, chunks_added=chunks_added, revision=self.revision)

    def _active_chunk_ids(self, doc_id: str) -> list[str]:
        return [
            r[0]
            for r in self.db.execute(
                "SELECT vc.chunk_id FROM documents d JOIN version_chunks vc "
                "ON vc.doc_id = d.doc_id AND vc.version = d.current_version "
                "WHERE d.doc_id = ? AND d.status = 'active'",
                (doc_id,),
            )
        ]

    def _ingest_batch(self, batch: Sequence[RawDocument], report: IngestReport) -> int:
        """Ingest one batch in one transaction; record outcomes in `report`; return the new chunk count.

        Each document runs inside its own SAVEPOINT: a document that fails (text that cannot be stored,
        a chunker error) is rolled back alone and listed as skipped with the reason, and the rest of the
        batch goes in. Errors of the database itself (locked, disk full) still abort the batch."""
        with self._lock:
            db = self.db
            with write_transaction(db):
                revision = self.revision + 1
                adds: dict[str, str] = {}
                deletes: set[str] = set()
                changed = False
                new_chunks = 0
                now = time.time()
                for doc in batch:
                    db.execute("SAVEPOINT ingest_doc")
                    try:
                        outcome = self._ingest_one(doc, revision, now)
                    except BAD_DOCUMENT_ERRORS as exc:
                        db.execute("ROLLBACK TO ingest_doc")
                        db.execute("RELEASE ingest_doc")
                        skipped = Skipped(doc.source, f"not stored: {_reason(exc)}")
                        log.warning("skipped %s: %s", skipped.source, skipped.reason)
                        report.skipped.append(skipped)
                        continue
                    db.execute("RELEASE ingest_doc")
                    kind, version, doc_adds, doc_deletes, n_new = outcome
                    if kind == "unchanged":
                        report.unchanged.append(doc.doc_id)
                        continue
                    for stale in doc_deletes:  # also undoes adds of an earlier version in this batch
                        adds.pop(stale, None)
                        deletes.add(stale)
                    adds.update(doc_adds)
                    new_chunks += n_new
                    if kind == "added":
                        report.added.append(doc.doc_id)
                    else:
                        report.updated.append((doc.doc_id, version))
                    changed = True
                if not changed:
                    return 0  # nothing was written: the transaction commits empty
                db.execute("UPDATE meta SET value = ? WHERE key = 'revision'", (str(revision),))
            # SQLite is the source of truth; the index follows (and is re-synced on open if this dies).
            self.bm25.apply(adds.items(), deletes, revision)  # deletes run first, so re-adds survive
            return new_chunks

    def _ingest_one(
        self, doc: RawDocument, revision: int, now: float
    ) -> tuple[str, int, dict[str, str], set[str], int]:
        """Write one document inside the open transaction: (outcome, version, index adds, index deletes,
        new chunks), outcome being unchanged | added | updated."""
        db = self.db
        digest = content_hash(doc.text)
        row = db.execute(
            "SELECT d.current_version, d.status, v.content_hash FROM documents d "
            "JOIN versions v ON v.doc_id = d.doc_id AND v.version = d.current_version "
            "WHERE d.doc_id = ?",
            (doc.doc_id,),
        ).fetchone()
        adds: dict[str, str] = {}
        if row is not None and row[2] == digest:
            if row[1] == "active":
                return "unchanged", row[0], adds, set(), 0
            # a removed document ingested again with the same text: bring it back
            db.execute(
                "UPDATE documents SET status = 'active', source = ?, updated_revision = ? WHERE doc_id = ?",
                (doc.source, revision, doc.doc_id),
            )
            for cid, text in db.execute(
                "SELECT c.chunk_id, c.text FROM version_chunks vc JOIN chunks c ON c.chunk_id = vc.chunk_id "
                "WHERE vc.doc_id = ? AND vc.version = ?",
                (doc.doc_id, row[0]),
            ).fetchall():
                adds[cid] = text
            return "added", row[0], adds, set(), 0
        old = set(self._active_chunk_ids(doc.doc_id)) if row is not None else set()
        version = 1 if row is None else row[0] + 1
        db.execute(
            "INSERT INTO versions (doc_id, version, content_hash, text, source, ingested_at, revision) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (doc.doc_id, version, digest, doc.text, doc.source, now, revision),
        )
        new: list[str] = []
        new_chunks = 0
        for ord_, span in enumerate(chunk_spans(doc.text, self.chunk_size, self.overlap)):
            text = doc.text[span.start : span.end]
            cid = chunk_id(doc.doc_id, span.start, span.end, text)
            cur = db.execute(
                "INSERT OR IGNORE INTO chunks (chunk_id, doc_id, start, end, text, content_hash) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (cid, doc.doc_id, span.start, span.end, text, content_hash(text)),
            )
            new_chunks += cur.rowcount
            db.execute(
                "INSERT INTO version_chunks (doc_id, version, ord, chunk_id) VALUES (?, ?, ?, ?)",
                (doc.doc_id, version, ord_, cid),
            )
            new.append(cid)
            if cid not in old:
                adds[cid] = text
        db.execute(
            "INSERT INTO documents (doc_id, current_version, status, source, updated_revision) "
            "VALUES (?, ?, 'active', ?, ?) ON CONFLICT(doc_id) DO UPDATE SET "
            "current_version = excluded.current_version, status = 'active', "
            "source = excluded.source, updated_revision = excluded.updated_revision",
            (doc.doc_id, version, doc.source, revision),
        )
        return ("added" if row is None else "updated"), version, adds, old - set(new), new_chunks

    # -- remove ---------------------------------------------------------------------------------------
    def remove(self, doc_id: str) -> int:
        """Retire a document: it is no longer retrieved, but every version still resolves. Returns the revision."""
        with self._lock:
            db = self.db
            with write_transaction(db):
                row = db.execute("SELECT status FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
                if row is None:
                    raise InputError(f"unknown document id {doc_id!r}")
                if row[0] == "removed":
                    return self.revision  # already retired: nothing written
                old = self._active_chunk_ids(doc_id)
                revision = self.revision + 1
                db.execute(
                    "UPDATE documents SET status = 'removed', updated_revision = ? WHERE doc_id = ?",
                    (revision, doc_id),
                )
                db.execute("UPDATE meta SET value = ? WHERE key = 'revision'", (str(revision),))
            self.bm25.apply([], old, revision)
            return revision

    # -- reading --------------------------------------------------------------------------------------
    def get_chunk(self, chunk_id: str) -> Chunk:
        """The chunk with this id; its `version` is the latest version of the document that contains it."""
        chunks = self.get_chunks([chunk_id])
        if not chunks:
            raise InputError(f"unknown chunk id {chunk_id!r}")
        return chunks[0]

    def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        """Chunks for the known ids, in the order given (unknown ids are left out)."""
        found: dict[str, Chunk] = {}
        ids = list(dict.fromkeys(chunk_ids))
        for lo in range(0, len(ids), 500):
            part = ids[lo : lo + 500]
            marks = ",".join("?" * len(part))
            for cid, doc_id, start, end, text, version in self.db.execute(
                f"SELECT c.chunk_id, c.doc_id, c.start, c.end, c.text, "
                f"(SELECT MAX(version) FROM version_chunks vc WHERE vc.chunk_id = c.chunk_id) "
                f"FROM chunks c WHERE c.chunk_id IN ({marks})",
                part,
            ):
                found[cid] = Chunk(cid, doc_id, int(version), int(start), int(end), text)
        return [found[c] for c in chunk_ids if c in found]

    def document_text(self, doc_id: str, version: int | None = None) -> str:
        """Normalized text of one version of a document (the current one when `version` is None)."""
        if version is None:
            version = self.current_version(doc_id)
        row = self.db.execute(
            "SELECT text FROM versions WHERE doc_id = ? AND version = ?", (doc_id, version)
        ).fetchone()
        if row is None:
            raise InputError(f"unknown document version {doc_id!r} v{version}")
        return row[0]

    def current_version(self, doc_id: str) -> int:
        row = self.db.execute("SELECT current_version FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
        if row is None:
            raise InputError(f"unknown document id {doc_id!r}")
        return int(row[0])

    def document(self, doc_id: str) -> DocumentInfo:
        row = self.db.execute(
            "SELECT doc_id, current_version, status, source FROM documents WHERE doc_id = ?", (doc_id,)
        ).fetchone()
        if row is None:
            raise InputError(f"unknown document id {doc_id!r}")
        return DocumentInfo(*row)

    def documents(self, include_removed: bool = False) -> list[DocumentInfo]:
        where = "" if include_removed else "WHERE status = 'active'"
        return [
            DocumentInfo(*r)
            for r in self.db.execute(f"SELECT doc_id, current_version, status, source FROM documents {where} ORDER BY doc_id")
        ]

    def versions(self, doc_id: str) -> list[int]:
        return [r[0] for r in self.db.execute("SELECT version FROM versions WHERE doc_id = ? ORDER BY version", (doc_id,))]

    def chunk_ids(self, doc_id: str, version: int | None = None) -> list[str]:
        """Ids of the chunks of one version of a document, in document order."""
        if version is None:
            version = self.current_version(doc_id)
        return [
            r[0]
            for r in self.db.execute(
                "SELECT chunk_id FROM version_chunks WHERE doc_id = ? AND version = ? ORDER BY ord", (doc_id, version)
            )
        ]

    def active_chunks(self) -> Iterator[tuple[str, str, str]]:
        """(chunk_id, text, content_hash) of every retrievable chunk."""
        yield from self.db.execute(_ACTIVE_CHUNKS)

    def stats(self) -> dict[str, int]:
        q = self.db.execute
        return {
            "revision": self.revision,
            "documents": q("SELECT COUNT(*) FROM documents WHERE status = 'active'").fetchone()[0],
            "removed_documents": q("SELECT COUNT(*) FROM documents WHERE status = 'removed'").fetchone()[0],
            "versions": q("SELECT COUNT(*) FROM versions").fetchone()[0],
            "chunks": q("SELECT COUNT(*) FROM chunks").fetchone()[0],
            "vectors": q("SELECT COUNT(*) FROM vectors").fetchone()[0],
        }

    # -- vectors --------------------------------------------------------------------------------------
    def ensure_vectors(self, embedder=None, progress: bool = True, batch: int = 256) -> int:
        """Embed every retrievable chunk whose text has no vector yet; returns how many were embedded.

        Vectors are keyed by (content hash, model), so text already embedded once (in any document or
        version) is never embedded again, and work done before a crash is kept.
        """
        if embedder is None:
            from citebound.models.embedder import shared_embedder

            embedder = shared_embedder()
        have = {r[0] for r in self.db.execute("SELECT content_hash FROM vectors WHERE model = ?", (embedder.name,))}
        todo: dict[str, str] = {}
        for _, text, digest in self.active_chunks():
            if digest not in have and digest not in todo:
                todo[digest] = text
        if not todo:
            return 0
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=len(todo), desc="embedding", unit="chunk", leave=False)
        items = list(todo.items())
        for lo in range(0, len(items), batch):
            part = items[lo : lo + batch]
            vecs = embedder.embed([t for _, t in part])
            with self._lock, write_transaction(self.db) as db:
                db.executemany(
                    "INSERT OR REPLACE INTO vectors (content_hash, model, vec) VALUES (?, ?, ?)",
                    [(d, embedder.name, v.astype(np.float32).tobytes()) for (d, _), v in zip(part, vecs)],
                )
            if bar is not None:
                bar.update(len(part))
        if bar is not None:
            bar.close()
        return len(items)

    def load_vectors(self, model: str) -> tuple[list[str], np.ndarray]:
        """(chunk ids, matrix) of the retrievable chunks that have a vector for `model`."""
        ids: list[str] = []
        rows: list[bytes] = []
        for cid, vec in self.db.execute(
            "SELECT a.chunk_id, v.vec FROM (" + _ACTIVE_CHUNKS + ") a "
            "JOIN vectors v ON v.content_hash = a.content_hash AND v.model = ?",
            (model,),
        ):
            ids.append(cid)
            rows.append(vec)
        if not rows:
            return ids, np.zeros((0, 0), dtype=np.float32)
        matrix = np.frombuffer(b"".join(rows), dtype=np.float32).reshape(len(rows), -1)
        return ids, matrix
