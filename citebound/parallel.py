"""Where batch work runs: in this process, in a local process pool, or on a Ray cluster.

    with make_executor(ray=None, workers=1) as executor:        # "auto", "local" or an address for Ray
        results = executor.map(fn, items, desc="verify")        # one result per item, in input order
        for result in executor.imap(fn, items): ...             # the same, each as soon as it is ready

`fn(chunk: list) -> list` takes a chunk of items and returns one result per item. It must be a
module-level function, or a `functools.partial` of one over plain values (a spec), so that it travels
to other processes by reference: workers import citebound, they are never sent code. What a worker
needs to build once (a checker, an open knowledge base, a warmed retriever) it builds on first use with
`worker_state(spec, build)`, cached per process; in this process `release_state(spec)` closes it.

Items are independent and results come back in input order, so every executor gives the result the
in-process run gives; only the time differs. Progress is a bar on stderr, advanced as chunks finish.

Executors:
- `InProcess` (the default, `workers=1`): a plain loop here.
- `ProcessPool` (`workers>1`, no Ray): `concurrent.futures.ProcessPoolExecutor`, spawned processes.
- `RayExecutor` (`--ray`): one Ray actor per worker (one CPU each), `workers` of them (default: the
  cluster's CPUs). `ray` is an optional extra (`pip install 'citebound[ray]'`). Address: `local` starts
  a Ray instance on this machine for the run; `auto` joins the running cluster (`ray start --head`, or
  `$RAY_ADDRESS`); anything else is passed to `ray.init(address=...)` (`ray://host:10001`, `host:6379`).
  A Ray session that was running before (a test's, a notebook's) is used as it is and left running.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

from citebound.errors import InputError

ChunkFn = Callable[[list], list]

# At most this many items per chunk; chunks are sized so each worker gets several (a slow chunk
# cannot leave the others idle for long), and never so small that sending them costs more than running.
MAX_CHUNK = 64
CHUNKS_PER_WORKER = 4


def chunk_size_for(n_items: int, workers: int) -> int:
    """Items per chunk: about CHUNKS_PER_WORKER chunks per worker, between 1 and MAX_CHUNK."""
    return max(1, min(MAX_CHUNK, math.ceil(n_items / max(1, workers * CHUNKS_PER_WORKER))))


def chunked(items: Sequence[Any], size: int) -> list[list]:
    return [list(items[i:i + size]) for i in range(0, len(items), size)]


# -- what a worker process keeps between chunks ---------------------------------------------------
_STATE: dict[Any, Any] = {}


def worker_state(key: Any, build: Callable[[], Any]) -> Any:
    """The object `build()` made for `key` in this process, built on first use (a hashable spec)."""
    if key not in _STATE:
        _STATE[key] = build()
    return _STATE[key]


def release_state(key: Any) -> None:
    """Forget this process's object for `key`, calling its `close()` when it has one."""
    obj = _STATE.pop(key, None)
    for part in obj if isinstance(obj, tuple) else (obj,):
        close = getattr(part, "close", None)
        if callable(close):
            close()


# -- executors ------------------------------------------------------------------------------------
class Executor(Protocol):
    name: str  # "local", "processes" or "ray"
    workers: int

    def map(self, fn: ChunkFn, items: Sequence[Any], *, desc: str = "", progress: bool = False) -> list: ...

    def imap(self, fn: ChunkFn, items: Sequence[Any], *, desc: str = "", progress: bool = False) -> Iterator[Any]: ...

    def close(self) -> None: ...


class _Base:
    name = "local"
    workers = 1

    def __enter__(self):  # noqa: ANN204
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        pass

    def describe(self) -> dict[str, Any]:
        return {"executor": self.name, "workers": self.workers}

    def map(self, fn: ChunkFn, items: Sequence[Any], *, desc: str = "", progress: bool = False) -> list:
        """fn over `items` in chunks; one result per item, in input order."""
        return list(self.imap(fn, items, desc=desc, progress=progress))

    def imap(self, fn: ChunkFn, items: Sequence[Any], *, desc: str = "", progress: bool = False) -> Iterator[Any]:
        """As `map`, yielding each result as soon as it and every result before it are done (a caller
        can commit them as they come)."""
        if not items:
            return
        chunks = chunked(items, chunk_size_for(len(items), self.workers))
        bar = _bar(len(items), desc, progress, self)
        done: dict[int, list] = {}
        following = 0
        try:
            for index, result in self._run(fn, chunks):
                if len(result) != len(chunks[index]):
                    raise RuntimeError(f"{getattr(fn, '__name__', fn)} returned {len(result)} results "
                                       f"for {len(chunks[index])} items")
                done[index] = result
                if bar is not None:
                    bar.update(len(result))
                while following in done:
                    yield from done.pop(following)
                    following += 1
        finally:
            if bar is not None:
                bar.close()

    def _run(self, fn: ChunkFn, chunks: list[list]) -> Iterator[tuple[int, list]]:
        for i, chunk in enumerate(chunks):
            yield i, fn(chunk)


