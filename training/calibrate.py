"""Choose the shipped entailment model's settings on the held-out *calibration* halves of the claims/ dev
splits (the rows train_entailment.py did not train on) and write citebound/models/entailment/calibration.json.

    .venv/bin/python training/calibrate.py [--data ../shared/data/claims]      # top 4, 2, 1 windows
    .venv/bin/python training/calibrate.py --options all,8,4,2,1 --lengths 128,256   # every option (slow)
    .venv/bin/python training/calibrate.py --options 1 --gate both   # a new model: thresholds + gate

- Windows (docs/entailment.md, "Long sources"): each source is split into sentence-aligned chunks that fit
  the model beside the claim (`max_length` tokens per pair, one sentence of overlap). Options measured:
  the single window sharing most words with the claim (k = 1), the top k by word overlap (k = 2, 4, 8),
  and every chunk (max over chunks); at 128 tokens (the length the model was trained at) and, with
  `--lengths`, other chunk lengths (shorter chunks are faster). Chosen by the `full` checker's mean BA
  (what users run; the `model` checker's is reported too); among options within 0.005 of the best, the
  one scoring fewest tokens per claim (speed).
- Claims of several sentences: one pair for the whole claim, or each sentence checked and the weakest
  deciding.
- `model`: one threshold on P(supported), maximising the mean balanced accuracy over the five sets.
- `full`: ids -> numbers -> quote -> score = (1 - w) * P(supported) + w * lexical score; w from a small
  grid and the threshold, by the same criterion. (The gate that replaces this blend is fitted by
  training/fit_gate.py, which imports the helpers below.)
- `deterministic` (no model), for comparison: its own global threshold on the same rows.

One global threshold (not one per set): a user's documents are none of these five sets. Every verdict
here comes from the runtime checkers themselves (stages included: a number the source lacks blocks,
a word-for-word copy is supported), so the figures are what `citebound verify-batch` would give.
The fit/calibration rule is `citebound.evaluate.splits.calibration_ids` (never a copy of it), under the
rule the model was trained with (`--split`; written to calibration.json as `split_rule`): `group` keeps each
document on one side, `row` is the rule of the models trained before 2026-12-02.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from citebound.evaluate.splits import CLAIM_SPLIT_RULES, calibration_ids, model_split_rule
from citebound.metrics.balanced_accuracy import balanced_accuracy
from citebound.metrics.threshold import pick_threshold
from citebound.models.cross_encoder import sigmoid
from citebound.verify.batch import ClaimRow, read_rows
from citebound.verify.checkers import make_checker
from citebound.models import ENTAILMENT_DIR
from citebound.verify.checks.entailment import CALIBRATION_FILE, DEFAULT_MODEL, load_scorer
from citebound.verify.model_checkers import ModelCascade

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "claims"
SETS = ["scifact", "wice", "climate_fever", "summedits", "qags"]
WEIGHTS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
# source lengths (characters) past which `full` may blend with a weight of its own, and the gain on the mean
# balanced accuracy that weight must bring to be kept (two more parameters; docs/benchmarks.md, "Long sources
# weigh words more")
LONG_SOURCE_CHARS = [2000, 3000, 4000, 6000]
LONG_SOURCE_MARGIN = 0.005
# windows per source compared by default (scored in this order, so the smaller k are cache hits); "all"
# (every chunk) and 8 are measured with `--options all,8,4,2,1` (an hour on a shared 2-core machine)
WINDOW_OPTIONS = [4, 2, 1]
QUOTE_SCORE = 2.0  # a word-for-word copy is supported at any threshold
SPLIT = "claims/*/dev.jsonl, calibration half (citebound.evaluate.splits.calibration_ids, rule {rule}), never trained on"


def split_rule_of(calibration_file: Path = CALIBRATION_FILE) -> str:
    """The fit/calibration rule a model's calibration.json names (`model_split_rule`)."""
    try:
        return model_split_rule(json.loads(Path(calibration_file).read_text()))
    except FileNotFoundError:
        return "group"


def load_half(data: Path, half: str, rule: str | None = None) -> dict[str, list[ClaimRow]]:
    """The `calibration` or `fit` half of every set's dev split under `rule` (default: the shipped model's)."""
    rule = rule or split_rule_of()
    out = {}
    for name in SETS:
        rows = read_rows(data / name / "dev.jsonl")
        held_out = calibration_ids(name, [(r.id, r.claim, r.evidence) for r in rows], rule)
        out[name] = [r for r in rows if (r.id in held_out) == (half == "calibration")]
    return out


