"""The verifier on one-line cases written without looking at its rules (bench/data/unseen_cases/).

Each file of that folder is a set of {id, kind, gold, claim, source} cases written in one sitting, by
someone who did not look at the rules or the plain cases first, half faithful restatements and half
claims that their source does not support (a negation in a contraction, a true number on the wrong
attribute or year, an invented cause or detail, a comparison turned around, a unit written two ways,
...). They measure how the rules and the model generalise to cases nobody tuned on, the way
tests/unit/verify/plain_cases.jsonl cannot (every rule there was written against its cases).

Protocol: never tune on a set here. A case one checker gets wrong is fixed, if at all, by writing a
*new* case of its kind into plain_cases.jsonl and working against that; the set here stays as it was
and is re-measured. A set whose failures have driven a change is spent: write the next set in a new
file and say so in docs/benchmarks.md.

The sets (2026-12-01): cases.jsonl (80; spent for the condition kind), cases2.jsonl (60; spent for every
kind of its misses in the tenth session, docs/benchmarks.md "The second blind set spent"),
cases3.jsonl (60; spent for seven kinds, docs/benchmarks.md "Seven one-line mistakes from a third blind
set"), cases4.jsonl (60; judged the ninth session's model candidates, then spent for three kinds). cases5.jsonl (60;
written at the end of the ninth session, after all its changes: unspent, the next session's measure).
cases6.jsonl (60; written at the start of the tenth session before its rule changes, committed alone
first: the measure of whether the fixes made from the second set generalise). cases7.jsonl and cases8.jsonl (60 each; 7
spent in the eleventh session, 8 kept blind: aggregate figures only). cases9.jsonl (60; written at the
start of the fourteenth session, 2026-12-02, by a helper that read no file of the repository; spent
for seven kinds, docs/benchmarks.md "Seven one-line false supports from the ninth blind set").
cases10.jsonl (60; written the same way after those seven rules, measured once, then spent for six kinds).
cases11.jsonl (60; written the same way mid-session, kept blind: aggregate figures only, measured after
the session's changes). cases12.jsonl (60; written like the eleventh, spent for three kinds). cases13.jsonl (60;
written the same way at the start of the fifteenth session, 2026-12-02, assistant-style answer sentences; spent
for nine kinds), cases14.jsonl (60; written the same way after those rules, spent for six kinds), cases15.jsonl
(60; half answer sentences, half one-line claims, written after set 14's rules; kept blind: aggregate
figures only). docs/benchmarks.md "Exact int8 sums on every CPU, and three more blind sets". cases16.jsonl
(60; written 2026-12-03 in the seventeenth session by a helper that read no file of the repository, after
that session's first rules; first measured at c37e776: deterministic 0.517, full 0.650; then spent for
the kinds of b16-06, b16-18, b16-38, b16-42, b16-52 and b16-53 and the faithful refusals b16-16, b16-28,
b16-39 and b16-50, each with new plain cases). cases17.jsonl (60; half answer sentences, half one-line
claims, written the same way mid-session, after the rules from set 16; kept blind: aggregate figures
only; deterministic 0.433 · full 0.583 at the session's start, 67137c1, 0.450 · 0.633 at eedf141, and
0.467 · 0.667 at the session's end, 0404ac9).
cases18.jsonl (60; written the same way late in that session; first measured at 3d43a78: deterministic
0.533 · full 0.733; 0.517 · 0.717 at 67137c1; then spent for the kinds of b18-04,
b18-16, b18-28, b18-36, b18-49, b18-51 (its rule taken out again after a review) and b18-57).
cases19.jsonl (60; half answer sentences, half one-line claims, written 2026-12-03 early in the eighteenth
session by a helper that read no file of the repository, after that session's first rule (e31f3ab); kept
blind: aggregate figures only; deterministic 0.500 · full 0.717 at the session's start, f8837d9, at
e31f3ab, and at the session's end, d1167c5). cases20.jsonl (60; written the same way mid-session, after
e31f3ab; first measured at 2a816e8+: deterministic 0.367 · full 0.433; then spent for the kinds of b20-03,
-05, -06, -08, -13, -37, -39, -40, -42, -49 and -50 (rules kept after reviews) and b20-11, -45, -49, -60
(rules reverted after reviews); 0.367 · 0.483 at d1167c5). cases21.jsonl (60; half answer sentences, half one-line
claims, written 2026-12-03 at the start of the nineteenth session by a helper that read no file of the
repository, before that session's changes; kept blind: aggregate figures only; deterministic 0.450 · full 0.483
at 88b2a7b). cases22.jsonl (60; half answer sentences, half one-line claims, written 2026-12-04 at the start of
the twentieth session by a helper that read no file of the repository, before that session's changes; kept
blind: aggregate figures only; deterministic 0.433 · full 0.483 at ef985a0).

    OMP_NUM_THREADS=1 .venv/bin/python bench/unseen_cases.py [--cases FILE] [--out results.json]

Prints, per checker (shipped default thresholds): balanced accuracy, unsupported claims called
supported, faithful claims not supported, and each wrong case.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from citebound.metrics import balanced_accuracy
from citebound.verify import verify_answer
from citebound.verify.checkers import make_checker

HERE = Path(__file__).resolve().parent
DEFAULT_CASES = HERE / "data" / "unseen_cases" / "cases.jsonl"


def run(cases: list[dict], checker: str) -> dict:
    chk = make_checker(checker)
    verdicts = [verify_answer(f"{c['claim']} [S1]", {"S1": c["source"]}, checker=chk).claims[0] for c in cases]
    gold = [c["gold"] == "supported" for c in cases]
    said = [v.label == "supported" for v in verdicts]
    wrong = [{"id": c["id"], "kind": c["kind"], "gold": c["gold"], "label": v.label, "score": round(v.score, 3),
              "claim": c["claim"], "reason": v.reason}
             for c, v, g, s in zip(cases, verdicts, gold, said) if g != s]
    return {"checker": checker, "threshold": chk.threshold, "cases": len(cases),
            "balanced_accuracy": round(balanced_accuracy(gold, said), 3),
            "unsupported_called_supported": sum(s and not g for g, s in zip(gold, said)), "unsupported": gold.count(False),
            "faithful_not_supported": sum(g and not s for g, s in zip(gold, said)), "faithful": gold.count(True),
            "wrong": wrong}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    parser.add_argument("--checkers", default="deterministic,full")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    cases = [json.loads(line) for line in args.cases.read_text(encoding="utf-8").splitlines() if line.strip()]
    results = [run(cases, name) for name in args.checkers.split(",")]
    for r in results:
        print(f"{r['checker']} (threshold {r['threshold']:g}): balanced accuracy {r['balanced_accuracy']:.3f} on "
              f"{r['cases']} · unsupported called supported {r['unsupported_called_supported']}/{r['unsupported']} · "
              f"faithful not supported {r['faithful_not_supported']}/{r['faithful']}")
        for w in r["wrong"]:
            print(f"   {w['id']} [{w['kind']}] gold {w['gold']}, said {w['label']} ({w['score']}): {w['claim']}")
    if args.out:
        args.out.write_text(json.dumps({"cases": str(args.cases), "results": results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
