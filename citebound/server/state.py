"""What one app shares between requests: the KB, one backend and one retriever built once (so their
caches and loaded models serve every request), a worker pool, and the locks that keep SQLite right.

Threads and SQLite:
- The KB's connection is opened with `check_same_thread=False` and SQLite runs in serialized mode
  (`sqlite3.threadsafety == 3`), so many worker threads may read through it at once. Changes to the
  documents (ingest, retire) take `kb_lock` for writing: no ask reads the KB while a batch is half
  written or the BM25 index is behind SQLite; asks take it for reading and run side by side.
- The audit log gets one connection per worker thread (`audit_log()`); each record is one
  `BEGIN IMMEDIATE` transaction, and SQLite's file lock (WAL, 30 s busy timeout) serialises writers.

Ready before every chunk has a vector: warm-up loads the models and the vectors there are, and the
server answers (BM25, and dense over the chunks that have a vector). One background thread then counts
the chunk texts without a vector (logged, and shown by GET /readyz) and, with `embed_missing =
"background"`, embeds them batch by batch (each batch committed: the retriever picks it up at its next
query); it looks again when the KB's revision changes (an ingest), every `EMBED_POLL_S`. With "off" the
count is logged with the command that embeds them (`citebound embed`). A request never embeds chunks
itself. Several servers on one PostgreSQL KB take turns: the one holding the session-level advisory
lock `EMBED_LOCK` embeds, the others look again at each poll (and use its vectors as it commits them),
and take over if it stops (its lock goes with its connection).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any, TypeVar
from collections.abc import Callable, Iterator

from citebound.audit import AuditLog
from citebound.generation import Backend, get_backend
from citebound.kb import KnowledgeBase
from citebound.kb.keys import KeyStore
from citebound.retrieval import Retriever, ask_reranker
from citebound.server.limits import RateLimiter
from citebound.server.metrics import Metrics
from citebound.server.settings import ServerSettings

log = logging.getLogger("citebound.server")
T = TypeVar("T")
EMBED_POLL_S = 5.0  # how often the background embedder looks for a new KB revision
EMBED_LOCK = "embed"  # PostgreSQL: the advisory lock of the server that embeds (one at a time per KB)


class _Stopped(Exception):
    """The server is closing: the background embedding stops between two batches."""


class _Counting:
    """The retriever's embedder, counting the texts embedded for the KB and stopping between batches
    when the server closes (the in-flight batch is not committed; the committed ones stay)."""

    def __init__(self, embedder, stop: threading.Event, done) -> None:
        self._embedder = embedder
        self._stop = stop
        self._done = done
        self.name = embedder.name
        self.threads = getattr(embedder, "threads", None)
        self.max_tokens = getattr(embedder, "max_tokens", None)

    def embed(self, texts, *args, **kwargs):
        if self._stop.is_set():
            raise _Stopped
        vectors = self._embedder.embed(texts, *args, **kwargs)
        self._done(len(texts))
        return vectors


class ReadWriteLock:
    """Many readers or one writer; a waiting writer holds back new readers (no writer starvation)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writer = False
        self._writers_waiting = 0

    @contextmanager
    def read(self) -> Iterator[None]:
        with self._cond:
            while self._writer or self._writers_waiting:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()

    @contextmanager
    def write(self) -> Iterator[None]:
        with self._cond:
            self._writers_waiting += 1
            while self._writer or self._readers:
                self._cond.wait()
            self._writers_waiting -= 1
            self._writer = True
        try:
            yield
        finally:
            with self._cond:
                self._writer = False
                self._cond.notify_all()


