"""Bounded load on the HTTP service over loopback: N clients for T seconds (or until R requests), then stop.

Starts `citebound serve` as its own process (so the clients do not share its interpreter), waits for
GET /readyz, then runs each phase and reports per endpoint: requests, requests/s, p50/p95/p99 latency,
errors by status, and the server's resident memory (VmRSS from /proc) sampled through the run.

    .venv/bin/python bench/serve_bench.py                                   # the default phases, ~1 min
    .venv/bin/python bench/serve_bench.py --phases ask:1:10,ask:8:15,verify:4:10,verify-full:4:10
    .venv/bin/python bench/serve_bench.py --phases verify:4:0:10000         # memory over 10,000 requests
    .venv/bin/python bench/serve_bench.py --fresh                           # every question unique (no cache hits)

A phase is `endpoint:clients:seconds[:max_requests]` (seconds 0 = until max_requests). Endpoints:
`ask` (POST /v1/ask, extractive backend), `verify` (POST /v1/verify, deterministic checker, a 3-claim
answer), `verify-full` (the same with the entailment-model checker), `chat` (POST /v1/chat/completions).
Without --kb the bundled handbook is ingested into a temporary KB. Goals (issue 11): ask p50 < 100 ms
with one client; >= 10 asks/s with 8 clients, p99 < 2 s, zero errors; verify >= 300 requests/s; memory
flat after warm-up. Nothing here is asserted: it prints what it measured.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from importlib import resources
from pathlib import Path

import httpx

QUESTIONS = [
    "How long do refunds take?", "How much does express delivery cost?", "What does the warranty cover?",
    "How do I contact support?", "Can I return a product after 30 days?", "When do orders leave the warehouse?",
    "How much does standard shipping cost?", "Is the warranty valid abroad?", "What are the support hours?",
    "Do I get a refund for a damaged item?", "How long is the warranty on electronics?",
    "Who pays for return shipping?", "Can I change my delivery address?", "How do I start a return?",
    "Does express delivery work on weekends?", "What happens if my parcel is lost?",
]

SOURCES = {
    "1": "Customers get a refund within 30 days of delivery. Refunds are processed within five business days "
         "after the returned item arrives.",
    "2": "Standard delivery takes three to five business days and costs 4.90 euros. Express delivery arrives "
         "the next business day and costs 12 euros.",
    "3": "Electronics carry a twelve month warranty covering manufacturing defects.",
}
ANSWER = ("Refunds are processed within five business days [1]. Express delivery costs 12 euros [2]. "
          "Electronics carry a twelve month warranty [3].")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def request_for(endpoint: str, n: int, fresh: bool) -> tuple[str, dict]:
    question = QUESTIONS[n % len(QUESTIONS)] + (f" (ref {n})" if fresh else "")
    if endpoint == "ask":
        return "/v1/ask", {"question": question}
    if endpoint == "chat":
        return "/v1/chat/completions", {"model": "citebound", "messages": [{"role": "user", "content": question}]}
    if endpoint == "verify":
        return "/v1/verify", {"answer": ANSWER, "sources": SOURCES}
    if endpoint == "verify-full":
        return "/v1/verify", {"answer": ANSWER, "sources": SOURCES, "checker": "full"}
    raise SystemExit(f"unknown endpoint {endpoint}")


def run_phase(base: str, pid: int, endpoint: str, clients: int, seconds: float, max_requests: int | None,
              fresh: bool) -> dict:
    latencies: list[float] = []
    statuses: Counter = Counter()
    lock = threading.Lock()
    taken = [0]
    rss: list[float] = [rss_mb(pid)]
    stop = threading.Event()
    deadline = time.monotonic() + seconds if seconds > 0 else float("inf")

    def sampler() -> None:
        while not stop.wait(0.5):
            rss.append(rss_mb(pid))

    def client() -> None:
        with httpx.Client(base_url=base, timeout=60) as http:
            while time.monotonic() < deadline:
                with lock:
                    if max_requests is not None and taken[0] >= max_requests:
                        return
                    n = taken[0]
                    taken[0] += 1
                path, body = request_for(endpoint, n, fresh)
                t0 = time.perf_counter()
                try:
                    status = http.post(path, json=body).status_code
                except httpx.HTTPError as exc:
                    status = type(exc).__name__
                dt = time.perf_counter() - t0
                with lock:
                    statuses[str(status)] += 1
                    latencies.append(dt)

    watch = threading.Thread(target=sampler, daemon=True)
    watch.start()
    t0 = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    stop.set()
    rss.append(rss_mb(pid))
    errors = {k: v for k, v in statuses.items() if k != "200"}
    return {"endpoint": endpoint, "clients": clients, "seconds": round(wall, 2), "requests": len(latencies),
            "rps": round(len(latencies) / wall, 1), "p50_ms": round(1000 * percentile(latencies, 0.50), 1),
            "p95_ms": round(1000 * percentile(latencies, 0.95), 1), "p99_ms": round(1000 * percentile(latencies, 0.99), 1),
            "errors": errors, "rss_mb_start": round(rss[0], 1), "rss_mb_end": round(rss[-1], 1),
            "rss_mb_max": round(max(rss), 1),
            "rss_mb_samples": [round(x, 1) for x in rss[:: max(1, len(rss) // 10)]]}


def wait_ready(server: subprocess.Popen, base: str, timeout: float = 300) -> None:
    """Until GET /readyz answers 200; SystemExit if the server exits or is not ready in time."""
    deadline = time.monotonic() + timeout
    while True:
        if server.poll() is not None:
            raise SystemExit(f"server exited: {server.stderr.read()[-2000:]}")
        try:
            if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"server not ready after {timeout:.0f} s")
        time.sleep(0.2)


def build_kb(root: Path) -> Path:
    from citebound.kb import KnowledgeBase

    shutil.copytree(resources.files("citebound") / "samples" / "handbook", root / "docs")
    with KnowledgeBase.open(root / "kb", create=True) as kb:
        kb.ingest([root / "docs"], progress=False, embed=True)
    return root / "kb"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", type=Path, help="KB folder (default: a temporary copy of the handbook)")
    parser.add_argument("--phases", default="ask:1:10,ask:8:15,verify:1:5,verify:4:10",
                        help="endpoint:clients:seconds[:max_requests], comma-separated")
    parser.add_argument("--workers", type=int, default=0, help="server worker threads (0: its default)")
    parser.add_argument("--warm", type=int, default=20, help="requests per phase endpoint before measuring")
    parser.add_argument("--fresh", action="store_true", help="make every question unique (defeats caches)")
    parser.add_argument("--out", type=Path, help="also write the results as JSON here")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="serve-bench-"))
    kb = args.kb or build_kb(tmp)
    port = free_port()
    cmd = [sys.executable, "-m", "citebound", "serve", "--kb", str(kb), "--port", str(port), "--rate-limit", "0",
           "--workers", str(args.workers)]
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    results = []
    try:
        wait_ready(server, base)
        warmed = set()
        print(f"server pid {server.pid}, ready, RSS {rss_mb(server.pid):.0f} MB; cores {os.cpu_count()}")
        print(f"{'endpoint':<12}{'clients':>8}{'s':>7}{'requests':>10}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}"
              f"{'p99 ms':>9}  errors  RSS MB start/end/max")
        for spec in args.phases.split(","):
            parts = spec.split(":")
            endpoint, clients, seconds = parts[0], int(parts[1]), float(parts[2])
            max_requests = int(parts[3]) if len(parts) > 3 else None
            if endpoint not in warmed and args.warm:
                run_phase(base, server.pid, endpoint, 1, 0, args.warm, args.fresh)
                warmed.add(endpoint)
            r = run_phase(base, server.pid, endpoint, clients, seconds, max_requests, args.fresh)
            results.append(r)
            print(f"{r['endpoint']:<12}{r['clients']:>8}{r['seconds']:>7}{r['requests']:>10}{r['rps']:>9}"
                  f"{r['p50_ms']:>9}{r['p95_ms']:>9}{r['p99_ms']:>9}  {r['errors'] or 0}  "
                  f"{r['rss_mb_start']}/{r['rss_mb_end']}/{r['rss_mb_max']}", flush=True)
    finally:
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    if args.out:
        args.out.write_text(json.dumps({"command": " ".join(sys.argv), "fresh": args.fresh, "results": results},
                                       indent=2))


if __name__ == "__main__":
    main()