def gold_of(rows: Sequence[ClaimRow]) -> np.ndarray:
    return np.array([r.label == "supported" for r in rows], dtype=bool)


def global_threshold(per_set: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]) -> tuple[float, float, dict]:
    """One threshold for all sets maximising the mean BA: per_set name -> (scores, gold, blocked).
    Returns (threshold, mean BA, per-set BA at it)."""
    names = list(per_set)
    scores = np.concatenate([per_set[n][0] for n in names])
    gold = np.concatenate([per_set[n][1] for n in names])
    blocked = np.concatenate([per_set[n][2] for n in names])
    groups = np.concatenate([[i] * len(per_set[n][0]) for i, n in enumerate(names)])
    choice = pick_threshold(scores, gold, blocked=blocked, groups=groups, max_candidates=4000)
    t = choice.threshold
    per = {n: round(balanced_accuracy(g, ~b & (s >= t)), 4) for n, (s, g, b) in per_set.items()}
    return t, choice.balanced_accuracy, per


class Recorder:
    """Stands in for the gate inside the `full` checker and keeps the features it was given, so the
    gate is fitted on exactly what the runtime computes (citebound.verify.cascade.gate_features)."""

    threshold = 0.5

    def __init__(self) -> None:
        self.last: dict[str, float] | None = None

    def probability(self, values) -> float:
        self.last = dict(values)
        return sigmoid(values["logit_p"])


@dataclass
class Scored:
    """Per row of one set: the model's P (model checker: no numbers stage, no quote), the `full`
    checker's stage ("numbers"/"negation": blocked; "quote"; "semantic"), the gate features of semantic rows, the
    lexical score, and the deterministic checker's score and block."""

    gold: np.ndarray
    p: np.ndarray
    stage: list[str]
    features: list[dict[str, float] | None]
    lexical: np.ndarray
    det_score: np.ndarray
    det_blocked: np.ndarray
    pairs_per_claim: float = 0.0
    seconds: float = 0.0
    ids: list[str] = field(default_factory=list)
    chars: np.ndarray = field(default_factory=lambda: np.zeros(0))  # each source's length, for `long_source`

    @property
    def blocked(self) -> np.ndarray:
        """Rows a deterministic stage settled as unsupported (ids, numbers, negation, ...)."""
        return np.array([s not in ("semantic", "quote") for s in self.stage])

    @property
    def quote(self) -> np.ndarray:
        return np.array([s == "quote" for s in self.stage])

    def full_scores(self, w: float, long: tuple[int, float] | None = None) -> np.ndarray:
        """`full`'s score: P blended with the lexical score by `w`, or for a source longer than
        long[0] characters by long[1] (ModelCascade.blend_weight)."""
        weight = np.full(len(self.p), w) if long is None else np.where(self.chars > long[0], long[1], w)
        return np.where(self.quote, QUOTE_SCORE, (1 - weight) * self.p + weight * self.lexical)


def score_set(rows: Sequence[ClaimRow], scorer, *, features: bool = True) -> Scored:
    """Run the model, `full` (with a recording gate) and `deterministic` checkers over `rows`."""
    t0 = time.perf_counter()
    n_pairs = 0
    p = []
    for r in rows:
        n_pairs += sum(len(scorer.windows(part, r.evidence)) for part in scorer._claim_parts(r.claim)) if r.claim.strip() else 0
        p.append(scorer.best_window(r.claim, r.evidence)[0])
    seconds = time.perf_counter() - t0
    stage: list[str] = []
    feats: list[dict[str, float] | None] = []
    lexical = []
    det = make_checker("deterministic")
    det_v = [det.check_pair(r.claim, r.evidence) for r in rows]
    if features:
        recorder = Recorder()
        full = ModelCascade(semantic=scorer, gate=recorder, threshold=0.5, partial_floor=0.0, name="full")  # type: ignore[arg-type]
        for r in rows:
            recorder.last = None
            v = full.check_pair(r.claim, r.evidence)
            stage.append(v.stage)
            feats.append(recorder.last if v.stage == "semantic" else None)
            lexical.append(recorder.last["lexical"] if recorder.last else 0.0)
    else:
        stage = ["semantic"] * len(rows)
        feats = [None] * len(rows)
        lexical = [0.0] * len(rows)
    return Scored(
        gold=gold_of(rows), p=np.array(p), stage=stage, features=feats, lexical=np.array(lexical),
        det_score=np.array([v.score for v in det_v]),
        det_blocked=np.array([v.stage not in ("lexical", "semantic", "quote") for v in det_v]),
        pairs_per_claim=n_pairs / max(1, len(rows)), seconds=seconds, ids=[r.id for r in rows],
        chars=np.array([len(r.evidence) for r in rows]),
    )  # fmt: skip


