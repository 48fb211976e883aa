"""Dev-only comparison behind two extractive-backend choices: which sentence the answer opens with
(`choose=relevance` vs `choose=answerability`) and which signal decides abstention (answerability vs
combined). One pass per question: hybrid retrieval (k = 5) once, the backend's candidate sentences and
signals once, both answer choices; no verifier (the extractive backend quotes verbatim). One row per
question to OUT (JSON lines): answerable, the three signals, and whether the gold string is in each
choice's answer (unthresholded). `bench/qa_mixed_threshold.py`-style summaries are printed by `--summary`.

    python bench/qa_answer_choice.py bench/data/techdocs/dev techdocs_dev.jsonl
    python bench/qa_answer_choice.py <squad2 dev calibration-half sample> squad_dev.jsonl --limit 300
    python bench/qa_answer_choice.py --summary squad_dev.jsonl techdocs_dev.jsonl

The SQuAD sample: 300 questions of the dev calibration half (paragraphs never trained on,
`citebound.evaluate.splits.is_calibration_paragraph`), shuffled with random.Random(7), in a folder whose
corpus.jsonl links to ../shared/data/qa/squad2/dev/corpus.jsonl (`--squad-sample DIR` writes it).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import numpy as np

from citebound.evaluate.qa_eval import contains_answer, open_qa_kb


def squad_sample(out: Path, n: int = 400, seed: int = 7) -> None:
    from citebound.evaluate.splits import is_calibration_paragraph

    src = Path("/work/shared/data/qa/squad2/dev")
    rows = [json.loads(line) for line in (src / "questions.jsonl").read_text().splitlines() if line.strip()]
    cal = [r for r in rows if is_calibration_paragraph(r["context_id"])]
    random.Random(seed).shuffle(cal)
    folder = out / "squad2" / "dev"  # the cached KB is named after the last two folders: qa-squad2-dev
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "corpus.jsonl").exists():
        (folder / "corpus.jsonl").symlink_to(src / "corpus.jsonl")
    (folder / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in cal[:n]))


def run(data: Path, out: Path, limit: int | None) -> None:
    from citebound.datasets import load_questions
    from citebound.generation.backends.extractive import ExtractiveBackend
    from citebound.retrieval import Retriever

    kb, _ = open_qa_kb(data, progress=False)
    retriever = Retriever(kb, mode="hybrid", progress=False)
    retriever.warm_up()
    backend = ExtractiveBackend(signal="combined", choose="answerability")
    with out.open("w") as fh:
        for q in load_questions(data, limit):
            sources = {h.source_id: h.chunk.text for h in retriever.retrieve(q["question"], k=5)}
            scored = backend.score(q["question"], sources)
            signals, probs = backend._signals(q["question"], scored)  # the backend's own two steps
            by_model = scored
            if probs:
                best = int(np.argmax(probs))
                by_model = [scored[best], *scored[:best], *scored[best + 1:]]

            def gold(picked) -> bool:  # noqa: ANN001
                return bool(q["answerable"] and contains_answer(" ".join(c.claim for c in picked), q["answers"]))

            fh.write(json.dumps({"id": q["id"], "answerable": q["answerable"], **{k: round(v, 5) for k, v in signals.items()},
                                 "gold_rel": gold(backend.select(scored)), "gold_ans": gold(backend.select(by_model))}) + "\n")


def summary(paths: list[Path]) -> None:
    from citebound.metrics import pick_threshold, roc_auc
    from citebound.retrieval.abstain import THRESHOLD_RULE

    sets = {p.stem: [json.loads(line) for line in p.read_text().splitlines() if line.strip()] for p in paths}
    for name, rows in sets.items():
        ans = [r for r in rows if r["answerable"]]
        y = [r["answerable"] for r in rows]
        own = pick_threshold([r["answerability"] for r in rows], y, **THRESHOLD_RULE)
        print(json.dumps({"set": name, "questions": len(rows), "answerable": len(ans),
                          "gold_in_answer": {"choose=relevance": sum(r["gold_rel"] for r in ans),
                                             "choose=answerability": sum(r["gold_ans"] for r in ans)},
                          "auroc": {s: round(roc_auc([r[s] for r in rows], y), 4) for s in ("relevance", "answerability", "combined")},
                          "own_threshold": round(own.threshold, 4)}))
    scores, positive, groups = [], [], []
    for name, rows in sets.items():
        scores += [r["answerability"] for r in rows]
        positive += [r["answerable"] for r in rows]
        groups += [name] * len(rows)
    mixed = pick_threshold(scores, positive, groups=groups, **THRESHOLD_RULE)
    print(json.dumps({"mixed_threshold": round(mixed.threshold, 4), "mean_balanced_accuracy": round(mixed.balanced_accuracy, 4)}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", type=Path)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--summary", action="store_true", help="summarise rows files instead of running")
    ap.add_argument("--squad-sample", type=Path, help="write the SQuAD dev calibration-half sample folder here")
    args = ap.parse_args()
    if args.squad_sample:
        squad_sample(args.squad_sample)
    elif args.summary:
        summary(args.paths)
    else:
        run(args.paths[0], args.paths[1], args.limit)


if __name__ == "__main__":
    main()
