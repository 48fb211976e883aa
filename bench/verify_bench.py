"""Benchmark the claim checkers on every labelled claims set: thresholds chosen on dev, figures on test.

    python bench/verify_bench.py [--data ../shared/data/claims] [--checkers lexical,deterministic,model,full]
                                 [--sets scifact,wice] [--json OUT.json]

Each checker runs once on dev and once on test; test balanced accuracy is then reported at three
thresholds, none chosen on test:

- per set:  the threshold maximising balanced accuracy on that set's dev split (needs labelled data from
            the user's own domain; the most flattering protocol);
- global:   one threshold for all five sets, maximising the mean dev balanced accuracy (a calibrated
            default for documents that are none of these sets);
- default:  the checker's own default, what `citebound verify` does without --threshold (for `model`
            and `full` that is the global threshold stored with the model by training/calibrate.py).

`model` and `full` use only the calibration halves of dev (rows the model was not trained on); the other
checkers use all of dev. Also claims per second, per wall-clock and per CPU second (one process,
checking time only, not file reading; the CPU figure is the fair one on a shared machine).
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

import numpy as np  # noqa: E402

from citebound.evaluate.splits import calibration_ids, model_split_rule  # noqa: E402
from citebound.verify.checks.entailment import CALIBRATION_FILE  # noqa: E402
from citebound.metrics import pick_threshold  # noqa: E402
from citebound.verify.batch import (  # noqa: E402
    PREFER,
    binary_metrics,
    checker_threshold,
    labels_at,
    prediction_arrays,
    predict,
    read_rows,
)
from citebound.verify.checkers import make_checker  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "claims"
# The model checkers were trained on the other half of each dev split: their dev is the calibration half.
CALIBRATED = {"model", "full"}
# The global threshold tries at most this many candidates (quantiles of the unblocked dev scores), and
# no "nothing supported" threshold above them all (unlike `checker_threshold` per set).
GLOBAL_MAX_CANDIDATES = 1000


def dev_rows(folder: Path, checker_name: str):
    rows = read_rows(folder / "dev.jsonl")
    if checker_name in CALIBRATED:  # under the split rule the shipped model was trained with
        rule = model_split_rule(json.loads(CALIBRATION_FILE.read_text()))
        held_out = calibration_ids(folder.name, [(r.id, r.claim, r.evidence) for r in rows], rule)
        rows = [r for r in rows if r.id in held_out]
    return rows


def bacc(preds, threshold: float) -> float:
    return binary_metrics([p.gold for p in preds], labels_at(preds, threshold))["balanced_accuracy"]


def global_threshold(dev_by_set: list) -> float:
    """One threshold maximising the mean dev balanced accuracy over the sets (each set one group)."""
    arrays = [prediction_arrays(preds) for preds in dev_by_set]
    scores, supported, blocked = (np.concatenate(parts) for parts in zip(*arrays))
    groups = np.repeat(np.arange(len(arrays)), [len(a[0]) for a in arrays])
    return pick_threshold(scores, supported, blocked=blocked, groups=groups, grid="scores",
                          max_candidates=GLOBAL_MAX_CANDIDATES, prefer=PREFER).threshold


def run_checker(sets: list[Path], checker_name: str) -> list[dict]:
    checker = make_checker(checker_name)
    if checker.semantic is not None:  # `model` and `full` share a scorer and its pair cache: time each cold
        checker.semantic._cache.clear()
    dev, test, seconds, chars = {}, {}, {}, {}
    for folder in sets:
        dev[folder.name], _ = predict(dev_rows(folder, checker_name), checker)
        test_rows = read_rows(folder / "test.jsonl")
        with Timer() as t:
            test[folder.name], _ = predict(test_rows, checker)
        seconds[folder.name] = t
        chars[folder.name] = round(sum(len(r.evidence) for r in test_rows) / len(test_rows))
        print(f"  done {folder.name} / {checker_name}", file=sys.stderr)
    shared = global_threshold(list(dev.values()))
    rows = []
    for folder in sets:
        name, preds, t = folder.name, test[folder.name], seconds[folder.name]
        per_set, dev_bacc = checker_threshold(dev[name])
        metrics = binary_metrics([p.gold for p in preds], labels_at(preds, per_set))
        rows.append({
            "set": name, "checker": checker_name, "n": len(preds), "n_dev": len(dev[name]),
            "threshold": round(per_set, 4), "dev_balanced_accuracy": round(dev_bacc, 4),
            **{k: round(v, 4) for k, v in metrics.items()},
            "global_threshold": round(shared, 4), "balanced_accuracy_at_global": round(bacc(preds, shared), 4),
            "default_threshold": round(checker.threshold, 4),
            "balanced_accuracy_at_default": round(bacc(preds, checker.threshold), 4),
            "claims_per_second": round(t.rate(len(preds)), 1),
            "claims_per_cpu_second": round(t.cpu_rate(len(preds)), 1),
            "evidence_chars_mean": chars[name],
        })  # fmt: skip
    return rows


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
    rows = [row for name in checkers for row in run_checker(sets, name)]
    print(f"# machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          "thresholds picked on dev, balanced accuracy on test")
    for key, title in (("balanced_accuracy", "per-set dev threshold"), ("balanced_accuracy_at_global", "one global dev threshold"),
                       ("balanced_accuracy_at_default", "the checker's default threshold")):
        print(f"\n## test balanced accuracy at {title}")
        print("| set | n (test) | " + " | ".join(checkers) + " |")
        print("|" + "---|" * (2 + len(checkers)))
        for folder in [*sets, None]:
            picked = [r for r in rows if folder is None or r["set"] == folder.name]
            cells = [folder.name if folder else "**mean**", str(picked[0]["n"]) if folder else ""]
            for c in checkers:
                vals = [r[key] for r in picked if r["checker"] == c]
                cells.append(f"{sum(vals) / len(vals):.3f}")
            print("| " + " | ".join(cells) + " |")
        if key != "balanced_accuracy":
            thr_key = "global_threshold" if key.endswith("global") else "default_threshold"
            print("| threshold | | " + " | ".join(f"{next(r[thr_key] for r in rows if r['checker'] == c):.3f}" for c in checkers) + " |")
    print("\n## claims per second on test (wall / CPU)")
    print("| set | " + " | ".join(checkers) + " |")
    print("|" + "---|" * (1 + len(checkers)))
    for folder in sets:
        by = {r["checker"]: r for r in rows if r["set"] == folder.name}
        print("| " + " | ".join([folder.name] + [f"{by[c]['claims_per_second']:,.0f} / {by[c]['claims_per_cpu_second']:,.0f}" for c in checkers]) + " |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
