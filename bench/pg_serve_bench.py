"""1 vs 2 `citebound serve` processes on one PostgreSQL knowledge base, under the same load.

    .venv/bin/python bench/pg_serve_bench.py --clients 8 --seconds 20 [--endpoint ask] [--url postgresql://…]

Without --url a throwaway PostgreSQL 16 + pgvector is started from the `pgserver` wheel (dev extra). The
bundled handbook is ingested (with vectors) into it, and into a SQLite KB folder; then the same phase runs
three times: all clients against one server on the SQLite folder (the embedded default, for reference),
against one server on PostgreSQL, then split evenly between two server processes on PostgreSQL (two
"machines": each with its own cache folder, so its own BM25 index followed from the database). Every ask writes its
audit record to the one shared log; at the end the log's hash chain is verified. Load and statistics
come from bench/serve_bench.py (`run_phase`); nothing is asserted, it prints what it measured.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from importlib import resources
from pathlib import Path


BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "tests"))

from serve_bench import free_port, run_phase, wait_ready  # noqa: E402


def start_server(url: str, cache: Path, workers: int) -> tuple[subprocess.Popen, str]:
    port = free_port()
    cmd = [sys.executable, "-m", "citebound", "serve", "--kb", url, "--port", str(port), "--rate-limit", "0",
           "--workers", str(workers)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "CITEBOUND_CACHE": str(cache)})
    base = f"http://127.0.0.1:{port}"
    wait_ready(proc, base)
    return proc, base


def stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()


def phase(url: str, tmp: Path, n_servers: int, args) -> dict:  # noqa: ANN001
    procs, bases = [], []
    try:
        for i in range(n_servers):
            proc, base = start_server(url, tmp / f"machine-{n_servers}-{i}-{len(url)}", args.workers)
            procs.append(proc)
            bases.append(base)
        for proc, base in zip(procs, bases):  # warm each server alike
            run_phase(base, proc.pid, args.endpoint, 1, 0, args.warm, args.fresh)
        share = [args.clients // n_servers + (1 if i < args.clients % n_servers else 0) for i in range(n_servers)]
        results: list[dict] = [{} for _ in range(n_servers)]

        def drive(i: int) -> None:
            results[i] = run_phase(bases[i], procs[i].pid, args.endpoint, share[i], args.seconds, None, args.fresh)

        threads = [threading.Thread(target=drive, args=(i,)) for i in range(n_servers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        stop(procs)
    total = sum(r["requests"] for r in results)
    wall = max(r["seconds"] for r in results)
    errors: dict[str, int] = {}
    for r in results:
        for k, v in r["errors"].items():
            errors[k] = errors.get(k, 0) + v
    return {"store": "postgresql" if url.startswith("postgresql") else "sqlite", "servers": n_servers,
            "clients": args.clients, "endpoint": args.endpoint, "requests": total,
            "rps": round(total / wall, 1), "errors": errors,
            "per_server": [{k: r[k] for k in ("clients", "requests", "rps", "p50_ms", "p95_ms", "p99_ms", "rss_mb_max")}
                           for r in results]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=None)
    ap.add_argument("--endpoint", default="ask")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--warm", type=int, default=20)
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--out", type=Path, default=BENCH / "results" / "pg_serve.json")
    args = ap.parse_args()

    from citebound.audit import AuditLog
    from citebound.kb import KnowledgeBase

    tmp = Path(tempfile.mkdtemp(prefix="pg-serve-bench-"))
    server = None
    url = args.url
    if url is None:
        from helpers.postgres import PostgresServer

        server = PostgresServer(tmp / "pgdata")
        url = server.new_database()
    try:
        shutil.copytree(resources.files("citebound") / "samples" / "handbook", tmp / "docs")
        os.environ["CITEBOUND_CACHE"] = str(tmp / "builder")
        for target in (url, tmp / "kb"):
            with KnowledgeBase.open(target, create=True) as kb:
                kb.ingest([tmp / "docs"], progress=False, embed=True)
        rows = [phase(str(tmp / "kb"), tmp, 1, args)] + [phase(url, tmp, n, args) for n in (1, 2)]
        with AuditLog.beside(url) as log:
            chain = {"records": len(log), "problems": log.verify()}
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    out = {"command": " ".join(sys.argv), "cores": os.cpu_count(), "phases": rows, "audit_log": chain}
    print(json.dumps(out, indent=2))
    args.out.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