class InProcess(_Base):
    """A plain loop in this process: what every command does without --workers or --ray."""


class ProcessPool(_Base):
    """`workers` spawned processes on this machine (spawn, not fork: onnxruntime's threads do not
    survive a fork)."""

    name = "processes"

    def __init__(self, workers: int) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.workers = workers
        self._pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))

    def _run(self, fn: ChunkFn, chunks: list[list]) -> Iterator[tuple[int, list]]:
        from concurrent.futures import as_completed

        futures = {self._pool.submit(fn, chunk): i for i, chunk in enumerate(chunks)}
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _import_ray():  # noqa: ANN202 - the ray module
    try:
        import ray
    except ImportError as exc:
        raise InputError("--ray needs Ray: pip install 'citebound[ray]'") from exc
    return ray


class RayExecutor(_Base):
    """`workers` Ray actors, one CPU each; chunks go to whichever actor is free (two in flight each)."""

    name = "ray"

    def __init__(self, address: str, workers: int | None = None) -> None:
        ray = _import_ray()
        self._ray = ray
        self._owns_session = not ray.is_initialized()
        if self._owns_session:
            _connect(ray, address, workers)
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = workers or max(1, cpus)
        self.address = address
        worker_cls = ray.remote(num_cpus=1)(_RayWorker)
        self._actors = [worker_cls.remote() for _ in range(self.workers)]

    def _run(self, fn: ChunkFn, chunks: list[list]) -> Iterator[tuple[int, list]]:
        ray = self._ray
        fn_ref = ray.put(fn)
        pending: dict[Any, tuple[int, Any]] = {}
        queue = list(enumerate(chunks))[::-1]
        free = [a for a in self._actors for _ in range(2)]  # two chunks in flight per actor
        try:
            while queue or pending:
                while queue and free:
                    index, chunk = queue.pop()
                    actor = free.pop()
                    pending[actor.run.remote(fn_ref, chunk)] = (index, actor)
                ready, _ = ray.wait(list(pending), num_returns=1)
                index, actor = pending.pop(ready[0])
                free.append(actor)
                yield index, ray.get(ready[0])
        finally:
            for ref in pending:
                ray.cancel(ref, force=False)

    def describe(self) -> dict[str, Any]:
        return {"executor": "ray", "workers": self.workers, "address": self.address}

    def close(self) -> None:
        ray = self._ray
        for actor in self._actors:
            ray.kill(actor)
        self._actors = []
        if self._owns_session and ray.is_initialized():
            ray.shutdown()


class _RayWorker:
    """A Ray actor: runs chunks; `worker_state` keeps what it built between them (one process each)."""

    def run(self, fn: ChunkFn, chunk: list) -> list:
        return fn(chunk)


def _connect(ray, address: str, workers: int | None) -> None:  # noqa: ANN001 - the ray module
    """Start or join a Ray session; a clear InputError when there is nothing to join."""
    quiet = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    try:
        if address == "local":
            ray.init(num_cpus=workers or os.cpu_count() or 1, **quiet)
        else:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        hint = " (start one with `ray start --head`, or use --ray local)" if address == "auto" else ""
        raise InputError(f"cannot reach a Ray cluster at {address!r}{hint}: {exc}") from exc


def make_executor(ray: str | None = None, workers: int | None = None) -> _Base:
    """The executor for `--ray ADDRESS` / `--workers N`: Ray when an address is given, else a local
    process pool for N > 1, else this process. Workers must be at least 1."""
    if workers is not None and workers < 1:
        raise InputError(f"--workers must be at least 1, got {workers}")
    if ray:
        return RayExecutor(ray.strip(), workers)
    if workers and workers > 1:
        return ProcessPool(workers)
    return InProcess()


def _bar(total: int, desc: str, progress: bool, executor: _Base):  # noqa: ANN202 - a tqdm bar or None
    if not progress:
        return None
    from tqdm import tqdm

    where = "" if executor.name == "local" else f" [{executor.name} x{executor.workers}]"
    return tqdm(total=total, desc=f"{desc}{where}", unit="item", leave=False, mininterval=0.5)