class Service:
    def __init__(self, kb_path: str | Path, settings: ServerSettings) -> None:
        self.settings = settings
        self.kb = KnowledgeBase.open(kb_path)
        self.kb_name = "kb" if self.kb.shared else (Path(kb_path).resolve().name or "kb")
        self.backend: Backend = get_backend(settings.backend, **dict(settings.backend_options))
        # requests never embed chunks themselves: the background thread does (or `citebound embed`)
        self.retriever = Retriever(self.kb, progress=False, embed_at_query=0, reranker=ask_reranker())
        self.keys = KeyStore(self.kb.db)
        self.kb_lock = ReadWriteLock()
        self.metrics = Metrics()
        self.limiter = RateLimiter(settings.rate_limit, settings.rate_burst)
        self.workers = settings.worker_count()
        self.executor = ThreadPoolExecutor(self.workers, thread_name_prefix="citebound-worker")
        self.ready = threading.Event()
        self.warm_error: str | None = None
        self._local = threading.local()
        self._logs: list[AuditLog] = []
        self._logs_lock = threading.Lock()
        self._closed = False
        self._stop = threading.Event()
        self._embed_thread: threading.Thread | None = None
        self._vectors_lock = threading.Lock()
        self.vectors_missing: int | None = None  # chunk texts without a vector, when last counted
        self.embedding = False
        self.embed_error: str | None = None
        self._told_other = False

    # -- per-thread audit log ------------------------------------------------------------------------
    def audit_log(self) -> AuditLog:
        log_ = getattr(self._local, "audit", None)
        if log_ is None:
            log_ = AuditLog.beside(self.kb.path)
            self._local.audit = log_
            with self._logs_lock:
                self._logs.append(log_)
        return log_

    # -- running work off the event loop -------------------------------------------------------------
    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, partial(fn, *args, **kwargs))

    def warm_up(self) -> None:
        """Load the embedding model, the chunk vectors and the backend's models, then mark ready."""
        from citebound.pipeline import ask

        try:
            with self.kb_lock.read():
                # the vectors there are, none embedded here; a graph past HNSW_MIN_CHUNKS is built in the
                # background while the server answers with exact search
                self.retriever.warm_up(embed_missing=False, ann="background")
                if self.kb.stats()["documents"]:
                    ask("What does this knowledge base say?", self.kb, backend=self.backend,
                        retriever=self.retriever, audit=False, abstain_on_weak_retrieval=False)
            self.ready.set()
        except Exception as exc:  # readyz reports it; requests still load what they need lazily
            self.warm_error = type(exc).__name__
            log.exception("warm-up failed")
        self._start_embedder()

    def start(self) -> None:
        if self.settings.warm_up:
            self.executor.submit(self.warm_up)
        else:
            self.ready.set()
            self._start_embedder()

    # -- chunks without a vector ------------------------------------------------------------------------
    def vector_status(self) -> dict[str, Any]:
        with self._vectors_lock:
            return {"vectors_missing": self.vectors_missing, "embedding": self.embedding}

    def _start_embedder(self) -> None:
        if self._closed or self._embed_thread is not None or not self.retriever.uses_dense:
            return
        self._embed_thread = threading.Thread(target=self._embed_loop, name="citebound-embed", daemon=True)
        self._embed_thread.start()

    def _embedded(self, n: int) -> None:
        with self._vectors_lock:
            self.vectors_missing = max(0, (self.vectors_missing or 0) - n)

    def _embed_loop(self) -> None:
        seen = None
        while not self._stop.is_set():
            try:
                revision = self.kb.revision
                if revision != seen and self._embed_missing():
                    seen = revision
            except _Stopped:
                return
            except Exception as exc:  # the server keeps answering; the next revision tries again
                if self._stop.is_set():
                    return
                self.embed_error = type(exc).__name__
                log.exception("embedding the chunks without a vector failed")
            finally:
                with self._vectors_lock:
                    self.embedding = False
            self._stop.wait(EMBED_POLL_S)

    def _embed_missing(self) -> bool:
        """Count (and embed) the chunk texts without a vector; False when another server on the same
        PostgreSQL KB is embedding them (this one looks again at its next poll)."""
        try_lock = getattr(self.kb.db, "try_lock", None)  # PostgreSQL: one server embeds at a time
        if self.settings.embed_missing == "background" and try_lock is not None:
            if not try_lock(EMBED_LOCK):
                if not self._told_other:
                    log.warning("another server is embedding this KB's chunks: its vectors are used as it "
                                "commits them")
                    self._told_other = True
                return False
            try:
                self._count_and_embed()
            finally:
                self.kb.db.unlock(EMBED_LOCK)
            return True
        self._count_and_embed()
        return True

    def _count_and_embed(self) -> None:
        embedder = self.retriever.embedder
        missing = len(self.kb.missing_vectors(embedder.name))
        with self._vectors_lock:
            self.vectors_missing = missing
        if not missing:
            return
        if self.settings.embed_missing == "off":
            log.warning("%d chunk texts have no vector yet: dense search ranks the others until "
                        "`citebound embed --kb …` embeds them", missing)
            return
        log.warning("%d chunk texts have no vector yet: answering from BM25 and the vectors there are while "
                    "they are embedded in the background", missing)
        with self._vectors_lock:
            self.embedding = True
        done = self.kb.ensure_vectors(_Counting(embedder, self._stop, self._embedded), progress=False)
        left = len(self.kb.missing_vectors(embedder.name))
        with self._vectors_lock:
            self.vectors_missing = left
        log.warning("embedded %d chunk texts in the background; %d without a vector", done, left)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self.executor.shutdown(wait=True, cancel_futures=True)
        if self._embed_thread is not None:  # it stops after the batch it is embedding
            self._embed_thread.join(timeout=120)
        with self._logs_lock:
            for log_ in self._logs:
                try:
                    log_.close()
                except Exception:  # pragma: no cover - closing is best effort
                    pass
            self._logs.clear()
        self.kb.close()