def model_table(scored: dict[str, Scored]) -> dict:
    no_block = {n: np.zeros(len(s.p), dtype=bool) for n, s in scored.items()}
    t, ba, per = global_threshold({n: (s.p, s.gold, no_block[n]) for n, s in scored.items()})
    return {"threshold": round(t, 4), "mean_balanced_accuracy": round(ba, 4), "per_set": per}


def full_table(scored: dict[str, Scored], long_sources: bool = True) -> dict:
    """`full`'s lexical weight and threshold; with `long_sources`, also a weight of its own for sources
    longer than one of LONG_SOURCE_CHARS (the model reads one window of them, the lexical score all of
    it; other sources keep the weight chosen for all), kept only when it beats one weight for every
    source by LONG_SOURCE_MARGIN."""
    grid = []
    for w in WEIGHTS:
        t, ba, per = global_threshold({n: (s.full_scores(w), s.gold, s.blocked) for n, s in scored.items()})
        grid.append((ba, w, t, per))
    ba, w, t, per = max(grid, key=lambda g: (round(g[0], 6), -g[1]))
    table = {"threshold": round(t, 4), "lexical_weight": w, "mean_balanced_accuracy": round(ba, 4), "per_set": per,
             "grid": [[gw, round(gt, 4), round(gb, 4)] for gb, gw, gt, _ in grid]}  # fmt: skip
    if not long_sources:
        return table
    best, w_short = None, w  # the weight of other sources stays the one chosen for all sources
    for cut in LONG_SOURCE_CHARS:
        for w_long in WEIGHTS:
            lt, lba, lper = global_threshold({n: (s.full_scores(w_short, (cut, w_long)), s.gold, s.blocked)
                                              for n, s in scored.items()})  # fmt: skip
            if best is None or round(lba, 6) > round(best[0], 6):
                best = (lba, cut, w_short, w_long, lt, lper)
    table["single_weight_mean_balanced_accuracy"] = table["mean_balanced_accuracy"]
    if best is not None and best[0] >= ba + LONG_SOURCE_MARGIN:
        lba, cut, w_short, w_long, lt, lper = best
        table.update({"threshold": round(lt, 4), "lexical_weight": w_short, "mean_balanced_accuracy": round(lba, 4),
                      "per_set": lper, "long_source": {"min_chars": cut, "lexical_weight": w_long}})  # fmt: skip
    return table


def deterministic_table(scored: dict[str, Scored]) -> dict:
    t, ba, per = global_threshold({n: (s.det_score, s.gold, s.det_blocked) for n, s in scored.items()})
    return {"threshold": round(t, 4), "mean_balanced_accuracy": round(ba, 4), "per_set": per}


