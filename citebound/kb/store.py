"""The knowledge base: documents, their versions and chunks in a database (SQLite in the KB folder, or
PostgreSQL shared by several processes), a BM25 index beside it, and embeddings keyed by the hash of the
text they embed.

Layout of a KB folder:
    kb.sqlite3    documents, versions (normalized text, compressed), chunks (offsets into their version's text:
                  the text is stored once), vectors, meta (revision, settings)
    bm25/         tantivy index of the chunks of current versions of active documents

A KB in PostgreSQL (`KnowledgeBase.open("postgresql://…")`) keeps the same tables in the database (vectors
as pgvector values) and its BM25 index in this machine's cache (`<cache>/kb-index/<kb id>/bm25`), one per
machine, following the revision in the database like any index that is behind (below).

Consistency: each ingest batch is one database transaction that also bumps `revision`; only after it
commits is the BM25 index updated (one tantivy commit), and then the index records the revision it
reflects. An index behind the database (a process killed in between, another process or machine that
wrote the KB) catches up in `sync_index`: under the index's writer lock it reads, from one snapshot of the
database, the documents changed after the index's revision (`documents.updated_revision`), deletes every
chunk their versions up to that revision had and adds the chunks they have now, in one tantivy commit.
Vectors need no such step: they are looked up by content hash, and any chunk without one is embedded
before dense search.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import sqlite3
import struct
import threading
import time
import uuid
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import numpy as np

from citebound.db import is_postgres, open_sqlite, read_transaction, write_transaction
from citebound.errors import InputError, KnowledgeBaseError
from citebound.kb.bm25_index import CHUNK_ID, chunk_id_of, chunk_key
from citebound.kb.chunk import (
    DEFAULT_CHUNK_SIZE,
    DEFAULT_OVERLAP,
    check_settings,
    chunk_id,
    chunk_spans,
    content_digest,
)
from citebound.kb.ingest import RawDocument, Skipped, collect
from citebound.kb.migrations import migrate
from citebound.kb.textcodec import Dictionaries, TextCache, pack, train, unpack
from citebound.paths import cache_root
from citebound.text.unicode import lone_surrogate
from citebound.types import Chunk

log = logging.getLogger(__name__)

DB_FILE = "kb.sqlite3"
BM25_DIR = "bm25"
DEFAULT_BATCH_DOCS = 500
VECTORS_STAMP = "vectors_stamp"  # meta key changed by every committed batch of vectors (readers reload)
INDEX_SYNC_EVERY_S = 10.0  # during a long ingest the index commits at most this often (one tantivy commit each)
INDEX_WAIT_S = 30.0  # how long a writer waits for another process's index commit (then the next sync catches up)
DICTIONARY_KEY = "text_dictionary"  # meta: the id of the dictionary new texts are packed with
DIGESTS_FILE = "digests.bin"  # <kb>/ann/: the chunk digests of the KB's latest revision (`_store_digests`)
_DIGESTS_MAGIC = b"citebound chunk digests 1\n"
_DIGEST_RECORD = struct.Struct(">qI32s")  # chunk key, tail, sha256 of the text
MMAP_BYTES = 1 << 30  # how much of a SQLite KB file is read through a memory map (`_connect`)

# A chunk's text is not stored twice: it is the slice [start, end) of the text of a version that has it
# (every such version has the same text there: the chunk id hashes doc id, offsets and text). Version
# texts are stored compressed (`versions.body`, citebound.kb.textcodec), so the slice is taken in Python,
# from a small cache of decoded versions (`KnowledgeBase._texts`).


# (chunk_key, tail, doc_id, start, end, version, KB revision) of the chunks whose keys fill {marks}, for
# `chunks_by_key`: each chunk row names its version, whose text is sliced from the cache or else read
# (_BODIES); the revision comes along so that a reader learns the state it read without a statement more
_CHUNKS_BY_KEY = ('SELECT chunk_key, tail, doc_id, start, "end", version, '
                  "(SELECT value FROM meta WHERE key = 'revision') FROM chunks WHERE chunk_key IN ({marks})")
_CHUNKS_BY_KEY_SQL: dict[int, str] = {}


def _chunks_by_key_sql(n: int) -> str:
    sql = _CHUNKS_BY_KEY_SQL.get(n)
    if sql is None:
        sql = _CHUNKS_BY_KEY_SQL[n] = _CHUNKS_BY_KEY.format(marks=",".join("?" * n))
    return sql


# (doc_id, version, body) of the versions whose (doc_id, version) pairs fill {pairs}: the texts the cache
# lacks. By the pair, not by chunk key: a chunk's `version` may have moved on since the chunk was read
# (a newer version that keeps the chunk), and a version, once written, is never changed or dropped.
# (a join on VALUES: SQLite scans the table for `(doc_id, version) IN (VALUES ...)`)
_BODIES = ("SELECT v.doc_id, v.version, v.body FROM (VALUES {pairs}) AS w "
           "JOIN versions v ON v.doc_id = w.column1 AND v.version = w.column2")

# (doc_id, body) of the current version of every active document, and (doc_id, chunk_key, tail, start, end)
# of their chunks, both in document order (the chunks of a current version are those it is the latest
# version of: `chunks.version`); {where} narrows both to some documents (d.)
_ACTIVE_VERSIONS = ("SELECT d.doc_id, v.body FROM documents d JOIN versions v ON v.doc_id = d.doc_id "
                    "AND v.version = d.current_version WHERE d.status = 'active' {where} ORDER BY d.doc_id")
_ACTIVE_SPANS = ('SELECT c.doc_id, c.chunk_key, c.tail, c.start, c."end" FROM chunks c JOIN documents d '
                 "ON d.doc_id = c.doc_id AND d.current_version = c.version WHERE d.status = 'active' {where} "
                 "ORDER BY c.doc_id, c.start")
_IN_PAGE = 500  # keys per `IN (...)` statement
_2_64 = 1 << 64
_MASK64 = _2_64 - 1  # (a chunk id is bm25_index.chunk_id_of(key, tail), inlined where it runs per hit)

# a version's source (v: the version, p: its source prefix, joined by _PREFIX): kept whole, or as a
# prefix shared by many versions + the document id (m010)
_VERSION_SOURCE = "COALESCE(v.source, p.prefix || v.doc_id)"
_PREFIX = "LEFT JOIN source_prefixes p ON p.id = v.source_prefix "

# (doc_id, current_version, status, source) of documents, for `DocumentInfo`: a document's source is its
# current version's unless it names another (m009)
_DOCUMENTS = (f"SELECT d.doc_id, d.current_version, d.status, COALESCE(d.source, {_VERSION_SOURCE}) FROM documents d "
              "LEFT JOIN versions v ON v.doc_id = d.doc_id AND v.version = d.current_version " + _PREFIX + "{where}")


def pack_keys(keys: Sequence[int]) -> bytes:
    """A version's chunk list as stored (`versions.chunk_keys`, m012): each chunk's key (`chunk_key`), in
    document order, 8 bytes big-endian (what PostgreSQL's int8send writes)."""
    return struct.pack(f">{len(keys)}q", *keys)


def unpack_keys(blob: bytes | None) -> tuple[int, ...]:
    if not blob:
        return ()
    blob = bytes(blob)
    return struct.unpack(f">{len(blob) // 8}q", blob)


def _spans(db, keys: Sequence[int]) -> dict[int, tuple[int, int, int]]:  # noqa: ANN001
    """{key: (tail, start, end)} of the chunks with these keys."""
    out: dict[int, tuple[int, int, int]] = {}
    keys = list(dict.fromkeys(keys))
    for lo in range(0, len(keys), _IN_PAGE):
        part = keys[lo : lo + _IN_PAGE]
        for key, tail, start, end in db.execute(
                f'SELECT chunk_key, tail, start, "end" FROM chunks WHERE chunk_key IN ({",".join("?" * len(part))})', part):
            out[key] = (tail, start, end)
    return out


def _ids(db, keys: Sequence[int]) -> list[str]:  # noqa: ANN001
    """The chunk ids of these keys, in the same order."""
    spans = _spans(db, keys)
    return [chunk_id_of(k, spans[k][0]) for k in keys]


def _sliced(db, dictionaries: Dictionaries, where: str = "", params: tuple = ()) -> Iterator[tuple[str, str]]:  # noqa: ANN001
    """(chunk_id, text) of every retrievable chunk (of the documents `where` selects), in document order:
    the versions and their chunks read as two ordered streams and merged, each version decoded once (not
    through the cache, which a scan of the whole KB would only flush)."""
    # Both statements read one snapshot. PostgreSQL: both run inside one read transaction (their rows are
    # fetched as they run). SQLite: the second starts while the first is still active, and an implicit
    # transaction lasts until the last active statement finishes.
    own = db.dialect == "postgresql" and not db.in_transaction
    with read_transaction(db) if own else nullcontext():
        versions = db.execute(_ACTIVE_VERSIONS.format(where=where), params)
        spans = db.execute(_ACTIVE_SPANS.format(where=where), params)
    doc_id, text = None, ""
    for chunk_doc, key, tail, start, end in spans:
        while doc_id != chunk_doc:
            row = versions.fetchone()
            if row is None:  # (not from one snapshot)
                return
            doc_id, text = row[0], unpack(row[1], dictionaries)
        yield chunk_id_of(key, tail), text[start:end]


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


class KeyCollision(InputError):
    """A new chunk's id begins like another chunk's of the KB (its first 64 bits): the document is skipped."""


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
class IndexChange:
    """What one committed change does to the BM25 index: revision `revision - 1` -> `revision`."""

    revision: int
    adds: dict[str, str]
    deletes: set[str]


@dataclass(frozen=True)
class DocumentInfo:
    doc_id: str
    current_version: int
    status: str
    source: str | None


class KnowledgeBase:
    """A versioned document store with a BM25 index and an embedding cache. Use `KnowledgeBase.open`."""

    def __init__(self, path: Path | str, db) -> None:  # noqa: ANN001 - a citebound.db.Connection
        self.path = path  # the folder, or the postgresql:// URL
        self._db = db
        self._lock = threading.RLock()
        self._bm25 = None
        self._index_synced_at = float("-inf")  # when ingest last committed the index (monotonic clock)
        self._session = None  # the index writer a bulk ingest holds open (`_begin_session`)
        # zstd dictionaries the KB trained on its own texts (meta `text_dictionary.<id>`; textcodec)
        self._codec = Dictionaries(load=self._load_dictionary)
        # trained inside a write not yet committed; the stored dictionary is adopted by the first write
        # (`_train_dictionary`, inside its transaction), not at open: reading needs none until a body names it
        self._pending_dictionary: int | None = None
        self._texts = TextCache(dictionaries=self._codec)  # decoded version texts, by (doc_id, version)
        # (revision, [(chunk_id, content digest)] of the retrievable chunks): SQLite stores no chunk hash
        # (m012), so they are hashed from the texts, once per revision (`_active_digests`)
        self._digests: tuple[int, list[tuple[str, bytes]]] | None = None
        self._digests_on_disk: int | None = None  # the revision whose digests this process read or saved
        # ids of source prefixes (m010) seen by this process; forgotten when a write rolls back (the id of
        # a prefix inserted inside it never existed)
        self._prefixes: dict[str, int] = {}
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
        """Open the KB in folder `path`, or in the PostgreSQL database at a `postgresql://` URL (creating
        it when `create`), apply migrations, re-sync the index.

        `chunk_size` / `overlap` (characters) are fixed when the KB is created; passing different values
        for an existing KB is an error, because chunk ids and offsets depend on them.
        """
        size = chunk_size if chunk_size is not None else DEFAULT_CHUNK_SIZE
        lap = overlap if overlap is not None else DEFAULT_OVERLAP
        check_settings(size, lap)  # before anything is created: a bad pair leaves no empty KB behind
        where: Path | str = str(path) if is_postgres(str(path)) else Path(path)
        db = _connect(where, create)
        try:
            stored = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('chunk_size', 'overlap')").fetchall())
            if not stored:
                with write_transaction(db):  # two processes creating one KB at once: the first one's values
                    db.executemany(
                        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
                        [("chunk_size", str(size)), ("overlap", str(lap)), ("revision", "0"),
                         ("kb_id", uuid.uuid4().hex)],
                    )
                stored = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('chunk_size', 'overlap')").fetchall())
            if (chunk_size is not None and int(stored["chunk_size"]) != chunk_size) or (
                overlap is not None and int(stored["overlap"]) != overlap
            ):
                raise KnowledgeBaseError(
                    f"{_describe(where)} was built with chunk size {stored['chunk_size']} and overlap "
                    f"{stored['overlap']}; use a new knowledge base for other values"
                )
        except BaseException:
            db.close()
            raise
        kb = cls(where, db)
        kb.sync_index()
        return kb

    @property
    def location(self) -> str:
        """Where the KB is, as shown to people and written to audit records (a URL without its password)."""
        return _describe(self.path)

    @property
    def shared(self) -> bool:
        """True for a KB in PostgreSQL: other processes, on other machines, may change it at any time."""
        return isinstance(self.path, str)

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
    def db(self):  # noqa: ANN201 - a citebound.db.Connection (sqlite3 or PostgreSQL)
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
            self.db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

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

            # One indexing thread: tantivy writes a segment per thread per commit and does not merge
            # fewer than 8, and a search visits every segment. On 100k chunks one thread built 5 % slower
            # than two, and three commits left 3 segments (search 234 µs) instead of 6 (305 µs).
            self._bm25 = Bm25Index(self._index_folder(), threads=1)
        return self._bm25

    def _index_folder(self) -> Path:
        if not self.shared:
            return Path(self.path) / BM25_DIR
        kb_id = self.get_setting("kb_id") or hashlib.sha256(self.location.encode()).hexdigest()[:32]
        return cache_root() / "kb-index" / kb_id / BM25_DIR

    def sync_index(self, change: IndexChange | None = None, wait: float = 0.0,
                   fold: tuple[int, int] | None = None) -> bool:
        """Bring the BM25 index to the KB's revision; True if it wrote to the index.

        Under the index's writer lock (waiting up to `wait` seconds for another process's commit; False if
        it stays busy: that process brings the index up to date itself, or the next sync does), the index
        gets `change` when it is exactly one revision behind it, else the changes since its own revision
        read from the database (see the module docstring), else (no usable index) a rebuild. With `fold`
        (r0, r1), a catch-up also adds again (deleting first) the chunks of the documents last changed in
        revisions r0 < r <= r1: what an early commit put in a small segment of its own (`ingest_documents`)."""
        def plan(at: int):  # noqa: ANN202
            if change is not None and at == change.revision - 1:
                return change.adds.items(), change.deletes, change.revision, False
            return self._index_delta(at, fold)

        with self._lock:
            if self._session is not None:  # this KB's bulk ingest holds the writer: into it (committed soon)
                self._index_into_session(change)
                return True
            return self.bm25.update(plan, wait=wait)

    def _index_delta(self, at: int, fold: tuple[int, int] | None = None):  # noqa: ANN202 - (adds, deletes, revision, reset) or None
        """What takes an index at revision `at` to the KB's revision, read from one snapshot."""
        with read_transaction(self.db) as db:
            revision = self.revision
            if at == revision:
                return None
            if at < 0 or at > revision:  # no index, a corrupt one, or one of another KB: rebuild
                if at != -1 or revision != 0:  # not just a new, empty KB
                    log.warning("BM25 index at revision %s, KB at %s: rebuilding it", at, revision)
                return list(_sliced(db, self._codec)), [], revision, True
            old = [k for (keys,) in db.execute(
                "SELECT v.chunk_keys FROM documents d JOIN versions v ON v.doc_id = d.doc_id AND v.revision <= ? "
                "WHERE d.updated_revision > ?", (at, at)) for k in unpack_keys(keys)]
            # streamed, not fetched: each row carries its version's compressed text
            adds = list(_sliced(db, self._codec, "AND d.updated_revision > ?", (at,)))
            if fold is not None and fold[0] < fold[1] <= at:  # (their current chunks: each deleted first, below)
                adds += _sliced(db, self._codec, "AND d.updated_revision > ? AND d.updated_revision <= ?", fold)
            # and each chunk added is deleted first: an index killed between its commit and its revision
            # already holds some of them (a delete of a chunk it lacks does nothing)
            deletes = set(_ids(db, old)) | {cid for cid, _ in adds}
        return adds, deletes, revision, False

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
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(desc="ingesting", unit="doc", leave=False)
        # The first batch is committed to the index at once (the KB answers early), in a segment of its
        # own; tantivy merges segments only once 8 have gathered, and a search visits each (at 100k chunks
        # that small segment made a BM25 query 3-8 % slower: docs/benchmarks.md, "The BM25 query at 100k").
        # So the end of the ingest adds that batch's chunks again (deleting them first; into the writer the
        # ingest held open, or in the catch-up): the small segment is left empty, and tantivy drops it.
        start = self.revision
        try:
            chunks_added, first_commit = self._ingest_items(items, report, bar, batch_docs)
        except BaseException:
            self._end_session(commit=False)
            raise
        with self._lock:
            if self._session is not None and first_commit is not None:
                # the first batch's chunks again, each deleted first (the same fold as the catch-up's)
                with read_transaction(self.db) as db:
                    again = list(_sliced(db, self._codec, "AND d.updated_revision > ? AND d.updated_revision <= ?",
                                         (start, first_commit)))
                self._session.add(again, [cid for cid, _ in again], self._session.revision)
                first_commit = None
            self._end_session(commit=True)
        if self.bm25.revision != self.revision:  # batches whose index commit was deferred
            with self._lock:
                self.sync_index(wait=INDEX_WAIT_S, fold=None if first_commit is None else (start, first_commit))
                self._index_synced_at = time.monotonic()
        if bar is not None:
            bar.close()
        if embed:
            self.ensure_vectors(progress=progress)
        return replace(report, chunks_added=chunks_added, revision=self.revision)

    def _ingest_items(self, items, report: IngestReport, bar, batch_docs: int) -> tuple[int, int | None]:  # noqa: ANN001
        """The batches of `ingest_documents`: (chunks added, the revision of the first batch when it was
        committed to the index at once, else None)."""
        chunks_added, first_commit, batches = 0, None, 0
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
                synced = self._index_synced_at
                chunks_added += self._ingest_batch(batch, report)
                batches += 1
                if batches == 1 and self._index_synced_at != synced:
                    first_commit = self.revision
                if batches == 1:
                    self._begin_session()
                if bar is not None:
                    bar.update(len(batch))
                batch = []
        if batch:
            chunks_added += self._ingest_batch(batch, report)
            if bar is not None:
                bar.update(len(batch))
        return chunks_added, first_commit

    def _begin_session(self) -> None:
        """Hold the index's writer open for the rest of a bulk ingest (`bm25_index.IndexSession`): each
        later batch is indexed as soon as it is written, by tantivy's indexing thread while this one
        writes the next batch, instead of all texts read back from the database at the end (at 100k
        chunks that catch-up was 3.2 s of a 8.3 s ingest). Not while another process holds the writer
        (the catch-up at the end brings the index up then). An index behind the KB (the first batch not
        committed to it) catches up from the database with the next batch (`_index_into_session`)."""
        with self._lock:
            at = self.bm25.revision
            if self._session is None and 0 <= at <= self.revision:
                self._session = self.bm25.session(at)

    def _end_session(self, commit: bool) -> None:
        with self._lock:
            session, self._session = self._session, None
            if session is not None:
                session.close(commit=commit)
                if commit:
                    self._index_synced_at = time.monotonic()

    def _index_into_session(self, change: IndexChange | None) -> None:
        """A written change into the open writer: as it is when the writer is one revision behind, else
        what the writer lacks read from the database (another process wrote between two batches). The
        writer commits at most every INDEX_SYNC_EVERY_S, as the deferred syncs do."""
        session = self._session
        if change is not None and session.revision == change.revision - 1:
            session.add(change.adds.items(), change.deletes, change.revision)
        else:
            todo = self._index_delta(session.revision)
            if todo is not None:
                adds, deletes, revision, reset = todo
                session.add(adds, deletes, revision, reset)
        if time.monotonic() - self._index_synced_at >= INDEX_SYNC_EVERY_S:
            session.commit()
            self._index_synced_at = time.monotonic()

    def _active_chunk_ids(self, doc_id: str) -> list[str]:
        row = self.db.execute(
            "SELECT v.chunk_keys FROM documents d JOIN versions v ON v.doc_id = d.doc_id AND v.version = d.current_version "
            "WHERE d.doc_id = ? AND d.status = 'active'", (doc_id,)).fetchone()
        return _ids(self.db, unpack_keys(row[0])) if row else []

    def _ingest_batch(self, batch: Sequence[RawDocument], report: IngestReport) -> int:
        """Ingest one batch in one transaction; record outcomes in `report`; return the new chunk count.

        Each document runs inside its own SAVEPOINT: a document that fails (text that cannot be stored,
        a chunker error) is rolled back alone and listed as skipped with the reason, and the rest of the
        batch goes in. Errors of the database itself (locked, disk full) still abort the batch."""
        with self._lock:
            db = self.db
            try:
                changed = self._write_batch(db, batch, report)
            except BaseException:
                self._texts.clear()  # a version read inside the rolled-back transaction never existed
                self._prefixes.clear()
                if self._pending_dictionary is not None:  # trained for this batch, never committed
                    self._codec.forget(self._pending_dictionary)
                    self._pending_dictionary = None
                raise
            self._pending_dictionary = None
            if changed is None:
                return 0
            revision, adds, deletes, new_chunks = changed
            # The database is the source of truth; the index follows (and catches up later if this dies).
            # Deletes run first, so re-adds survive. A tantivy commit per batch made a 100k-chunk ingest
            # spend more time committing than indexing: after a commit, the next batches leave the index
            # behind for up to INDEX_SYNC_EVERY_S, then one commit catches up from the database (and
            # ingest_documents catches up at its end) — unless the ingest holds the writer open
            # (`_begin_session`): then each batch goes to it at once.
            if self._session is not None:  # a bulk ingest holds the index's writer
                self._index_into_session(IndexChange(revision, adds, deletes))
            elif time.monotonic() - self._index_synced_at >= INDEX_SYNC_EVERY_S:
                self.sync_index(IndexChange(revision, adds, deletes), wait=INDEX_WAIT_S)
                self._index_synced_at = time.monotonic()
            return new_chunks

    def _write_batch(
        self, db, batch: Sequence[RawDocument], report: IngestReport  # noqa: ANN001
    ) -> tuple[int, dict[str, str], set[str], int] | None:
        """The transaction of `_ingest_batch`: (revision, index adds, index deletes, new chunks), or None
        when nothing changed."""
        with write_transaction(db):
            if self._codec.current is None:
                self._train_dictionary(db, batch)
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
                    self._texts.clear()
                    self._prefixes.clear()
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
                return None  # nothing was written: the transaction commits empty
            db.execute("UPDATE meta SET value = ? WHERE key = 'revision'", (str(revision),))
        return revision, adds, deletes, new_chunks

    def _train_dictionary(self, db, batch: Sequence[RawDocument]) -> None:  # noqa: ANN001
        """Inside the batch's transaction: when the KB has no text dictionary yet and this batch has
        enough text to learn one from, train it, store it, and pack this batch's texts with it. Another
        process may have stored one meanwhile: then that one is used."""
        if self._use_stored_dictionary():
            return
        data = train([d.text for d in batch if isinstance(d.text, str) and d.text.strip()])
        if data is None:
            return
        did = self._pending_dictionary = self._codec.add(data, current=True)
        db.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
            [(f"{DICTIONARY_KEY}.{did}", base64.b64encode(data).decode("ascii")), (DICTIONARY_KEY, str(did))],
        )

    def compact(self, progress: bool = False, page: int = 1000) -> dict:
        """Pack every version text stored without a dictionary (zlib: written before there was one, or
        while the KB was too small to train one) with the KB's dictionary, training it first from an even
        sample of the stored texts if there is none; then, in SQLite, VACUUM (whether or not a text was
        repacked; `database_bytes_before` / `database_bytes_after` in what it returns). Texts, chunks, offsets,
        ids and the BM25 index do not change: readers in other processes go on reading throughout. Each
        page of versions is one transaction, so a killed run leaves some texts repacked and the rest as
        they were, all readable, and the next run does the rest. Returns what it did."""
        from citebound.kb.textcodec import BLOCKS, WHOLE

        db = self.db
        keys = db.execute("SELECT doc_id, version FROM versions ORDER BY doc_id, version").fetchall()
        trained = False
        with self._lock:
            try:
                with write_transaction(db):
                    if not self._use_stored_dictionary():
                        step = max(1, len(keys) // 4000)
                        sample = [self.document_text(d, v) for d, v in keys[::step]]
                        self._train_dictionary(db, [RawDocument("", text, "") for text in sample])
                        trained = self._pending_dictionary is not None
            except BaseException:
                if self._pending_dictionary is not None:
                    self._codec.forget(self._pending_dictionary)
                raise
            finally:
                self._pending_dictionary = None
        if self._codec.current is None:
            return {"versions": len(keys), "repacked": 0, "dictionary": None, "trained": False}
        repacked = before = after = 0
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=len(keys), desc="compacting", unit="version", leave=False)
        for lo in range(0, len(keys), page):
            part = keys[lo : lo + page]
            with self._lock, write_transaction(db):
                for doc_id, version in part:
                    (body,) = db.execute("SELECT body FROM versions WHERE doc_id = ? AND version = ?",
                                         (doc_id, version)).fetchone()
                    if bytes(body[:1]) not in (bytes([WHOLE]), bytes([BLOCKS])):
                        continue
                    new = pack(unpack(body, self._codec), self._codec)
                    db.execute("UPDATE versions SET body = ? WHERE doc_id = ? AND version = ?", (new, doc_id, version))
                    repacked, before, after = repacked + 1, before + len(body), after + len(new)
            if bar is not None:
                bar.update(len(part))
        if bar is not None:
            bar.close()
        done = {"versions": len(keys), "repacked": repacked, "dictionary": self._codec.current, "trained": trained,
                "bytes_before": before, "bytes_after": after}
        if not self.shared:  # also with nothing repacked: a fresh ingest leaves pages part empty (chunks
            # arrive in hash order), 2 of 40 MB on the 100k-chunk KB (docs/benchmarks.md, m009 and m010)
            size = lambda: db.execute("PRAGMA page_count").fetchone()[0] * db.execute("PRAGMA page_size").fetchone()[0]  # noqa: E731
            done["database_bytes_before"] = size()  # the pages, not the file: the WAL holds recent ones
            _vacuum(db, Path(self.path) / DB_FILE)
            done["database_bytes_after"] = size()
        return done

    def _use_stored_dictionary(self) -> bool:
        """Pack new texts with the dictionary the KB names, if it names one (True then)."""
        stored = self.get_setting(DICTIONARY_KEY)
        data = self._load_dictionary(int(stored)) if stored is not None else None
        if data:
            self._codec.add(data, current=True)
        return bool(data)

    def _load_dictionary(self, dict_id: int) -> bytes | None:
        stored = self.get_setting(f"{DICTIONARY_KEY}.{dict_id}")
        return base64.b64decode(stored) if stored is not None else None

    def _ingest_one(
        self, doc: RawDocument, revision: int, now: float
    ) -> tuple[str, int, dict[str, str], set[str], int]:
        """Write one document inside the open transaction: (outcome, version, index adds, index deletes,
        new chunks), outcome being unchanged | added | updated."""
        db = self.db
        row = db.execute(
            f"SELECT d.current_version, d.status, v.chars, v.body, {_VERSION_SOURCE}, v.chunk_keys FROM documents d "
            "JOIN versions v ON v.doc_id = d.doc_id AND v.version = d.current_version " + _PREFIX +
            "WHERE d.doc_id = ?",
            (doc.doc_id,),
        ).fetchone()
        adds: dict[str, str] = {}
        # unchanged: the same length and the same stored text (no stored hash since m011)
        if row is not None and row[2] == len(doc.text) and unpack(row[3], self._codec) == doc.text:
            if row[1] == "active":
                return "unchanged", row[0], adds, set(), 0
            # a removed document ingested again with the same text: bring it back (its source is stored
            # only when it is not its current version's: m009)
            db.execute(
                "UPDATE documents SET status = 'active', source = ?, updated_revision = ? WHERE doc_id = ?",
                (None if doc.source == row[4] else doc.source, revision, doc.doc_id),
            )
            for key, (tail, start, end) in _spans(db, unpack_keys(row[5])).items():
                adds[chunk_id_of(key, tail)] = doc.text[start:end]
            return "added", row[0], adds, set(), 0
        old = set(self._active_chunk_ids(doc.doc_id)) if row is not None else set()
        version = 1 if row is None else row[0] + 1
        spans = chunk_spans(doc.text, self.chunk_size, self.overlap)
        texts = [doc.text[span.start : span.end] for span in spans]
        new = [chunk_id(doc.doc_id, span.start, span.end, text) for span, text in zip(spans, texts)]
        keys = [chunk_key(cid) for cid in new]
        db.execute(
            "INSERT INTO versions (doc_id, version, body, chars, source, source_prefix, ingested_at, "
            "revision, chunk_keys) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (doc.doc_id, version, pack(doc.text, self._codec), len(doc.text),
             *self._source_columns(db, doc.doc_id, doc.source), now, revision, pack_keys([k for k, _ in keys])),
        )
        # PostgreSQL keeps each chunk's content hash: dense search in the database joins vectors on it
        # (dense_db); SQLite computes it from the text where it is needed (m012)
        hashed = ", content_hash" if db.dialect == "postgresql" else ""
        insert = (f'INSERT INTO chunks (chunk_key, tail, doc_id, start, "end", version{hashed}) '
                  f"VALUES (?, ?, ?, ?, ?, ?{', ?' if hashed else ''}) ON CONFLICT (chunk_key) DO NOTHING")
        new_chunks = 0
        for span, text, cid, (key, tail) in zip(spans, texts, new, keys):
            values = (key, tail, doc.doc_id, span.start, span.end, version)
            if db.execute(insert, values + ((content_digest(text),) if hashed else ())).rowcount:
                new_chunks += 1
            else:  # a chunk an earlier version had (it is now cited from this one), or a look-alike key
                # the BM25 index and the chunks table keep a chunk by the first 64 bits of its id
                # (bm25_index.chunk_key): no two chunks of a KB may share them (ids are hashes: one in
                # ~10^9 KBs of 100k chunks)
                if db.execute("SELECT tail FROM chunks WHERE chunk_key = ?", (key,)).fetchone()[0] != tail:
                    raise KeyCollision(f"chunk {cid} shares its first 64 bits with another chunk of this KB")
                db.execute("UPDATE chunks SET version = ? WHERE chunk_key = ? AND version < ?", (version, key, version))
            if cid not in old:
                adds[cid] = text
        db.execute(
            "INSERT INTO documents (doc_id, current_version, status, source, updated_revision) "
            "VALUES (?, ?, 'active', NULL, ?) ON CONFLICT(doc_id) DO UPDATE SET "
            "current_version = excluded.current_version, status = 'active', "
            "source = NULL, updated_revision = excluded.updated_revision",  # the new version has the source
            (doc.doc_id, version, revision),
        )
        return ("added" if row is None else "updated"), version, adds, old - set(new), new_chunks

    def _source_columns(self, db, doc_id: str, source: str | None) -> tuple[str | None, int | None]:  # noqa: ANN001
        """(versions.source, versions.source_prefix) for a version of `doc_id` from `source` (m010)."""
        if not isinstance(source, str) or not source.endswith(doc_id):
            return source, None
        prefix = source[: len(source) - len(doc_id)]
        pid = self._prefixes.get(prefix)
        if pid is None:
            db.execute("INSERT INTO source_prefixes (prefix) VALUES (?) ON CONFLICT (prefix) DO NOTHING", (prefix,))
            pid = self._prefixes[prefix] = db.execute(
                "SELECT id FROM source_prefixes WHERE prefix = ?", (prefix,)).fetchone()[0]
        return None, pid

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
            self.sync_index(IndexChange(revision, {}, set(old)), wait=INDEX_WAIT_S)
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
        # each well-formed id as its 96 bits (bm25_index.chunk_key, inlined: this runs for every hit)
        wanted = {int(cid[1:], 16): cid for cid in chunk_ids if type(cid) is str and CHUNK_ID.fullmatch(cid) is not None}
        keys = list(dict.fromkeys((bits >> 32) - _2_64 if bits >> 95 else bits >> 32 for bits in wanted))
        ids = set(wanted.values())  # the whole id, not only its key, names the chunk
        found = {chunk.id: chunk for chunk in self.chunks_by_key(keys)[1].values() if chunk.id in ids}
        return [found[c] for c in chunk_ids if c in found]

    def chunks_by_key(self, keys: Sequence[int]) -> tuple[int | None, dict[int, Chunk]]:
        """(revision, {key: chunk}) of the chunks with these keys (`bm25_index.chunk_key(id)[0]`, what
        `Bm25Index.search_keys` answers with; a key names one chunk of a KB); unknown keys left out.
        `revision` is the KB's revision read with the chunks (None when it changed between two pages
        of 500 keys). A chunk's text comes from the cache of decoded texts when it is there (10 chunks:
        one statement), else its version's body is read too (a second statement, for those missing)."""
        found: dict[int, Chunk] = {}
        revisions: set[str] = set()
        cached = self._texts.cached_slices
        for lo in range(0, len(keys), _IN_PAGE):
            part = keys[lo : lo + _IN_PAGE]
            # (the same text for the same number of keys: sqlite3 reuses the prepared statement)
            rows = self.db.execute(_chunks_by_key_sql(len(part)), part).fetchall()
            if not rows:
                continue
            revisions.add(rows[0][6])  # (one value for the statement)
            missing = []
            for row, text in zip(rows, cached([((r[2], r[5]), r[3], r[4]) for r in rows])):
                if text is None:
                    missing.append(row)
                else:
                    key, tail, doc_id, start, end, version, _ = row
                    found[key] = Chunk(f"c{key & _MASK64:016x}{tail:08x}", doc_id, version, start, end, text)
            if missing:
                pairs = list(dict.fromkeys((doc_id, version) for _, _, doc_id, _, _, version, _ in missing))
                bodies = {(d, v): body for d, v, body in self.db.execute(
                    _BODIES.format(pairs=",".join(["(?, ?)"] * len(pairs))), [x for pair in pairs for x in pair])}
                cut = self._texts.slice
                for key, tail, doc_id, start, end, version, _ in missing:
                    body = bodies.get((doc_id, version))
                    if body is not None:  # (always: a version is never dropped)
                        found[key] = Chunk(chunk_id_of(key, tail), doc_id, version, start, end,
                                           cut((doc_id, version), body, start, end))
        if not revisions:  # no chunk to read it with
            return self.revision, found
        return (int(revisions.pop()) if len(revisions) == 1 else None), found

    def document_text(self, doc_id: str, version: int | None = None) -> str:
        """Normalized text of one version of a document (the current one when `version` is None)."""
        if version is None:
            version = self.current_version(doc_id)
        text = self._texts.get((doc_id, version))
        if text is not None:
            return text
        row = self.db.execute(
            "SELECT body FROM versions WHERE doc_id = ? AND version = ?", (doc_id, version)
        ).fetchone()
        if row is None:
            raise InputError(f"unknown document version {doc_id!r} v{version}")
        return self._texts.text((doc_id, version), row[0])

    def current_version(self, doc_id: str) -> int:
        row = self.db.execute("SELECT current_version FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
        if row is None:
            raise InputError(f"unknown document id {doc_id!r}")
        return int(row[0])

    def document(self, doc_id: str) -> DocumentInfo:
        row = self.db.execute(_DOCUMENTS.format(where="WHERE d.doc_id = ?"), (doc_id,)).fetchone()
        if row is None:
            raise InputError(f"unknown document id {doc_id!r}")
        return DocumentInfo(*row)

    def documents(self, include_removed: bool = False) -> list[DocumentInfo]:
        where = "" if include_removed else "WHERE d.status = 'active'"
        return [DocumentInfo(*r) for r in self.db.execute(_DOCUMENTS.format(where=where) + " ORDER BY d.doc_id")]

    def versions(self, doc_id: str) -> list[int]:
        return [r[0] for r in self.db.execute("SELECT version FROM versions WHERE doc_id = ? ORDER BY version", (doc_id,))]

    def version_list(self) -> Iterator[tuple[str, int, str, float, int]]:
        """(doc_id, version, content hash, ingested_at, characters) of every stored version, in key
        order. The hash, the sha256 of the version's text in hexadecimal, is computed from the stored
        text (not stored since m011): each text is decoded once, not through the cache."""
        for doc_id, version, body, at, chars in self.db.execute(
                "SELECT doc_id, version, body, ingested_at, chars FROM versions ORDER BY doc_id, version"):
            yield doc_id, version, content_digest(unpack(body, self._codec)).hex(), at, chars

    def chunk_ids(self, doc_id: str, version: int | None = None) -> list[str]:
        """Ids of the chunks of one version of a document, in document order."""
        if version is None:
            version = self.current_version(doc_id)
        row = self.db.execute("SELECT chunk_keys FROM versions WHERE doc_id = ? AND version = ?",
                              (doc_id, version)).fetchone()
        return _ids(self.db, unpack_keys(row[0])) if row else []

    def active_chunks(self) -> Iterator[tuple[str, str, str]]:
        """(chunk_id, text, content_hash) of every retrievable chunk, in document order (the hash, in
        hexadecimal, computed from the text: not stored in SQLite since m012)."""
        for cid, text in _sliced(self.db, self._codec):
            yield cid, text, content_digest(text).hex()

    def chunk_documents(self) -> Iterator[tuple[str, str]]:
        """(chunk_id, doc_id) of every retrievable chunk, without their text: a chunk is in its document's
        current version exactly when that is the latest version that has it (`chunks.version`)."""
        for key, tail, doc_id in self.db.execute(
                "SELECT c.chunk_key, c.tail, d.doc_id FROM chunks c JOIN documents d ON d.doc_id = c.doc_id "
                "AND d.current_version = c.version WHERE d.status = 'active'"):
            yield chunk_id_of(key, tail), doc_id

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
    def missing_vectors(self, model: str) -> dict[str, str]:
        """{content hash (hexadecimal): text} of the retrievable chunks with no vector for `model` yet."""
        have = {bytes(r[0]) for r in self.db.execute("SELECT content_hash FROM vectors WHERE model = ?", (model,))}
        revision = self.revision
        if self._digests is None or self._digests[0] != revision:
            stored = self._stored_digests(revision)
            if stored is not None:
                self._digests, self._digests_on_disk = (revision, stored), revision
        if self._digests is not None and self._digests[0] == revision:  # hashed already: read the texts missing
            wanted: dict[bytes, str] = {}
            for cid, digest in self._digests[1]:
                if digest not in have and digest not in wanted:
                    wanted[digest] = cid
            texts = {c.id: c.text for c in self.get_chunks(list(wanted.values()))}
            return {digest.hex(): texts[cid] for digest, cid in wanted.items()}
        digests: list[tuple[str, bytes]] = []
        todo: dict[bytes, str] = {}
        for cid, text in _sliced(self.db, self._codec):
            digest = content_digest(text)
            digests.append((cid, digest))
            if digest not in have and digest not in todo:
                todo[digest] = text
        self._digests = (revision, digests)
        if have:  # a KB with vectors: the next process reads them instead
            self._store_digests(revision, digests)
        return {digest.hex(): text for digest, text in todo.items()}

    def _active_digests(self, persist: bool = False) -> list[tuple[str, bytes]]:
        """(chunk_id, content digest) of every retrievable chunk, in document order: hashed from the texts
        once per KB revision (a write in between only makes the next call hash them again), or read from
        the digest file that revision left (`_stored_digests`); with `persist`, saved there if not yet."""
        revision = self.revision
        if self._digests is None or self._digests[0] != revision:
            stored = self._stored_digests(revision)
            if stored is not None:
                self._digests, self._digests_on_disk = (revision, stored), revision
            else:
                self._digests = (revision, [(cid, content_digest(text)) for cid, text in _sliced(self.db, self._codec)])
        if persist and self._digests_on_disk != revision:
            self._store_digests(revision, self._digests[1])
        return self._digests[1]

    # -- the digest file ---------------------------------------------------------------------------------
    # SQLite keeps no chunk hash (m012): the first dense load of a process would read and hash every chunk
    # text (0.6 s at 100k chunks) to match chunks to their vectors. A KB folder with vectors keeps those
    # digests of its latest revision in `ann/digests.bin`, beside the HNSW graphs: a header line naming the
    # KB, its revision and a fingerprint of its versions (count, largest rowid) with the payload's sha256,
    # then (key, tail, digest) per chunk, 44 bytes each. A file that does not match is ignored (and
    # replaced at the next save); PostgreSQL keeps the hashes in the database and has no file.
    def _digests_file(self) -> Path | None:
        return None if self.shared else Path(self.path) / "ann" / DIGESTS_FILE

    def _digests_stamp(self, revision: int) -> dict:
        count, last = self.db.execute("SELECT count(*), max(rowid) FROM versions").fetchone()
        return {"kb": self.get_setting("kb_id"), "revision": revision, "versions": [count, last]}

    def _stored_digests(self, revision: int) -> list[tuple[str, bytes]] | None:
        path = self._digests_file()
        if path is None:
            return None
        try:
            with open(path, "rb") as f:
                if f.readline() != _DIGESTS_MAGIC:
                    return None
                header = json.loads(f.readline())
                payload = f.read()
        except (OSError, ValueError):
            return None
        expected = {**self._digests_stamp(revision), "sha256": hashlib.sha256(payload).hexdigest(),
                    "chunks": len(payload) // _DIGEST_RECORD.size}
        if header != expected or len(payload) % _DIGEST_RECORD.size:
            return None
        return [(f"c{key & _MASK64:016x}{tail:08x}", digest) for key, tail, digest in _DIGEST_RECORD.iter_unpack(payload)]

    def _store_digests(self, revision: int, digests: list[tuple[str, bytes]]) -> None:
        path = self._digests_file()
        if path is None:
            return
        try:
            payload = b"".join(_DIGEST_RECORD.pack(*chunk_key(cid), digest) for cid, digest in digests)
            header = {**self._digests_stamp(revision), "sha256": hashlib.sha256(payload).hexdigest(),
                      "chunks": len(digests)}
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
            tmp.write_bytes(_DIGESTS_MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + payload)
            os.replace(tmp, path)  # whole or not at all, whichever process writes last
            self._digests_on_disk = revision
        except OSError as exc:  # (a read-only KB: it hashes at each start, as before the file)
            log.warning("could not save the chunk digests to %s: %s", path, exc)
            self._digests_on_disk = revision  # not tried again for this revision

    def ensure_vectors(
        self, embedder=None, progress: bool = True, batch: int = 256, at_most: int | None = None, executor=None
    ) -> int:
        """Embed every retrievable chunk whose text has no vector yet; returns how many were embedded.

        Vectors are keyed by (content hash, model), so text already embedded once (in any document or
        version) is never embedded again. Each batch of `batch` vectors is its own transaction (and
        changes the `vectors_stamp` setting, so readers see them at once): a killed run keeps what it
        committed, and the next run embeds only the rest. With `at_most`, nothing is embedded when more
        than that many chunks lack a vector (the caller ranks with the vectors there are). With an
        `executor` (citebound.parallel: a process pool or Ray) its workers embed the batches, each with
        the same model and threads, and this process commits each batch as it comes back, in order.
        """
        if embedder is None:
            from citebound.models.embedder import shared_embedder

            embedder = shared_embedder()
        todo = self.missing_vectors(embedder.name)
        if not todo:
            return 0
        if at_most is not None and len(todo) > at_most:
            return 0
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=len(todo), desc="embedding", unit="chunk", leave=False)
        items = list(todo.items())
        parts = [items[lo : lo + batch] for lo in range(0, len(items), batch)]
        if executor is None or executor.name == "local":
            vectors = (embedder.embed([t for _, t in part]) for part in parts)
        else:
            from functools import partial

            from citebound.models.embedder import embed_batches

            vectors = executor.imap(partial(embed_batches, (embedder.threads, embedder.max_tokens)),
                                    [[t for _, t in part] for part in parts])
        for part, vecs in zip(parts, vectors):
            with self._lock, write_transaction(self.db) as db:
                db.executemany(
                    "INSERT INTO vectors (content_hash, model, vec) VALUES (?, ?, ?) "
                    "ON CONFLICT (content_hash, model) DO UPDATE SET vec = excluded.vec",
                    [(bytes.fromhex(d), embedder.name, db.encode_vector(v)) for (d, _), v in zip(part, vecs)],
                )
                db.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (VECTORS_STAMP, os.urandom(8).hex()),
                )
            if bar is not None:
                bar.update(len(part))
        if bar is not None:
            bar.close()
        return len(items)

    def load_vectors(self, model: str) -> tuple[list[str], np.ndarray]:
        """(chunk ids, matrix) of the retrievable chunks that have a vector for `model`."""
        vectors = {bytes(h): vec for h, vec in
                   self.db.execute("SELECT content_hash, vec FROM vectors WHERE model = ?", (model,))}
        ids: list[str] = []
        rows: list[bytes] = []
        if vectors:  # (the texts are read and hashed only when there is a vector to match)
            for cid, digest in self._active_digests(persist=True):
                vec = vectors.get(digest)
                if vec is not None:
                    ids.append(cid)
                    rows.append(vec)
        return ids, self.db.decode_vectors(rows)


