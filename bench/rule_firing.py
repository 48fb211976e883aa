"""How often each hard contradiction rule fires on the labelled claims sets, and on which gold labels.

    python bench/rule_firing.py [--data ../shared/data/claims] [--json OUT.json] [--cascade]

A hard rule (negation, comparison, dates) makes a claim unsupported whatever a model says, so a rule that
fires on gold-supported claims costs accuracy the model cannot win back. By default this reads every
claim against its whole evidence (an upper bound: the cascade reads the best window, and only for claims
the numbers stage let through) and counts firings per set, split and gold label, with a few examples.
With `--cascade` it counts what the `deterministic` cascade decides by each rule's stage instead: the
firings that cost or earn accuracy.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from citebound.verify.checks.comparison import comparison_conflicts  # noqa: E402
from citebound.verify.checks.dates import date_conflicts  # noqa: E402
from citebound.verify.checks.negation import polarity_conflicts  # noqa: E402
from citebound.verify.checkers import make_checker  # noqa: E402

RULES = {"comparison": comparison_conflicts, "dates": date_conflicts, "negation": polarity_conflicts}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data/claims")
    p.add_argument("--rules", default=",".join(RULES))
    p.add_argument("--json", type=Path)
    p.add_argument("--cascade", action="store_true", help="count the deterministic cascade's verdicts by stage")
    args = p.parse_args()
    checker = make_checker("deterministic") if args.cascade else None
    out = {}
    for path in sorted(args.data.glob("*/*.jsonl")):
        key = f"{path.parent.name}/{path.stem}"
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        out[key] = {"n": len(rows)}
        for rule in args.rules.split(","):
            fired, examples = Counter(), []
            for r in rows:
                if checker is not None:
                    verdict = checker.check_pair(r["claim"], r["evidence"])
                    found = [verdict.reason] if verdict.stage == rule else []
                else:
                    found = RULES[rule](r["claim"], r["evidence"])
                if found:
                    fired[r["label"]] += 1
                    if len(examples) < 3:
                        examples.append({"label": r["label"], "claim": r["claim"][:160], "reason": found[0][:200]})
            out[key][rule] = {"fired": dict(fired), "examples": examples}
            print(f"{key:28s} {rule:10s} n={len(rows):5d} fired {dict(fired)}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
