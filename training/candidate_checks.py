"""A candidate entailment model through the `full` checker as it would ship, on the checks that are not
used to choose it: the plain cases (tests/unit/verify/plain_cases.jsonl) and, with `--unseen`, the
held-out one-line cases (bench/data/unseen_cases/; never tuned on).

    OMP_NUM_THREADS=1 .venv/bin/python training/candidate_checks.py --model runs/x/model.onnx \
        --calibration runs/x/calibration.json [--unseen bench/data/unseen_cases/cases.jsonl] [--out r.json]
    OMP_NUM_THREADS=1 .venv/bin/python training/candidate_checks.py [--unseen ...]   # the shipped model

"As it would ship": the candidate's `full` lexical weight from its calibration.json (training/calibrate.py
on the dev calibration halves) and its default threshold chosen by training/match_threshold.py's rule on
the same halves (the lowest threshold whose mean false-support rate is <= `deterministic`'s), computed
here with the candidate (`--threshold` skips that pass). Without `--model`, the shipped model with its
shipped calibration.json. Prints balanced accuracy, unsupported claims called supported and faithful
claims kept, and the wrong cases.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from calibrate import DATA, SETS, load_half  # noqa: E402
from match_threshold import matched_threshold, rates  # noqa: E402

from citebound.evaluate.splits import model_split_rule  # noqa: E402
from citebound.metrics import balanced_accuracy  # noqa: E402
from citebound.verify import verify_answer  # noqa: E402
from citebound.verify.batch import predict  # noqa: E402
from citebound.verify.checkers import make_checker  # noqa: E402
from citebound.verify.model_checkers import blend_options  # noqa: E402
from citebound.verify.checks.entailment import load_scorer  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
PLAIN = REPO / "tests" / "unit" / "verify" / "plain_cases.jsonl"
# the model's known weakness (issue 10's notes): a true statement with an invented detail, and the
# faithful restatements beside them; P(supported) of the `model` checker is printed for each
PROBES = [
    ("Refunds are paid in cash.", "Refunds are paid within five business days of the return.", "unsupported"),
    ("Returns need a receipt.", "Refunds are paid within five business days of the return.", "unsupported"),
    ("Express delivery arrives within an hour.", "Express delivery arrives the next business day and costs 12 euros.",
     "unsupported"),
    ("Sales fell because of the new competitor.",
     "Sales fell by 8 percent. A new competitor entered the market in the same quarter.", "unsupported"),
    ("Refunds are paid within five business days.", "Refunds are paid within five business days of the return.",
     "supported"),
    ("Express delivery costs 12 euros.", "Express delivery arrives the next business day and costs 12 euros.",
     "supported"),
    ("A new competitor entered the market.",
     "Sales fell by 8 percent. A new competitor entered the market in the same quarter.", "supported"),
]


def candidate_full(model: str, calibration: dict, threshold: float):
    """`full` with the candidate model, scored with the window settings its calibration chose (a
    `model=` checker would otherwise score the top 8 windows) and its lexical weight."""
    chk = make_checker("full", model=model, threshold=threshold, **blend_options(calibration["full"]))
    scorer = load_scorer(model, max_windows=calibration.get("max_windows", 1), split_claims=calibration.get("split_claims", True),
                         max_length=calibration.get("max_length", 128))  # fmt: skip
    return dataclasses.replace(chk, semantic=scorer)


def matched(model: str, calibration: dict, data: Path) -> dict:
    """match_threshold.py's rule for a candidate model (scores from the runtime checkers)."""
    rows = load_half(data, "calibration", model_split_rule(calibration))  # the candidate's rule
    gold = {s: np.array([r.label == "supported" for r in rows[s]]) for s in SETS}
    det = make_checker("deterministic")
    full = candidate_full(model, calibration, 0.0)
    det_sup, scores, blocked = {}, {}, {}
    for s in SETS:
        preds, _ = predict(rows[s], det)
        det_sup[s] = np.array([p.label == "supported" for p in preds])
        preds, _ = predict(rows[s], full)
        scores[s] = np.array([p.score for p in preds])
        blocked[s] = np.array([p.blocked for p in preds])
    det_fs, det_rec = rates(det_sup, gold)
    t, fs, rec = matched_threshold(scores, blocked, gold, det_fs)
    return {"default_threshold": round(t, 4), "full_false_support": round(fs, 4), "full_recall": round(rec, 4),
            "deterministic_false_support": round(det_fs, 4), "deterministic_recall": round(det_rec, 4)}


