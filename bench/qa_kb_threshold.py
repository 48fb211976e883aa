"""How a knowledge base's own answer threshold (`citebound calibrate answers`) carries over to pages it was
not chosen on, estimated on a dev split alone: leave one page out. For each page of the split, the
threshold is chosen on the other pages' questions (`citebound.evaluate.answer_threshold.pick_answer_threshold`,
the function `calibrate answers` and `eval qa --calibrate-on` use) and applied to that page's questions;
the held-out decisions of all pages are pooled and scored. Also printed: the threshold chosen on the whole
split and its in-sample figures, and the shipped default's figures.

Input: the per-question rows of `citebound eval qa --data SPLIT --out ROWS` (the threshold is applied
afterwards, so one run serves every threshold).

    nice -n 10 citebound eval qa --data bench/data/techdocs/dev --json --out dev_rows.jsonl
    python bench/qa_kb_threshold.py dev_rows.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from citebound.errors import InputError
from citebound.evaluate.answer_threshold import figures_at, pick_answer_threshold
from citebound.generation.backends.extractive import default_threshold

SETTINGS = [("balanced_accuracy", None), ("abstention_precision", 0.75), ("abstention_precision", 0.8),
            ("abstention_precision", 0.85), ("abstention_precision", 0.9)]


def held_out(rows: list[dict], objective: str, target: float | None) -> dict:
    """Pooled leave-one-page-out figures: each page's questions decided by the threshold of the others."""
    pages = sorted({r["context_id"] for r in rows})
    decided, thresholds = [], {}
    for page in pages:
        rest = [r for r in rows if r["context_id"] != page]
        try:
            t = pick_answer_threshold(rest, objective, target or 0.8)["threshold"]
        except InputError:  # the target is not reached without this page: answer everything there
            t = float("-inf")
        thresholds[page] = round(t, 4)
        decided += [{**r, "_t": t} for r in rows if r["context_id"] == page]
    # figures_at takes one threshold; apply each row's own by shifting its confidence instead
    shifted = [{**r, "confidence": (r["confidence"] - r["_t"]) if r["confidence"] is not None else None}
               for r in decided]
    return {**{k: v for k, v in figures_at(shifted, 0.0).items() if k != "threshold"},
            "thresholds": thresholds}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", type=Path)
    args = ap.parse_args()
    rows = [json.loads(line) for line in args.rows.read_text().splitlines() if line.strip()]
    print(json.dumps({"rows": str(args.rows), "questions": len(rows),
                      "pages": len({r["context_id"] for r in rows}),
                      "default": figures_at(rows, default_threshold("answerability"))}))
    for objective, target in SETTINGS:
        whole = pick_answer_threshold(rows, objective, target or 0.8)
        print(json.dumps({"objective": whole["objective"], "whole_split": whole["at_threshold"],
                          "leave_one_page_out": held_out(rows, objective, target)}))


if __name__ == "__main__":
    main()
