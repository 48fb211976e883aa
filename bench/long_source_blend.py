"""Does a long source want its own lexical weight in `full`? Held-out evidence for calibration.json's
`full.long_source` (docs/benchmarks.md, "Long sources weigh words more").

    OMP_NUM_THREADS=1 .venv/bin/python bench/long_source_blend.py [--half calibration|fit] [--model X.onnx]

Scores one half of every claims/*/dev.jsonl once with the runtime `full` checker's pieces
(training/calibrate.py's `score_set`: P of the best window, the lexical score, the stages that settle a
claim first), then compares three ways to blend P with the lexical score, each fitted and measured by a
2-fold cross-fit (folds by sha1("lenblend-fold:<set>:<id>"); the weights, the length cut and the one global
threshold chosen on one fold, the mean balanced accuracy measured on the other):

- `one weight`: one lexical weight for every source (what calibrate.py chose before 2026-12-02);
- `long weight`: that weight for other sources, and a weight of their own for sources longer than a cut
  (what calibrate.py chooses now);
- `both free`: both weights and the cut free.

A paired bootstrap (rows resampled within each set) of the out-of-fold mean BA gives each variant's gain
over `one weight` with a 95 % interval. The fit halves are the rows the model was trained on: its P is
over-confident there, so they are a second, independent look, not the one that decides.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "training"))
from calibrate import DATA, LONG_SOURCE_CHARS, WEIGHTS, global_threshold, load_half, score_set  # noqa: E402

from citebound.metrics.balanced_accuracy import balanced_accuracy  # noqa: E402
from citebound.verify.checks.entailment import load_scorer  # noqa: E402


def fold_of(name: str, row_id: str) -> int:
    return int(hashlib.sha1(f"lenblend-fold:{name}:{row_id}".encode()).hexdigest(), 16) % 2


def fit(scored: dict, idx: dict, variant: str) -> tuple[float, tuple, float]:
    """(mean BA, (short weight, long weight, cut), threshold) chosen on the rows `idx` of each set."""
    if variant == "one weight":
        grid = [(w, w, 0) for w in WEIGHTS]
    elif variant == "long weight":
        w_short = fit(scored, idx, "one weight")[1][0]
        grid = [(w_short, w_long, cut) for cut in LONG_SOURCE_CHARS for w_long in WEIGHTS]
    else:
        grid = [(a, b, cut) for cut in LONG_SOURCE_CHARS for a in WEIGHTS for b in WEIGHTS]
    best = None
    for params in grid:
        per = {n: (s.full_scores(params[0], (params[2], params[1]))[idx[n]], s.gold[idx[n]], s.blocked[idx[n]])
               for n, s in scored.items()}  # fmt: skip
        t, ba, _ = global_threshold(per)
        if best is None or ba > best[0] + 1e-9:
            best = (ba, params, t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--half", choices=["calibration", "fit"], default="calibration")
    ap.add_argument("--model", default=None, help="an .onnx candidate (default: the shipped model)")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--bootstrap", type=int, default=2000)
    args = ap.parse_args()

    scorer = load_scorer(args.model, split_claims=True, max_length=128, max_windows=1)
    scored = {n: score_set(rows, scorer) for n, rows in load_half(args.data, args.half).items()}
    for n, s in scored.items():
        print(f"{n}: {len(s.gold)} rows, source median {int(np.median(s.chars))} characters, "
              f"> 2,000: {(s.chars > 2000).mean():.2f}", file=sys.stderr)  # fmt: skip
    every = {n: np.arange(len(s.gold)) for n, s in scored.items()}
    folds = [{n: np.array([i for i, rid in enumerate(s.ids) if fold_of(n, rid) == f], dtype=int)
              for n, s in scored.items()} for f in (0, 1)]  # fmt: skip
    variants = ["one weight", "long weight", "both free"]
    predicted = {}
    for variant in variants:
        ba, params, t = fit(scored, every, variant)
        out = {n: np.zeros(len(s.gold), dtype=bool) for n, s in scored.items()}
        chosen = []
        for f in (0, 1):
            _, p, tt = fit(scored, folds[f], variant)
            chosen.append(f"{p} t={tt:.3f}")
            for n, s in scored.items():
                rows = folds[1 - f][n]
                out[n][rows] = ~s.blocked[rows] & (s.full_scores(p[0], (p[2], p[1]))[rows] >= tt)
        predicted[variant] = out
        per = {n: round(balanced_accuracy(s.gold, out[n]), 4) for n, s in scored.items()}
        print(f"{variant:12s} in-sample {ba:.4f} (short, long, cut) {params} | cross-fit "
              f"{np.mean(list(per.values())):.4f} {per} | per fold {chosen}")  # fmt: skip
    rng = np.random.default_rng(0)

    def mean_ba(pred: dict, idx: dict) -> float:
        return float(np.mean([balanced_accuracy(s.gold[idx[n]], pred[n][idx[n]]) for n, s in scored.items()]))

    for variant in variants[1:]:
        diffs = []
        for _ in range(args.bootstrap):
            idx = {n: rng.integers(0, len(s.gold), len(s.gold)) for n, s in scored.items()}
            diffs.append(mean_ba(predicted[variant], idx) - mean_ba(predicted["one weight"], idx))
        lo, hi = np.percentile(diffs, [2.5, 97.5])
        print(f"{variant} vs one weight, cross-fit: {np.mean(diffs):+.4f} (95 % interval [{lo:+.4f}, {hi:+.4f}])")


if __name__ == "__main__":
    main()
