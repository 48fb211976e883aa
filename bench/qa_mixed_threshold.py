"""Choose the extractive backend's abstention threshold on a MIX of dev sets, each weighing the same.

Reads the per-question rows that `citebound eval qa --out ROWS` writes (one file per dev set, all run
with the same signal) and picks the threshold that maximises the mean over the sets of the balanced
accuracy of answer-vs-abstain (`citebound.metrics.pick_threshold` with groups, the rule every citebound
threshold uses), so a large set (SQuAD) does not outvote a small one (techdocs). Prints, for each set,
its own best threshold and the figures at the mixed one. Dev rows only: never pass a test split.

    citebound eval qa --data bench/data/techdocs/dev -o choose=answerability --out rows_techdocs_dev.jsonl
    citebound eval qa --data <squad2 dev calibration-half sample> -o choose=answerability --out rows_squad_dev.jsonl
    python bench/qa_mixed_threshold.py rows_squad_dev.jsonl rows_techdocs_dev.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from citebound.evaluate.qa_eval import contains_answer
from citebound.metrics import pick_threshold
from citebound.retrieval.abstain import THRESHOLD_RULE


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _conf(row: dict) -> float:
    c = row.get("confidence")
    return -math.inf if row["pipeline_abstained"] or c is None else float(c)


def figures(rows: list[dict], threshold: float) -> dict:
    """What `eval qa` reports at `threshold`: answered with gold, abstention precision/recall, BA."""
    answered = [_conf(r) >= threshold for r in rows]
    n_ans = sum(r["answerable"] for r in rows)
    n_un = len(rows) - n_ans
    correct = sum(a and r["answerable"] and contains_answer(r["answer"], r["answers"]) for a, r in zip(answered, rows))
    abst = [(not a) for a in answered]
    tp = sum(ab and not r["answerable"] for ab, r in zip(abst, rows))
    tpr = sum(a and r["answerable"] for a, r in zip(answered, rows)) / max(1, n_ans)
    return {"questions": len(rows), "answered_with_gold": round(correct / max(1, n_ans), 4),
            "abstention_precision": round(tp / max(1, sum(abst)), 4), "abstention_recall": round(tp / max(1, n_un), 4),
            "balanced_accuracy": round((tpr + tp / max(1, n_un)) / 2, 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", nargs="+", type=Path, help="rows files of dev sets (eval qa --out)")
    args = ap.parse_args()
    sets = {p.stem: _rows(p) for p in args.rows}
    scores, positive, groups = [], [], []
    for name, rows in sets.items():
        scores += [_conf(r) for r in rows]
        positive += [r["answerable"] for r in rows]
        groups += [name] * len(rows)
    mixed = pick_threshold(scores, positive, groups=groups, **THRESHOLD_RULE)
    out = {"threshold": round(mixed.threshold, 4), "mean_balanced_accuracy": round(mixed.balanced_accuracy, 4), "sets": {}}
    for name, rows in sets.items():
        own = pick_threshold([_conf(r) for r in rows], [r["answerable"] for r in rows], **THRESHOLD_RULE)
        out["sets"][name] = {"own_threshold": round(own.threshold, 4), "at_own": figures(rows, own.threshold),
                             "at_mixed": figures(rows, mixed.threshold)}
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
