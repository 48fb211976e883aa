"""Benchmark the claim checkers on every labelled claims set: threshold chosen on dev, figures on test.

    python bench/verify_bench.py [--data ../shared/data/claims] [--checkers lexical,deterministic]
                                 [--sets scifact,wice] [--json OUT.json]

For each set and checker: run the checker on dev.jsonl, pick the threshold that maximises balanced
accuracy there (the model checkers `model` and `full` instead use their one threshold calibrated on the
held-out dev halves), then run it on test.jsonl and report balanced accuracy at that threshold, per-class
precision / recall and claims per second (one single-threaded process; checking time only, not file
reading), both per wall-clock second and per CPU second (the fair figure on a shared machine).
Nothing is tuned on test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timer import Timer  # noqa: E402

from citebound.verify.batch import binary_metrics, labels_at, pick_threshold, predict, read_rows  # noqa: E402
from citebound.verify.checkers import make_checker  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "claims"
# The model checkers carry thresholds chosen on the held-out halves of the dev splits (training/calibrate.py,
# citebound/models/entailment/calibration.json); re-picking on full dev would reuse rows the model trained on.
CALIBRATED = {"model", "full"}


def run_set(folder: Path, checker_name: str) -> dict:
    checker = make_checker(checker_name)
    if checker_name in CALIBRATED:  # one global threshold, already chosen on the dev calibration halves
        threshold, dev_bacc = checker.threshold, None
    else:
        dev_preds, _ = predict(read_rows(folder / "dev.jsonl"), checker)
        threshold, dev_bacc = pick_threshold(dev_preds)
    test_rows = read_rows(folder / "test.jsonl")
    with Timer() as t:
        test_preds, _ = predict(test_rows, checker)
    gold = [r.label for r in test_rows]
    metrics = binary_metrics(gold, labels_at(test_preds, threshold))
    return {
        "set": folder.name, "checker": checker_name, "n": len(test_rows), "threshold": round(threshold, 4),
        "dev_balanced_accuracy": None if dev_bacc is None else round(dev_bacc, 4), **{k: round(v, 4) for k, v in metrics.items()},
        "claims_per_second": round(t.rate(len(test_rows)), 1),
        "claims_per_cpu_second": round(t.cpu_rate(len(test_rows)), 1),
        "evidence_chars_mean": round(sum(len(r.evidence) for r in test_rows) / len(test_rows)),
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--checkers", default="lexical,deterministic")
    ap.add_argument("--sets", default="")
    ap.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = ap.parse_args()
    sets = sorted(p for p in args.data.iterdir() if (p / "test.jsonl").is_file())
    if args.sets:
        wanted = set(args.sets.split(","))
        sets = [p for p in sets if p.name in wanted]
    checkers = args.checkers.split(",")
    rows = []
    for folder in sets:
        for name in checkers:
            rows.append(run_set(folder, name))
            print(f"  done {folder.name} / {name}", file=sys.stderr)
    print(f"# machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          "threshold picked on dev, figures on test")
    head = "| set | n (test) | evidence chars | " + " | ".join(f"{c}: thr | {c}: BAcc | {c}: claims/s (wall / CPU)" for c in checkers) + " |"
    print(head)
    print("|" + "---|" * (3 + 3 * len(checkers)))
    for folder in sets:
        cells = [folder.name]
        by = {r["checker"]: r for r in rows if r["set"] == folder.name}
        cells += [str(by[checkers[0]]["n"]), f"{by[checkers[0]]['evidence_chars_mean']:,}"]
        for c in checkers:
            r = by[c]
            speed = f"{r['claims_per_second']:,.0f} / {r['claims_per_cpu_second']:,.0f}"
            cells += [f"{r['threshold']:.3f}", f"{r['balanced_accuracy']:.3f}", speed]
        print("| " + " | ".join(cells) + " |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
