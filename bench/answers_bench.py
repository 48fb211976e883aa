"""`citebound eval answers` measured: speed of the deterministic and the model (`full`) checker on the same rows,
and whether an answer copied from a counterfactual passage is flagged.

Data: RGB's counterfactual-robustness set (`/work/shared/data/qa/rgb_fact/test.jsonl`, research-only: read
here for evaluation, never shipped, nothing chosen from it). Every question comes with correct passages and
counterfactual twins of them (the answer entity replaced by a fake one). From each question we build
answers the way a RAG system would log them, scored against the *correct* passages as contexts:

- `correct_copied`:    the sentence of a correct passage that contains the answer; contexts: all correct
                       passages (including the one copied). Should be faithful: a flag is a false flag.
- `correct_other`:     the same sentence; contexts: the other correct passages only (the answer restated
                       elsewhere, in other words). Should mostly be faithful: a flag is a false flag
                       (or a genuine gap: the other passages may not state everything the sentence does).
- `counterfactual`:    the same sentence from the counterfactual twin (the fake answer in place of the
                       true one); contexts: all correct passages. Not faithful: should be flagged.
- `short_correct` / `short_counterfactual`: the bare answer ("Tampa, Florida.") / the bare fake answer,
                       as a one-claim answer, contexts: all correct passages.

"Flagged" = the row is not `faithful` (some claim is not supported). Settings are the checkers' shipped
defaults (deterministic: threshold 0.8; full: its calibrated threshold): nothing is tuned here.

    OMP_NUM_THREADS=1 .venv/bin/python bench/answers_bench.py [--checkers deterministic,full] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from citebound.evaluate.answers import bootstrap_ci, evaluate_answers
from citebound.text.sentences import sentence_spans
from citebound.verify import make_checker

DATA = Path("/work/shared/data/qa/rgb_fact/test.jsonl")
CONDITIONS = ("correct_copied", "correct_other", "counterfactual", "short_correct", "short_counterfactual")
SHOULD_FLAG = {"counterfactual": True, "short_counterfactual": True}


def _sentence_with(passage: str, needle: str) -> str | None:
    low = needle.casefold()
    for start, end in sentence_spans(passage):
        if low in passage[start:end].casefold():
            return passage[start:end].strip()
    return None


def build_rows(path: Path, limit: int | None = None) -> tuple[list[dict], dict[str, int]]:
    """One row per (question, condition) that can be built; counts of questions skipped and why."""
    rows: list[dict] = []
    skipped = {"no_parallel_sentence": 0}
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh):
            if limit is not None and n >= limit:
                break
            item = json.loads(line)
            answer, fake = str(item["answer"]), str(item["fake_answer"])
            correct, counter = item["correct_passages"], item["counterfactual_passages"]
            pair = None
            for i, (c, f) in enumerate(zip(correct, counter)):
                true_sentence, fake_sentence = _sentence_with(c, answer), _sentence_with(f, fake)
                if true_sentence and fake_sentence:
                    pair = (i, true_sentence, fake_sentence)
                    break
            if pair is None:
                skipped["no_parallel_sentence"] += 1
                continue
            i, true_sentence, fake_sentence = pair
            qid = item["id"]
            others = [c for j, c in enumerate(correct) if j != i]
            rows.append({"id": f"{qid}:correct_copied", "question": item["question"], "answer": true_sentence,
                         "contexts": correct, "condition": "correct_copied"})
            if others:
                rows.append({"id": f"{qid}:correct_other", "question": item["question"], "answer": true_sentence,
                             "contexts": others, "condition": "correct_other"})
            rows.append({"id": f"{qid}:counterfactual", "question": item["question"], "answer": fake_sentence,
                         "contexts": correct, "condition": "counterfactual"})
            rows.append({"id": f"{qid}:short_correct", "question": item["question"], "answer": f"{answer}.",
                         "contexts": correct, "condition": "short_correct"})
            rows.append({"id": f"{qid}:short_counterfactual", "question": item["question"], "answer": f"{fake}.",
                         "contexts": correct, "condition": "short_counterfactual"})
    return rows, skipped


def measure(rows: list[dict], checker: str) -> dict:
    cascade = make_checker(checker)
    if checker != "deterministic":  # load the model before the clock starts
        evaluate_answers(rows[:1], checker=cascade)
    t0, c0 = time.perf_counter(), time.process_time()
    report = evaluate_answers(rows, checker=cascade)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    by_id = {r["id"]: r for r in report.rows}
    out: dict = {"checker": checker, "threshold": cascade.threshold, "rows": len(report.rows),
                 "errors": len(report.errors), "seconds": round(wall, 2), "rows_per_second": round(len(rows) / wall, 2),
                 "rows_per_cpu_second": round(len(rows) / cpu, 2) if cpu else None, "conditions": {}}
    for condition in CONDITIONS:
        flags = [float(by_id[r["id"]]["label"] != "faithful") for r in rows if r["condition"] == condition]
        if not flags:
            continue
        rate = sum(flags) / len(flags)
        out["conditions"][condition] = {
            "n": len(flags), "flagged": round(rate, 4), "flagged_ci": bootstrap_ci(flags),
            "meaning": "detection rate (should be flagged)" if SHOULD_FLAG.get(condition) else "false-flag rate",
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--checkers", default="deterministic,full")
    parser.add_argument("--limit", type=int, default=None, help="first N questions only")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "answers_bench.json")
    args = parser.parse_args()
    rows, skipped = build_rows(args.data, args.limit)
    results = {"data": str(args.data), "questions_skipped": skipped, "n_rows": len(rows),
               "checkers": [measure(rows, name) for name in args.checkers.split(",")]}
    for res in results["checkers"]:
        print(f"{res['checker']} (threshold {res['threshold']:.3f}): {res['rows']} rows in {res['seconds']} s, "
              f"{res['rows_per_second']} rows/s ({res['rows_per_cpu_second']} per CPU second)")
        for name, c in res["conditions"].items():
            print(f"  {name:<21} n={c['n']:<4} flagged {c['flagged']:.3f} {c['flagged_ci']}  ({c['meaning']})")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")  # figures only, no data text
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
