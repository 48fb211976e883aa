"""Model checkers with one threshold per claims set, picked on that set's held-out dev half — the same
protocol as the per-set dev thresholds of `bench/verify_bench.py` for lexical/deterministic, without
the dev rows the model trained on. Figures on test.

    python bench/entailment_per_set.py [--checkers model,full] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "training"))
from calibrate import load_half  # noqa: E402  (the calibration half under the shipped model's split rule)
from citebound.verify.batch import binary_metrics, checker_threshold, labels_at, predict, read_rows
from citebound.verify.checkers import make_checker

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "claims"
SETS = ["scifact", "wice", "climate_fever", "summedits", "qags"]  # the order of training/calibrate.py


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkers", default="model,full")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    out = []
    halves = load_half(DATA, "calibration")
    for name in SETS:
        dev = halves[name]
        test = read_rows(DATA / name / "test.jsonl")
        for checker_name in args.checkers.split(","):
            checker = make_checker(checker_name)
            threshold, dev_ba = checker_threshold(predict(dev, checker)[0])
            preds, _ = predict(test, checker)
            ba = binary_metrics([r.label for r in test], labels_at(preds, threshold))["balanced_accuracy"]
            out.append({"set": name, "checker": checker_name, "threshold": round(threshold, 4),
                        "dev_half_balanced_accuracy": round(dev_ba, 4), "test_balanced_accuracy": round(ba, 4)})
            print(json.dumps(out[-1]), flush=True)
    for checker_name in args.checkers.split(","):
        vals = [r["test_balanced_accuracy"] for r in out if r["checker"] == checker_name]
        print(f"{checker_name}: mean test balanced accuracy {sum(vals) / len(vals):.4f} (per-set dev-half thresholds)")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
