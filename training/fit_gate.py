"""Fit the calibrated gate of the `full` checker and write citebound/models/entailment/gate.json.

    .venv/bin/python training/fit_gate.py [--data ../shared/data/claims]     # minutes, one thread

The gate is a logistic model over the entailment model's P(supported) and the verifier's deterministic
signals (`citebound.verify.cascade.gate_features`: lexical score, support, coverage of the claim by the
model's best window, negation, numbers, claim length, several sentences), applied to claims that the
deterministic stages did not settle (a wrong number blocks first, a word-for-word copy is supported).
The features are recorded from the runtime `full` checker itself, so the fit sees what the runtime
computes. Run training/calibrate.py first: the window settings come from calibration.json.

Two ways to fit, both measured on held-out rows, the better one shipped:

- `fit halves`: weights fitted on the dev FIT halves (`is_calibration_row` False), threshold chosen on the
  CALIBRATION halves. Caveat: the entailment model was trained on the fit halves, so its probabilities
  there are optimistic, and a gate fitted there trusts the model more than it should.
- `cross-fit`: weights fitted on the CALIBRATION halves in 2 folds split by another hash
  (sha1("gate-fold:<set>:<id>")); each fold is predicted by the model fitted on the other, the threshold
  is chosen on these out-of-fold scores, and the shipped weights are the mean of the two folds' weights.

Rows are weighted so each (set, class) counts equally (the criterion is the mean balanced accuracy
over the five sets); features are standardised; L2 penalty on the weights (not the bias); IRLS.
One global threshold maximising the mean BA over the five sets. No test split is read.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
import time
from pathlib import Path

import numpy as np

from calibrate import DATA, QUOTE_SCORE, SETS, Scored, deterministic_table, full_table, global_threshold, load_half, model_table, score_set  # noqa: E402
from citebound.models import ENTAILMENT_DIR
from citebound.models.cross_encoder import load_calibration
from citebound.models.gate import GATE_NAME, Gate, file_sha256, load_gate
from citebound.verify.checks.entailment import DEFAULT_MODEL, load_scorer

FEATURES = ["logit_p", "lexical", "support", "coverage", "negation", "numbers", "claim_terms", "claim_sentences"]
FEATURE_SETS = {
    "all": FEATURES,
    "p + lexical": ["logit_p", "lexical"],
    "p + lexical + coverage + negation": ["logit_p", "lexical", "coverage", "negation"],
}
L2 = 1.0


def fold_of(set_name: str, row_id: str) -> int:
    return hashlib.sha1(f"gate-fold:{set_name}:{row_id}".encode()).digest()[0] % 2


def fit_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float = L2, iters: int = 100) -> np.ndarray:
    """Weighted, L2-penalised logistic regression by IRLS (Newton): returns [bias, weights...]."""
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = w * len(w) / w.sum()
    penalty = np.eye(xb.shape[1]) * l2
    penalty[0, 0] = 0.0
    beta = np.zeros(xb.shape[1])
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ beta, -35, 35)))
        grad = xb.T @ (w * (y - p)) - penalty @ beta
        hess = xb.T @ (xb * (w * p * (1 - p))[:, None]) + penalty + 1e-9 * np.eye(len(beta))
        step = np.linalg.solve(hess, grad)
        beta += step
        if np.abs(step).max() < 1e-8:
            break
    return beta


def matrix(scored: dict[str, Scored], names: list[str]):
    """(x, y, set index, row index) over the semantic rows of every set."""
    xs, ys, sets, idx = [], [], [], []
    for i, n in enumerate(SETS):
        s = scored[n]
        for j, f in enumerate(s.features):
            if f is not None:
                xs.append([f[k] for k in names])
                ys.append(s.gold[j])
                sets.append(i)
                idx.append(j)
    return np.array(xs, dtype=float), np.array(ys, dtype=float), np.array(sets), np.array(idx)


def balance_weights(y: np.ndarray, sets: np.ndarray) -> np.ndarray:
    w = np.zeros(len(y))
    for i in np.unique(sets):
        for c in (0.0, 1.0):
            m = (sets == i) & (y == c)
            if m.any():
                w[m] = 1.0 / m.sum()
    return w


def per_set_scores(scored: dict[str, Scored], prob: np.ndarray, sets: np.ndarray, idx: np.ndarray):
    """Gate probabilities back into per-set score arrays (quote rows: always supported; numbers: blocked)."""
    out = {}
    for i, n in enumerate(SETS):
        s = scored[n]
        scores = np.where(s.quote, QUOTE_SCORE, 0.0).astype(float)
        m = sets == i
        scores[idx[m]] = prob[m]
        out[n] = (scores, s.gold, s.blocked)
    return out


def predict(beta: np.ndarray, x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(beta[0] + x @ beta[1:], -35, 35)))


def fit_gate(cal: dict[str, Scored], fit: dict[str, Scored] | None, model_path: Path, out: Path,
             report_path: Path | None = None) -> dict:  # fmt: skip
    """Fit every variant on rows already scored (`calibrate.score_set`), write the best gate to `out`
    when it beats the calibrated blend on held-out rows; returns the comparison. `fit` None: only the
    cross-fitted variants (the fit halves are not scored)."""
    report: dict = {
        "rows": {"calibration": {n: len(s.gold) for n, s in cal.items()},
                 "fit": {n: len(s.gold) for n, s in (fit or {}).items()}},  # fmt: skip
        "model": model_table(cal),
        "full (blend)": full_table(cal),
        "deterministic": deterministic_table(cal),
        "gates": {},
    }
    if fit is not None:
        report["model on the fit halves (trained on: optimistic)"] = model_table(fit)
    candidates = []
    for fs_name, names in FEATURE_SETS.items():
        xc, yc, sc, ic = matrix(cal, names)
        mean, scale = xc.mean(axis=0), xc.std(axis=0)  # unsupervised statistics of the calibration rows
        scale[scale < 1e-6] = 1.0
        zc = (xc - mean) / scale
        variants = []
        if fit is not None:
            # (a) fitted on the fit halves, thresholded on the calibration halves
            xf, yf, sf, _ = matrix(fit, names)
            beta_a = fit_logistic((xf - mean) / scale, yf, balance_weights(yf, sf))
            t_a, ba_a, per_a = global_threshold(per_set_scores(cal, predict(beta_a, zc), sc, ic))
            variants.append(("fit halves", beta_a, t_a, ba_a, per_a))
        # (b) cross-fitted on the calibration halves: out-of-fold scores
        folds = np.array([fold_of(SETS[s], cal[SETS[s]].ids[j]) for s, j in zip(sc, ic)])
        oof = np.zeros(len(yc))
        betas = []
        for f in (0, 1):
            train = folds != f
            beta = fit_logistic(zc[train], yc[train], balance_weights(yc[train], sc[train]))
            oof[~train] = predict(beta, zc[~train])
            betas.append(beta)
        t_b, ba_b, per_b = global_threshold(per_set_scores(cal, oof, sc, ic))
        variants.append(("cross-fit", np.mean(betas, axis=0), t_b, ba_b, per_b))
        for variant, beta, t, ba, per in variants:
            name = f"{variant}, {fs_name}"
            report["gates"][name] = {"threshold": round(t, 4), "mean_balanced_accuracy": round(ba, 4), "per_set": per,
                                     "weights": dict(zip(["bias", *names], [round(float(b), 4) for b in beta]))}  # fmt: skip
            candidates.append((round(ba, 6), name, names, beta, t, mean, scale))
            print(f"gate {name}: held-out mean BA {ba:.4f} {per}", file=sys.stderr)

    ba, name, names, beta, t, mean, scale = max(candidates, key=lambda c: c[0])
    blend = report["full (blend)"]["mean_balanced_accuracy"]
    report["chosen"] = name if ba > blend else None
    if report_path:
        report_path.write_text(json.dumps(report, indent=2) + "\n")
    if ba <= blend:
        print(f"the best gate ({name}, {ba:.4f}) does not beat the blend ({blend:.4f}): gate.json not written",
              file=sys.stderr)  # fmt: skip
        stale = load_gate(out.parent) if out.name == GATE_NAME else None
        if stale is not None and not stale.fits(model_path):
            out.unlink()
            print(f"removed {out}: it was fitted for another model", file=sys.stderr)
        return report
    gate = Gate(
        features=tuple(names), weights=tuple(round(float(b), 6) for b in beta[1:]), bias=round(float(beta[0]), 6),
        mean=tuple(round(float(m), 6) for m in mean), scale=tuple(round(float(s), 6) for s in scale),
        threshold=round(float(t), 6), model_sha256=file_sha256(model_path),
        meta={"fitted": name, "split": "claims/*/dev.jsonl (citebound.evaluate.splits); no test split read",
              "held_out_mean_balanced_accuracy": round(ba, 4), "held_out_per_set": report["gates"][name]["per_set"],
              "blend_mean_balanced_accuracy": blend, "l2": L2, "script": "training/fit_gate.py"},
    )  # fmt: skip
    out.write_text(json.dumps(gate.to_dict(), indent=2) + "\n")
    print(f"gate ({name}) -> {out}", file=sys.stderr)
    return report


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--model", help="an .onnx file (a candidate) instead of the shipped model")
    ap.add_argument("--out", type=Path, default=ENTAILMENT_DIR / GATE_NAME)
    ap.add_argument("--report", type=Path, help="also write the full comparison here (JSON)")
    ap.add_argument("--cross-fit-only", action="store_true", help="skip the fit halves (half the time)")
    ap.add_argument("--scored", type=Path, help="a pickle of the scored rows: read when it exists, else written")
    args = ap.parse_args()
    t0 = time.time()
    model_path = Path(args.model) if args.model else DEFAULT_MODEL
    if args.scored and args.scored.is_file():  # experiments on the same scores (same model and code)
        cal, fit = pickle.loads(args.scored.read_bytes())
    else:
        settings = load_calibration(ENTAILMENT_DIR)  # window settings chosen by training/calibrate.py
        scorer = load_scorer(args.model, max_windows=settings.get("max_windows"), max_length=settings.get("max_length", 128),
                             split_claims=settings.get("split_claims", True)).warm_up()  # fmt: skip
        cal = {n: score_set(rows, scorer) for n, rows in load_half(args.data, "calibration").items()}
        print(f"calibration halves scored ({time.time() - t0:.0f}s)", file=sys.stderr)
        fit = None
        if not args.cross_fit_only:
            fit = {n: score_set(rows, scorer) for n, rows in load_half(args.data, "fit").items()}
            print(f"fit halves scored ({time.time() - t0:.0f}s)", file=sys.stderr)
        if args.scored:
            args.scored.write_bytes(pickle.dumps((cal, fit)))
    report = fit_gate(cal, fit, model_path, args.out, args.report)
    print(json.dumps(report, indent=2))
    print(f"done in {time.time() - t0:.0f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
