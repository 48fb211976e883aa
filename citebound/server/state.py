"""What one app shares between requests: the KB, one backend and one retriever built once (so their
caches and loaded models serve every request), a worker pool, and the locks that keep SQLite right.

Threads and SQLite:
- The KB's connection is opened with `check_same_thread=False` and SQLite runs in serialized mode
  (`sqlite3.threadsafety == 3`), so many worker threads may read through it at once. Changes to the
  documents (ingest, retire) take `kb_lock` for writing: no ask reads the KB while a batch is half
  written or the BM25 index is behind SQLite; asks take it for reading and run side by side.
- The audit log gets one connection per worker thread (`audit_log()`); each record is one
  `BEGIN IMMEDIATE` transaction, and SQLite's file lock (WAL, 30 s busy timeout) serialises writers.
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
from citebound.retrieval import Retriever
from citebound.server.limits import RateLimiter
from citebound.server.metrics import Metrics
from citebound.server.settings import ServerSettings

log = logging.getLogger("citebound.server")
T = TypeVar("T")


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
        self.retriever = Retriever(self.kb, progress=False)
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
                self.retriever.warm_up()
                if self.kb.stats()["documents"]:
                    ask("What does this knowledge base say?", self.kb, backend=self.backend,
                        retriever=self.retriever, audit=False, abstain_on_weak_retrieval=False)
            self.ready.set()
        except Exception as exc:  # readyz reports it; requests still load what they need lazily
            self.warm_error = type(exc).__name__
            log.exception("warm-up failed")

    def start(self) -> None:
        if self.settings.warm_up:
            self.executor.submit(self.warm_up)
        else:
            self.ready.set()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.executor.shutdown(wait=True, cancel_futures=True)
        with self._logs_lock:
            for log_ in self._logs:
                try:
                    log_.close()
                except Exception:  # pragma: no cover - closing is best effort
                    pass
            self._logs.clear()
        self.kb.close()