def _describe(where: Path | str) -> str:
    if isinstance(where, str):
        from citebound.db.postgres import display_url

        return display_url(where)
    return str(where)


def _connect(where: Path | str, create: bool):  # noqa: ANN202 - a citebound.db.Connection
    """The KB's database, migrated: the SQLite file in folder `where`, or the PostgreSQL database at URL
    `where`. KnowledgeBaseError when there is none and not `create`, or it is not usable."""
    if isinstance(where, str):
        from citebound.db.postgres import open_postgres

        db = open_postgres(where, lock="kb")
        try:
            if not create and db.execute("SELECT to_regclass('meta')").fetchone()[0] is None:
                raise KnowledgeBaseError(f"no knowledge base in {_describe(where)} (create one with `citebound ingest`)")
            migrate(db)
        except sqlite3.DatabaseError as exc:
            db.close()
            raise KnowledgeBaseError(f"{_describe(where)}: not a usable knowledge base ({exc})") from exc
        except BaseException:
            db.close()
            raise
        return db
    db_path = where / DB_FILE
    if not db_path.exists():
        if not create:
            raise KnowledgeBaseError(f"no knowledge base at {where} (create one with `citebound ingest`)")
        if where.exists() and not where.is_dir():
            raise KnowledgeBaseError(f"{where} exists and is not a folder")
        where.mkdir(parents=True, exist_ok=True)
    try:
        db = open_sqlite(db_path)
    except sqlite3.DatabaseError as exc:
        raise KnowledgeBaseError(f"{db_path}: not a usable knowledge base ({exc})") from exc
    try:
        # reads through a memory map instead of a read() per page into SQLite's 2 MB page cache: a
        # query's chunk rows at 100k chunks took 0.053 instead of 0.086 ms here (address space, not RAM)
        db.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
        applied = migrate(db)
    except sqlite3.DatabaseError as exc:
        db.close()
        raise KnowledgeBaseError(f"{db_path}: not a usable knowledge base ({exc})") from exc
    if {"m008_compact_store", "m009_compact_catalogue", "m011_narrow_catalogue", "m012_chunk_keys"} & set(applied):
        _vacuum(db, db_path)
    return db


def _vacuum(db, db_path: Path) -> None:  # noqa: ANN001
    """Give the pages a migration freed back to the file system (SQLite keeps them for reuse otherwise).
    Atomic like any SQLite transaction; skipped, with a warning, while another process holds the file."""
    try:
        db.execute("VACUUM")
    except sqlite3.OperationalError as exc:
        log.warning("%s: not compacted (%s); run `sqlite3 %s VACUUM` when no process uses it", db_path, exc, db_path)
