"""The verifier's speed on the two shapes the issue names, one onnxruntime thread, warm model:

    OMP_NUM_THREADS=1 python bench/verify_speed.py [--checker full] [--n 300]

- short: a one-sentence claim against a passage of at most 1,200 characters (test rows of the five
  claim sets, shuffled with seed 0; the answer-against-retrieved-chunk case);
- long: wice test claims against their whole documents (~8.6k characters).

Prints claims per CPU second and per wall second, and the load average (a shared machine's wall figure
is pessimistic; the CPU figure is the fair one).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from citebound.verify.checkers import make_checker  # noqa: E402

SETS = ["scifact", "climate_fever", "summedits", "qags", "wice"]


def rows(data: Path, kind: str, n: int) -> list[dict]:
    if kind == "long":
        found = [json.loads(line) for line in (data / "wice" / "test.jsonl").read_text().splitlines() if line]
    else:
        found = [r for s in SETS for line in (data / s / "test.jsonl").read_text().splitlines() if line
                 for r in [json.loads(line)] if len(r["evidence"]) <= 1200 and r["claim"].count(".") <= 1]  # fmt: skip
    random.Random(0).shuffle(found)
    return found[:n]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data/claims")
    p.add_argument("--checker", default="full")
    p.add_argument("--n", type=int, default=300)
    args = p.parse_args()
    checker = make_checker(args.checker)
    checker.check_pair("A warm-up claim.", "A warm-up passage.")
    for kind in ("short", "long"):
        batch = rows(args.data, kind, args.n)
        cpu, wall = time.process_time(), time.perf_counter()
        for r in batch:
            checker.check_pair(r["claim"], r["evidence"])
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        print(json.dumps({"checker": args.checker, "shape": kind, "claims": len(batch),
                          "per_cpu_second": round(len(batch) / cpu, 1), "per_wall_second": round(len(batch) / wall, 1),
                          "load_average": round(os.getloadavg()[0], 2)}))  # fmt: skip


if __name__ == "__main__":
    main()
