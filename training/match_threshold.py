"""The `full` checker's default threshold: no more unsupported claims called supported than the rule-only
checker lets through, with as many faithful claims kept as that allows.

`training/calibrate.py` picks `full`'s threshold for the best mean balanced accuracy (0.39 for the
shipped model), which weighs a wrongly supported claim and a wrongly rejected one alike. A verifier's
promise is the first: a claim shown as supported is supported. So the threshold `full` uses when none
is given is chosen here, on the same held-out dev calibration halves, as the lowest threshold at which
`full`'s mean false-support rate (unsupported claims it calls supported, averaged over the five sets)
is no higher than `deterministic`'s at its own default threshold. At that threshold `full` makes no
more of the costly mistake than the rule-only checker and keeps more faithful claims (the recall both
checkers reach is printed and stored). The balanced-accuracy threshold stays in calibration.json as
`threshold` (`--threshold` gives it back).

    OMP_NUM_THREADS=1 .venv/bin/python training/match_threshold.py [--data ../shared/data/claims] [--dry-run]

Writes `full.default_threshold` (with the figures behind it) into
citebound/models/entailment/calibration.json; every verdict comes from the runtime checkers.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from calibrate import DATA, SETS, load_half, split_rule_of  # noqa: E402

from citebound.verify.batch import predict  # noqa: E402
from citebound.verify.checkers import make_checker  # noqa: E402
from citebound.verify.checks.entailment import CALIBRATION_FILE  # noqa: E402


def rates(supported: dict[str, np.ndarray], gold: dict[str, np.ndarray]) -> tuple[float, float]:
    """(mean false-support rate, mean recall of faithful claims) over the sets."""
    fs = [supported[s][~gold[s]].mean() for s in SETS]
    rec = [supported[s][gold[s]].mean() for s in SETS]
    return float(np.mean(fs)), float(np.mean(rec))


def matched_threshold(scores: dict[str, np.ndarray], blocked: dict[str, np.ndarray], gold: dict[str, np.ndarray],
                      ceiling: float) -> tuple[float, float, float]:  # fmt: skip
    """The lowest threshold (among the scores themselves) whose mean false-support rate is <= `ceiling`:
    (threshold, its false-support rate, its recall)."""
    candidates = np.unique(np.concatenate([scores[s][~blocked[s]] for s in SETS]))
    for t in candidates:  # ascending: the first that qualifies keeps the most faithful claims
        supported = {s: (~blocked[s]) & (scores[s] >= t) for s in SETS}
        fs, rec = rates(supported, gold)
        if fs <= ceiling:
            return float(t), fs, rec
    return float(candidates[-1]) + 1e-9, 0.0, 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=CALIBRATION_FILE)
    ap.add_argument("--dry-run", action="store_true", help="print, do not write calibration.json")
    args = ap.parse_args()
    rows = load_half(args.data, "calibration", split_rule_of(args.out))  # the rule the model was trained with
    gold = {s: np.array([r.label == "supported" for r in rows[s]]) for s in SETS}
    det, full = make_checker("deterministic"), make_checker("full", threshold=0.0)
    det_supported, full_scores, full_blocked = {}, {}, {}
    for s in SETS:
        preds, _ = predict(rows[s], det, progress=True)
        det_supported[s] = np.array([p.label == "supported" for p in preds])
        preds, _ = predict(rows[s], full, progress=True)
        full_scores[s] = np.array([p.score for p in preds])
        full_blocked[s] = np.array([p.blocked for p in preds])
    det_fs, det_rec = rates(det_supported, gold)
    t, fs, rec = matched_threshold(full_scores, full_blocked, gold, det_fs)
    entry = {"default_threshold": round(t, 4),
             "default_threshold_rule": "the lowest threshold whose mean false-support rate on the dev calibration "
                                       "halves is <= deterministic's at its default (training/match_threshold.py)",
             "default_threshold_figures": {"full_false_support": round(fs, 4), "full_recall": round(rec, 4),
                                           "deterministic_false_support": round(det_fs, 4),
                                           "deterministic_recall": round(det_rec, 4),
                                           "deterministic_threshold": det.threshold}}  # fmt: skip
    print(json.dumps(entry, indent=1))
    if not args.dry_run:
        data = json.loads(args.out.read_text(encoding="utf-8"))
        data["full"].update(entry)
        args.out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        print(f"written to {args.out}")


if __name__ == "__main__":
    main()