def held_out_detail_pairs(n: int) -> list[tuple[str, str, int, str]]:
    """`pairs.detail_pairs` cut from the SQuAD 2.0 dev *calibration*-half paragraphs (never trained on:
    the generators read the fit half only), n pairs at most, seed 0."""
    import random

    import pairs  # training/pairs.py

    docs = [(r["_id"], r["text"]) for r in pairs.read_jsonl(pairs.SQUAD_DEV / "corpus.jsonl")
            if pairs.splits.is_calibration_paragraph(r["_id"])]  # fmt: skip
    got, _ = pairs.detail_pairs(random.Random(0), per_doc=12, docs=sorted(docs))
    return got[:n]


def score_detail(held_out: list, model_chk, threshold: float, chk) -> dict:
    """Per kind: the share the `model` checker (at its calibrated threshold) and `full` get right."""
    gold = [bool(y) for _, _, y, _ in held_out]
    said = {"model_right": [model_chk.check_pair(claim, doc).score >= threshold for claim, doc, _, _ in held_out],
            "full_right": [chk.check_pair(claim, doc).label == "supported" for claim, doc, _, _ in held_out]}
    out: dict[str, dict] = {}
    for k, (_, _, y, kind) in enumerate(held_out):
        d = out.setdefault(kind, {"label": "supported" if y else "unsupported", "n": 0, "model_right": 0, "full_right": 0})
        d["n"] += 1
        for key in said:
            d[key] += said[key][k] == gold[k]
    for d in out.values():
        for key in said:
            d[key] = round(d[key] / d["n"], 3)
    return {"per_kind": dict(sorted(out.items())),
            "balanced_accuracy": {key: round(balanced_accuracy(gold, said[key]), 3) for key in said}}


def paired_dev(model: str, calibration: dict, shipped_calibration: dict, data: Path, n_boot: int = 2000) -> dict:
    """`model` and `full` of the candidate and of the shipped model, each at its own balanced-accuracy
    threshold from its calibrate.py output, on the dev calibration halves; mean BA of each and a paired
    bootstrap over claims (rows resampled within each set, thresholds fixed) of candidate - shipped."""
    rows = load_half(data, "calibration", model_split_rule(calibration))  # the candidate's rule
    gold = {s: np.array([r.label == "supported" for r in rows[s]]) for s in SETS}
    cand_full = candidate_full(model, calibration, calibration["full"]["threshold"])
    cand_model = dataclasses.replace(make_checker("model", model=model, threshold=calibration["model"]["threshold"]),
                                     semantic=cand_full.semantic)  # fmt: skip
    shipped = {"model": make_checker("model", threshold=shipped_calibration["model"]["threshold"]),
               "full": make_checker("full", threshold=shipped_calibration["full"]["threshold"], gate=False,
                                    **blend_options(shipped_calibration["full"]))}  # fmt: skip
    said = {}
    for kind, pair in (("model", (cand_model, shipped["model"])), ("full", (cand_full, shipped["full"]))):
        for who, chk in zip(("candidate", "shipped"), pair):
            said[kind, who] = {s: np.array([p.label == "supported" for p in predict(rows[s], chk)[0]]) for s in SETS}

    def mean_ba(sup: dict, idx: dict) -> float:
        return float(np.mean([balanced_accuracy(gold[s][idx[s]], sup[s][idx[s]]) for s in SETS]))

    rng = np.random.default_rng(0)
    full_idx = {s: np.arange(len(rows[s])) for s in SETS}
    out = {}
    for kind in ("model", "full"):
        c, sh = said[kind, "candidate"], said[kind, "shipped"]
        diffs = []
        for _ in range(n_boot):
            idx = {s: rng.integers(0, len(rows[s]), len(rows[s])) for s in SETS}
            diffs.append(mean_ba(c, idx) - mean_ba(sh, idx))
        diffs = np.array(diffs)
        out[kind] = {"candidate": round(mean_ba(c, full_idx), 4), "shipped": round(mean_ba(sh, full_idx), 4),
                     "diff_ci95": [round(float(np.percentile(diffs, 2.5)), 4), round(float(np.percentile(diffs, 97.5)), 4)],
                     "p_candidate_not_better": round(float((diffs <= 0).mean()), 3),
                     "claims_decided_differently": int(sum((c[s] != sh[s]).sum() for s in SETS))}
    return out


