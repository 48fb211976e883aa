"""A tiny wall-clock timer shared by the bench scripts (speed is measured here, never asserted in tests)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class Timer:
    """`with Timer() as t: ...` then `t.seconds`; `t.rate(n)` gives items per second."""

    seconds: float = 0.0
    _start: float = field(default=0.0, repr=False)

    def __enter__(self) -> "Timer":
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self._start

    def rate(self, n: int) -> float:
        return n / self.seconds if self.seconds > 0 else float("inf")
