"""BM25 over stemmed tokens, by tantivy (Rust, memory-mapped, transactional add/delete).

Scoring is tantivy's BM25 with its fixed parameters k1 = 1.2 and b = 0.75, over one field holding the
chunk text. The analyzer, registered as `citebound_en`, is tantivy's simple tokenizer (splits on
non-alphanumeric characters) -> drop tokens longer than 40 bytes -> lowercase -> ASCII folding ->
English stop words (tantivy's built-in list) -> Snowball English (Porter2) stemmer. Queries are analyzed
with the same analyzer and searched as an OR of term queries, so no query syntax is ever interpreted
(a question containing `AND`, quotes or `:` is just words).

Each chunk is kept by its id as two integers (`key`: the first 64 of the id's 96 bits, as a signed
integer, indexed so that a chunk can be deleted by it; `tail`: the other 32), not as the 25-character
string: 2.4 MB less on 100k chunks (docs/benchmarks.md, "A smaller catalogue"). So `key` must name one
chunk: the store refuses a new chunk whose key another chunk of the KB already has
(`store.KeyCollision`; one in about 10^9 KBs of 100k chunks). Both are fast fields (tantivy's columns)
and nothing is stored: a hit's key is read from the column, not from a compressed block of the doc
store (on 100k chunks 0.5 MB less, and 10 hits read about 25 µs sooner; docs/benchmarks.md, "The BM25
query at 100k"). `search_keys` answers with keys alone, for a caller that fetches the chunks by key.
An index written with a former schema (the id as text; the integers stored) does not open with this
one: it is rebuilt from the KB.

The index records which KB revision it reflects in `revision.json`, written after the index commit
and before the writer lock is released; the knowledge base compares it with its own revision on open
and re-syncs when they differ (e.g. a process killed between the SQLite commit and the index commit).
A catch-up from the database deletes every chunk it adds first (`KnowledgeBase._index_delta`), so an
index whose revision is behind its content (a process killed between the index commit and the revision)
still ends with each chunk once.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import time
from collections.abc import Callable, Iterable
from pathlib import Path

Plan = tuple[Iterable[tuple[str, str]], Iterable[str], int, bool]  # adds, deletes, revision, reset
log = logging.getLogger(__name__)
_APPLY_WAIT_S = 30.0

ANALYZER = "citebound_en"
K1 = 1.2  # tantivy's fixed BM25 parameters (documented here; tantivy does not expose them)
B = 0.75
_REVISION_FILE = "revision.json"


def bm25_term_factor(tf: float, doc_len: float, avg_len: float, k1: float = K1, b: float = B) -> float:
    """The BM25 term-frequency factor tf*(k1+1) / (tf + k1*(1 - b + b*|d|/avgdl)) (Robertson & Zaragoza 2009).

    Not used to score (tantivy does that); here so the parameters in the docs can be checked by a test.
    """
    return tf * (k1 + 1) / (tf + k1 * (1 - b + b * doc_len / avg_len))


def build_analyzer():
    import tantivy

    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.stopword("english"))
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


_BIT63 = 1 << 63
_MASK64 = (1 << 64) - 1


def chunk_key(chunk_id: str) -> tuple[int, int]:
    """(key, tail) of a chunk id (`citebound.kb.chunk.chunk_id`: "c" + 24 lowercase hex digits):
    its first 64 bits as a signed integer, its last 32. ValueError for any other string."""
    if not isinstance(chunk_id, str) or CHUNK_ID.fullmatch(chunk_id) is None:
        raise ValueError(f"not a chunk id: {chunk_id!r}")
    bits = int(chunk_id[1:], 16)  # (one conversion: this runs for every id a query fetches)
    key = bits >> 32
    return (key - (_BIT63 << 1) if key >= _BIT63 else key), bits & 0xFFFFFFFF


def chunk_id_of(key: int, tail: int) -> str:
    """The chunk id that `chunk_key` made (key, tail) of."""
    return f"c{key & _MASK64:016x}{tail:08x}"  # (& : the key as unsigned, as % 2**64 does, and sooner)


CHUNK_ID = re.compile(r"c[0-9a-f]{24}")  # the form of a chunk id (fullmatch: a trailing newline is not taken)


def _schema():
    import tantivy

    builder = tantivy.SchemaBuilder()
    # tantivy-py deletes by i64 terms (by a u64 term >= 2^63 it deleted nothing); read from the columns
    builder.add_integer_field("key", stored=False, indexed=True, fast=True)
    builder.add_integer_field("tail", stored=False, indexed=False, fast=True)
    builder.add_text_field("body", stored=False, tokenizer_name=ANALYZER, index_option="freq")
    return builder.build()


class Bm25Index:
    """A tantivy index of chunk texts keyed by chunk id, in a folder of its own."""

    def __init__(self, folder: str | os.PathLike[str], threads: int = 1) -> None:
        import tantivy

        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.threads = threads
        self._schema = _schema()
        try:
            self._index = tantivy.Index(self._schema, path=str(self.folder), reuse=True)
        except (OSError, ValueError):
            # an index from another schema or a corrupt one: start empty, the KB re-syncs it
            self._wipe()
            self._index = tantivy.Index(self._schema, path=str(self.folder), reuse=True)
        self._analyzer = build_analyzer()
        self._index.register_tokenizer(ANALYZER, self._analyzer)
        self._searcher = None
        # what every query calls, looked up once
        self._term_query, self._boolean_query, self._should = (
            tantivy.Query.term_query, tantivy.Query.boolean_query, tantivy.Occur.Should)

    def _wipe(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True, exist_ok=True)

    # -- state ---------------------------------------------------------------------------------------
    @property
    def revision(self) -> int:
        """The KB revision this index reflects, or -1 when unknown."""
        try:
            return int(json.loads((self.folder / _REVISION_FILE).read_text())["revision"])
        except (OSError, ValueError, KeyError, TypeError):
            return -1

    def _set_revision(self, revision: int) -> None:
        tmp = self.folder / (_REVISION_FILE + ".tmp")
        tmp.write_text(json.dumps({"revision": revision}))
        os.replace(tmp, self.folder / _REVISION_FILE)

    def num_docs(self) -> int:
        return self.searcher().num_docs

    # -- writing -------------------------------------------------------------------------------------
    def apply(self, adds: Iterable[tuple[str, str]], deletes: Iterable[str], revision: int, reset: bool = False) -> None:
        """Delete then add chunks in one tantivy commit, then record `revision`."""
        if not self.update(lambda _at: (adds, deletes, revision, reset), wait=_APPLY_WAIT_S):
            raise ValueError("LockBusy: another process holds the index's writer lock")

    def _writer(self, wait: float):  # noqa: ANN202 - a tantivy IndexWriter, or None while another holds it
        deadline = time.monotonic() + wait
        while True:
            try:
                return self._index.writer(heap_size=64_000_000, num_threads=self.threads)
            except ValueError as exc:
                if "LockBusy" not in str(exc):
                    raise
                if time.monotonic() >= deadline:
                    return None
                time.sleep(0.05)

    def update(self, plan: Callable[[int], Plan | None], wait: float = 0.0) -> bool:
        """Take the index's writer lock (waiting up to `wait` seconds while another process holds it),
        ask `plan(revision the index reflects now)` what to write — (adds, deletes, new revision, reset)
        or None for nothing — and write it: deletes, then adds, in one tantivy commit, then the revision.
        Deciding under the lock keeps two processes from applying one change twice. True if written;
        False when there was nothing to do or the lock stayed busy."""
        writer = self._writer(wait)
        if writer is None:
            log.warning("the BM25 index %s is being written by another process; not syncing it now", self.folder)
            return False
        try:
            todo = plan(self.revision)
            if todo is None:
                writer.rollback()
                self._searcher = None  # another process may have committed: read its commit next
                return False
            adds, deletes, revision, reset = todo
            _write(writer, adds, deletes, reset)
            writer.commit()
            # the revision is written while this process still holds the writer lock: dropping the
            # writer (wait_merging_threads consumes it) releases the lock, and another process that took
            # it before the revision was written would apply the same change again
            self._set_revision(revision)
            writer.wait_merging_threads()
        except BaseException:
            writer.rollback()
            raise
        finally:
            del writer  # releases the lock
        self._index.reload()
        self._searcher = None
        return True

    def session(self, revision: int) -> IndexSession | None:
        """The writer held open for a run of changes (`IndexSession`), from `revision` (what the index
        reflects now, as its caller knows); None while another process holds the writer lock."""
        writer = self._writer(0.0)
        return None if writer is None else IndexSession(self, writer, revision)

    # -- reading -------------------------------------------------------------------------------------
    def analyze(self, text: str) -> list[str]:
        return list(self._analyzer.analyze(text))

    def searcher(self):
        if self._searcher is None:
            self._index.reload()
            self._searcher = self._index.searcher()
        return self._searcher

    def refresh(self) -> None:
        self._searcher = None

    def _hits(self, query: str, limit: int):  # noqa: ANN202 - (searcher, [(score, DocAddress)])
        terms = self._analyzer.analyze(query)
        if not terms or limit <= 0:
            return None, []
        term, should, schema = self._term_query, self._should, self._schema
        q = self._boolean_query([(should, term(schema, "body", t)) for t in terms])
        searcher = self._searcher or self.searcher()
        return searcher, searcher.search(q, limit, count=False).hits

    def search(self, query: str, limit: int = 100) -> list[tuple[str, float]]:
        """Top `limit` (chunk_id, bm25 score) for `query`, best first (ties by chunk id)."""
        searcher, hits = self._hits(query, limit)
        if not hits:
            return []
        addresses = [address for _, address in hits]
        keys = searcher.fast_field_values("key", addresses)
        tails = searcher.fast_field_values("tail", addresses)
        out = [(chunk_id_of(key, tail), float(score)) for (score, _), key, tail in zip(hits, keys, tails)]
        # equal scores in chunk-id order: tantivy returns ties in segment order, which depends on when
        # the index committed, so two stores (or two ingests) of the same documents would rank them apart
        out.sort(key=lambda hit: (-hit[1], hit[0]))
        return out

    def search_keys(self, query: str, limit: int = 100) -> list[tuple[int, float]]:
        """`search` with each chunk named by its key (`chunk_key(id)[0]`) instead of its id: the same
        chunks in the same order (keys are unique in a KB, and ordering ids is ordering their keys as
        unsigned numbers), without reading the tails or writing the ids."""
        searcher, hits = self._hits(query, limit)
        if not hits:
            return []
        keys = searcher.fast_field_values("key", [address for _, address in hits])
        out = [(key, float(score)) for (score, _), key in zip(hits, keys)]
        if any(a[1] <= b[1] for a, b in zip(out, out[1:])):  # ties (or not best first): by id, as `search`
            out.sort(key=lambda hit: (-hit[1], hit[0] & _MASK64))
        return out


def _write(writer, adds: Iterable[tuple[str, str]], deletes: Iterable[str], reset: bool = False) -> None:  # noqa: ANN001
    """Deletes, then adds, into an open tantivy writer (not committed)."""
    import tantivy

    if reset:
        writer.delete_all_documents()
    for chunk_id in deletes:
        writer.delete_documents_by_term("key", chunk_key(chunk_id)[0])
    document, add = tantivy.Document, writer.add_document
    for chunk_id, text in adds:
        key, tail = chunk_key(chunk_id)
        add(document(body=text, key=key, tail=tail))


class IndexSession:
    """The index's writer held open across a run of changes (a bulk ingest, `KnowledgeBase.ingest_documents`).

    Each change goes to tantivy's indexing thread as soon as it is made (`add`), so the index is built
    while the caller does its own work (the next batch's database transaction), instead of re-reading
    every text from the database and indexing it all at the end; `commit` makes what was added
    searchable and records its revision; `close` commits what is left and releases the writer lock.
    Nothing added is visible before a commit: a process that dies in between leaves the index at its
    last committed revision, and the next sync catches up from the database. One indexing thread, as
    `update`: tantivy-py cannot merge segments on demand, and every segment costs each query time."""

    def __init__(self, index: Bm25Index, writer, revision: int) -> None:  # noqa: ANN001
        self._index, self._writer = index, writer
        self.revision = revision  # what the writer holds (committed or not)
        self.committed = revision

    def add(self, adds: Iterable[tuple[str, str]], deletes: Iterable[str], revision: int, reset: bool = False) -> None:
        """Deletes then adds (not committed yet), taking the writer to `revision`."""
        _write(self._writer, adds, deletes, reset)
        self.revision = revision

    def commit(self) -> None:
        self._writer.commit()
        self._index._set_revision(self.revision)  # (under the lock, as `update` does)
        self.committed = self.revision
        self._index._searcher = None  # (the next search reloads)

    def close(self, commit: bool = True) -> None:
        """Commit what was added since the last commit (unless `commit` is False: dropped), then
        release the writer lock."""
        if self._writer is None:
            return
        writer = self._writer
        try:
            if commit and self.revision != self.committed:
                self.commit()
            else:
                writer.rollback()
            writer.wait_merging_threads()
        except BaseException:
            with contextlib.suppress(Exception):
                writer.rollback()
            raise
        finally:
            self._writer = None
            del writer  # releases the lock
            self._index._index.reload()
            self._index._searcher = None
