"""A tiny wall-clock timer shared by the bench scripts (speed is measured here, never asserted in tests)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class Timer:
    """`with Timer() as t: ...` then `t.seconds` (wall) and `t.cpu_seconds` (this process's CPU time).

    On a shared machine the wall clock includes time spent waiting for a core; CPU time does not,
    so `cpu_rate` is the fairer "items per second on one core" for single-threaded code.
    """

    seconds: float = 0.0
    cpu_seconds: float = 0.0
    _start: float = field(default=0.0, repr=False)
    _cpu_start: float = field(default=0.0, repr=False)

    def __enter__(self) -> "Timer":
        self._start, self._cpu_start = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self._start
        self.cpu_seconds = time.process_time() - self._cpu_start

    def rate(self, n: int) -> float:
        return n / self.seconds if self.seconds > 0 else float("inf")

    def cpu_rate(self, n: int) -> float:
        return n / self.cpu_seconds if self.cpu_seconds > 0 else float("inf")