def option_name(length: int, k: int | None) -> str:
    return f"{length} tokens, {'every chunk' if k is None else f'top {k}'}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=CALIBRATION_FILE)
    ap.add_argument("--model", help="an .onnx file to calibrate instead of the shipped model (a candidate)")
    ap.add_argument("--lengths", default="128", help="chunk lengths (max tokens per pair) to compare, e.g. 128,256")
    ap.add_argument("--options", default=",".join("all" if k is None else str(k) for k in WINDOW_OPTIONS),
                    help="windows per source to compare, e.g. all,8,4,2,1 (all = every chunk)")  # fmt: skip
    ap.add_argument("--gate", choices=["none", "cross-fit", "both"], default="none",
                    help="then fit the gate (training/fit_gate.py) on the rows scored here: cross-fit on the "
                         "calibration halves only, or also the variant fitted on the fit halves (scores them)")
    ap.add_argument("--gate-out", type=Path, default=None, help="gate.json path (default: beside the model)")
    ap.add_argument("--gate-report", type=Path, default=None)
    ap.add_argument("--split", choices=CLAIM_SPLIT_RULES, default=None,
                    help="the fit/calibration rule the model was trained with (train_entailment.py --split); "
                         "default: the shipped model's for the shipped model, 'group' for a --model")
    args = ap.parse_args()
    args.split = args.split or ("group" if args.model else split_rule_of())
    t0 = time.time()
    data = load_half(args.data, "calibration", args.split)
    lengths = [int(x) for x in args.lengths.split(",")]
    options = [None if x == "all" else int(x) for x in args.options.split(",")]

    # 1. windows: every option scored with the model alone (cache hits for the smaller k of a length)
    window_table: dict[str, dict] = {}
    scorers = {}
    for length in lengths:
        scorer = scorers[length] = load_scorer(args.model, split_claims=True, max_length=length, max_windows=None)
        for k in options:
            scorer.max_windows = k
            scored = {n: score_set(rows, scorer) for n, rows in data.items()}
            m, f = model_table(scored), full_table(scored, long_sources=False)
            ppc = {n: round(s.pairs_per_claim, 2) for n, s in scored.items()}
            window_table[option_name(length, k)] = {
                "mean_balanced_accuracy": m["mean_balanced_accuracy"], "per_set": m["per_set"],
                "full_mean_balanced_accuracy": f["mean_balanced_accuracy"], "full_per_set": f["per_set"],
                "pairs_per_claim": ppc, "cost": sum(ppc.values()) * length,
            }  # fmt: skip
            print(f"{option_name(length, k)}: model mean BA {m['mean_balanced_accuracy']} {m['per_set']}; full "
                  f"{f['mean_balanced_accuracy']} {f['per_set']}; pairs/claim {ppc} ({time.time() - t0:.0f}s)",
                  file=sys.stderr)  # fmt: skip
    # chosen by the `full` checker (what users run); among options within 0.005 of the best, the cheapest
    top = max(v["full_mean_balanced_accuracy"] for v in window_table.values())
    fit = [(v["cost"], name) for name, v in window_table.items() if v["full_mean_balanced_accuracy"] >= top - 0.005]
    chosen = min(fit)[1]
    length = int(chosen.split()[0])
    k = None if "every" in chosen else int(chosen.rsplit(" ", 1)[1])
    print(f"chosen: {chosen}", file=sys.stderr)

    # 2. the whole claim as one pair vs sentence by sentence
    scorer = scorers[length]
    scorer.max_windows = k
    split_table = {"split": window_table[chosen]["mean_balanced_accuracy"]}
    scorer.split_claims = False
    whole = {n: score_set(rows, scorer, features=False) for n, rows in data.items()}
    split_table["whole"] = model_table(whole)["mean_balanced_accuracy"]
    scorer.split_claims = split_table["split"] >= split_table["whole"]
    print(f"mean BA whole claim vs split into sentences: {split_table}", file=sys.stderr)

    # 3. thresholds, with every stage of the runtime checkers
    scored = {n: score_set(rows, scorer) for n, rows in data.items()}
    calibration = {
        "split": SPLIT.format(rule=args.split),
        "split_rule": args.split,
        "rows": {n: len(rows) for n, rows in data.items()},
        "criterion": "mean balanced accuracy over the five sets, one global threshold",
        "model": model_table(scored),
        "full": full_table(scored),
        "deterministic (for comparison)": deterministic_table(scored),
        "max_windows": k,
        "split_claims": bool(scorer.split_claims),
        "max_length": length,
        "mean_balanced_accuracy_by_claim_split": split_table,
        "windows": {"chosen": chosen, "options": window_table},
    }
    args.out.write_text(json.dumps(calibration, indent=2) + "\n")
    print(json.dumps({k: v for k, v in calibration.items() if k != "windows"}, indent=2))
    print(f"calibrated in {time.time() - t0:.0f}s -> {args.out}")
    if args.gate != "none":
        from fit_gate import fit_gate

        fit = {n: score_set(rows, scorer) for n, rows in load_half(args.data, "fit", args.split).items()} if args.gate == "both" else None
        model_path = Path(args.model) if args.model else DEFAULT_MODEL
        report = fit_gate(scored, fit, model_path, args.gate_out or ENTAILMENT_DIR / "gate.json", args.gate_report)
        print(json.dumps(report["gates"], indent=2))
        print(f"gate fitted in {time.time() - t0:.0f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