def score_cases(cases: list[dict], chk, through_answer: bool) -> dict:
    wrong, gold, said_supported = [], [], []
    for c in cases:
        if through_answer:  # as bench/unseen_cases.py does
            v = verify_answer(f"{c['claim']} [S1]", {"S1": c["source"]}, checker=chk).claims[0]
        else:  # as tests/unit/verify/test_plain_cases.py does
            v = chk.check_pair(c["claim"], c["source"])
        gold.append(c["gold"] == "supported")
        said_supported.append(v.label == "supported")
        if said_supported[-1] != gold[-1]:
            wrong.append({"id": c["id"], "kind": c.get("kind"), "gold": c["gold"], "score": round(v.score, 3),
                          "claim": c["claim"]})
    n_sup = sum(gold)
    kept = sum(g and s for g, s in zip(gold, said_supported))
    false_support = sum(s and not g for g, s in zip(gold, said_supported))
    return {"cases": len(cases), "balanced_accuracy": round(balanced_accuracy(gold, said_supported), 3),
            "unsupported_called_supported": f"{false_support}/{len(gold) - n_sup}", "faithful_kept": f"{kept}/{n_sup}",
            "wrong": wrong}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", help="candidate .onnx (default: the shipped model and its calibration.json)")
    ap.add_argument("--calibration", type=Path, help="the candidate's calibration.json (training/calibrate.py --out)")
    ap.add_argument("--threshold", type=float, help="skip the matched-threshold pass and use this one")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--unseen", type=Path, help="also run this held-out cases file (bench/data/unseen_cases/...)")
    ap.add_argument("--detail", type=int, default=0,
                    help="also score this many rule/detail pairs cut from the SQuAD dev calibration-half paragraphs")
    ap.add_argument("--paired", type=Path, metavar="SHIPPED_CALIBRATION",
                    help="only compare candidate and shipped `model` / `full` on the dev calibration halves (each at "
                         "its own calibrate.py threshold, the shipped one's from this file) with a paired bootstrap")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if args.paired:
        res = paired_dev(args.model, json.loads(args.calibration.read_text()), json.loads(args.paired.read_text()), args.data)
        print(json.dumps(res, indent=1))
        if args.out:
            args.out.write_text(json.dumps(res, indent=1) + "\n")
        return
    result: dict = {"model": args.model or "shipped"}
    if args.model:
        calibration = json.loads(args.calibration.read_text())
        if args.threshold is None:
            result["matched"] = matched(args.model, calibration, args.data)
            args.threshold = result["matched"]["default_threshold"]
        chk = candidate_full(args.model, calibration, args.threshold)
        result["lexical_weight"] = chk.lexical_weight
        result["max_windows"] = chk.semantic.max_windows
    else:
        chk = make_checker("full", threshold=args.threshold)
    result["threshold"] = chk.threshold
    model_chk = make_checker("model", threshold=0.5, **({"model": args.model} if args.model else {}))
    if args.model:
        model_chk = dataclasses.replace(model_chk, semantic=chk.semantic)
    result["probes"] = [{"claim": c, "gold": g, "P": round(model_chk.check_pair(c, src).score, 3),
                         "full": chk.check_pair(c, src).label} for c, src, g in PROBES]  # fmt: skip
    for p in result["probes"]:
        print(f"probe ({p['gold']}): model P = {p['P']:.3f}, full says {p['full']}: {p['claim']}")
    if args.detail:
        cal = json.loads((args.calibration or (REPO / "citebound" / "models" / "entailment" / "calibration.json")).read_text())
        result["detail_held_out"] = score_detail(held_out_detail_pairs(args.detail), model_chk, cal["model"]["threshold"], chk)
        print("rule/detail pairs of the SQuAD dev calibration half:", json.dumps(result["detail_held_out"]))
    plain = [json.loads(line) for line in PLAIN.read_text().splitlines() if line.strip()]
    result["plain_cases"] = score_cases(plain, chk, through_answer=False)
    if args.unseen:
        cases = [json.loads(line) for line in args.unseen.read_text().splitlines() if line.strip()]
        result["unseen"] = score_cases(cases, chk, through_answer=True)
    for key in ("plain_cases", "unseen"):
        if key in result:
            r = result[key]
            print(f"{key}: full (threshold {chk.threshold:g}) balanced accuracy {r['balanced_accuracy']:.3f} on "
                  f"{r['cases']} · unsupported called supported {r['unsupported_called_supported']} · "
                  f"faithful kept {r['faithful_kept']}")
            for w in r["wrong"]:
                print(f"   {w['id']} [{w['kind']}] gold {w['gold']} ({w['score']}): {w['claim']}")
    if "matched" in result:
        print("matched threshold:", json.dumps(result["matched"]))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
