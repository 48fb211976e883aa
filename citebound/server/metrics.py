"""Prometheus text exposition (format 0.0.4), written by hand: request counts and a latency histogram
per endpoint, verdict counts and abstentions. Thread-safe; one `Metrics` per app."""

from __future__ import annotations

import bisect
import threading
from collections import defaultdict

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(**labels: str) -> str:
    return "{" + ",".join(f'{k}="{_escape(str(v))}"' for k, v in labels.items()) + "}"


class Metrics:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: dict[tuple[str, str, str], int] = defaultdict(int)  # (endpoint, method, status)
        self.latency_counts: dict[tuple[str, str], list[int]] = {}  # per bucket, not cumulative
        self.latency_sum: dict[tuple[str, str], float] = defaultdict(float)
        self.verdicts: dict[tuple[str, str], int] = defaultdict(int)  # (endpoint, label)
        self.abstentions: dict[str, int] = defaultdict(int)  # endpoint
        self.answers: dict[str, int] = defaultdict(int)
        self.rate_limited = 0

    def observe_request(self, endpoint: str, method: str, status: int, seconds: float) -> None:
        with self._lock:
            self.requests[(endpoint, method, str(status))] += 1
            key = (endpoint, method)
            counts = self.latency_counts.setdefault(key, [0] * (len(LATENCY_BUCKETS) + 1))
            counts[bisect.bisect_left(LATENCY_BUCKETS, seconds)] += 1
            self.latency_sum[key] += seconds

    def observe_verdicts(self, endpoint: str, labels: list[str]) -> None:
        with self._lock:
            for label in labels:
                self.verdicts[(endpoint, label)] += 1

    def observe_answer(self, endpoint: str, abstained: bool) -> None:
        with self._lock:
            if abstained:
                self.abstentions[endpoint] += 1
            else:
                self.answers[endpoint] += 1

    def render(self, extra: dict[str, float] | None = None) -> str:
        lines: list[str] = []
        with self._lock:
            lines += ["# HELP citebound_requests_total HTTP requests by endpoint, method and status.",
                      "# TYPE citebound_requests_total counter"]
            for (ep, method, status), n in sorted(self.requests.items()):
                lines.append(f"citebound_requests_total{_labels(endpoint=ep, method=method, status=status)} {n}")
            lines += ["# HELP citebound_request_duration_seconds Time to answer a request, by endpoint.",
                      "# TYPE citebound_request_duration_seconds histogram"]
            for (ep, method), counts in sorted(self.latency_counts.items()):
                total = 0
                for bound, n in zip((*LATENCY_BUCKETS, float("inf")), counts):
                    total += n
                    le = "+Inf" if bound == float("inf") else repr(bound)
                    lines.append("citebound_request_duration_seconds_bucket"
                                 f"{_labels(endpoint=ep, method=method, le=le)} {total}")
                lines.append(f"citebound_request_duration_seconds_sum{_labels(endpoint=ep, method=method)} "
                             f"{self.latency_sum[(ep, method)]:.6f}")
                lines.append(f"citebound_request_duration_seconds_count{_labels(endpoint=ep, method=method)} {total}")
            lines += ["# HELP citebound_verdicts_total Claim verdicts, by endpoint and label.",
                      "# TYPE citebound_verdicts_total counter"]
            for (ep, label), n in sorted(self.verdicts.items()):
                lines.append(f"citebound_verdicts_total{_labels(endpoint=ep, label=label)} {n}")
            lines += ["# HELP citebound_abstentions_total Questions answered with an abstention.",
                      "# TYPE citebound_abstentions_total counter"]
            for ep, n in sorted(self.abstentions.items()):
                lines.append(f"citebound_abstentions_total{_labels(endpoint=ep)} {n}")
            lines += ["# HELP citebound_answers_total Questions answered with at least one verified claim.",
                      "# TYPE citebound_answers_total counter"]
            for ep, n in sorted(self.answers.items()):
                lines.append(f"citebound_answers_total{_labels(endpoint=ep)} {n}")
            lines += ["# HELP citebound_rate_limited_total Requests refused with 429.",
                      "# TYPE citebound_rate_limited_total counter", f"citebound_rate_limited_total {self.rate_limited}"]
        for name, value in sorted((extra or {}).items()):
            lines += [f"# TYPE {name} gauge", f"{name} {value}"]
        return "\n".join(lines) + "\n"
