"""verify-batch in this process, on a local process pool and on Ray with 1 and 2 workers: time and sameness.

    nice -n 10 python bench/ray_bench.py --rows 300 --checkers deterministic,full

For each checker, over the first `--rows` claims of a dev set (default SciFact dev):
- cold: the `citebound verify-batch FILE --json` command as a user runs it, end to end in a fresh
  process (model loading, Ray start and actor start included), for each of: local, `--workers 2`
  (process pool), `--ray local --workers 1`, `--ray local --workers 2`;
- warm: in one process, each executor first checks 40 other rows (the next ones in the file: its
  workers build their checker then; other rows, so that no cache of the first run serves the timed
  one), then the timed rows: checking throughput with the set-up paid;
- identical: whether every run's predictions equal the local run's, row for row.

Writes bench/results/ray_bench.json. Timings are never asserted in tests; they depend on the load of
this shared 2-core machine, which is recorded (1-minute load average before and after each step).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from timer import Timer  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "claims" / "scifact" / "dev.jsonl"
CLI = [sys.executable, "-m", "citebound"]
WARMUP_ROWS = 40
CONFIGS = {  # name -> extra CLI arguments
    "local": [],
    "processes x2": ["--workers", "2"],
    "ray x1": ["--ray", "local", "--workers", "1"],
    "ray x2": ["--ray", "local", "--workers", "2"],
}


def load() -> float:
    return round(os.getloadavg()[0], 2)


def cold(path: Path, checker: str, extra: list[str], out: Path) -> dict:
    cmd = [*CLI, "verify-batch", str(path), "--json", "--checker", checker, "--out", str(out), *extra]
    before = load()
    with Timer() as t:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    summary = json.loads(done.stdout)
    return {"command": "citebound " + " ".join(cmd[3:]), "seconds": round(t.seconds, 2),
            "claims_per_second_end_to_end": round(summary["n"] / t.seconds, 1),
            "balanced_accuracy": summary.get("balanced_accuracy"), "load_before": before, "load_after": load()}


def warm(path: Path, warmup: Path, checker: str, rows: int) -> dict:
    import ray

    from citebound.parallel import InProcess, ProcessPool, RayExecutor
    from citebound.verify.batch import run_batch
    from citebound.verify.checkers import CheckerSpec

    spec = CheckerSpec(checker)
    out: dict = {}
    reference = None
    for name in CONFIGS:
        before = load()
        if name.startswith("ray"):
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
            executor = RayExecutor("auto", workers=int(name[-1]))
        elif name.startswith("processes"):
            executor = ProcessPool(2)
        else:
            executor = InProcess()
        try:
            run_batch(warmup, spec, executor=executor, progress=False)  # workers build their checker
            with Timer() as t:
                result = run_batch(path, spec, executor=executor, progress=False)
        finally:
            executor.close()
            if ray.is_initialized():
                ray.shutdown()
        predictions = [p.to_dict() for p in result.predictions]
        reference = reference if reference is not None else predictions
        out[name] = {"seconds": round(t.seconds, 2), "claims_per_second": round(rows / t.seconds, 1),
                     "identical_to_local": predictions == reference, "load_before": before, "load_after": load()}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="claims JSON lines (a dev split)")
    ap.add_argument("--rows", type=int, default=300)
    ap.add_argument("--checkers", default="deterministic,full")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "ray_bench.json")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path, warmup = Path(tmp) / "claims.jsonl", Path(tmp) / "warmup.jsonl"
        with args.data.open(encoding="utf-8") as fh:
            lines = [line for _, line in zip(range(args.rows + WARMUP_ROWS), fh)]
        path.write_text("".join(lines[:args.rows]), encoding="utf-8")
        warmup.write_text("".join(lines[args.rows:]), encoding="utf-8")
        results: dict = {"data": str(args.data), "rows": args.rows, "cpus": os.cpu_count(),
                         "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "checkers": {}}
        for checker in args.checkers.split(","):
            runs, outputs = {}, {}
            for name, extra in CONFIGS.items():
                outputs[name] = Path(tmp) / f"{checker}-{name.replace(' ', '')}.jsonl"
                runs[name] = cold(path, checker, extra, outputs[name])
                print(checker, "cold", name, runs[name], flush=True)
            local_rows = outputs["local"].read_text()
            for name in CONFIGS:
                runs[name]["identical_to_local"] = outputs[name].read_text() == local_rows
            results["checkers"][checker] = {"cold": runs, "warm": warm(path, warmup, checker, args.rows)}
            print(checker, "warm", results["checkers"][checker]["warm"], flush=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
