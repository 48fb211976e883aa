"""Does the extractive backend answer list and figure questions with the list, or with a heading?

citebound's own docs/**/*.md are copied into a temporary KB and the questions of
bench/data/structure_questions.jsonl (written for this: answers that are a list, a table or a figure
sentence) are asked with the extractive backend, twice: with its default abstention threshold and with
threshold 0 (always answer, to see which sentences it picks). For each answer, counted per question:

- heading:      a cited span lies only on heading / rule / table-header lines of its document;
- bare intro:   a cited span ends with a sentence that introduces a list or table whose items it lacks;
- gold:         the gold string is in the answer (whitespace-insensitive);
- removed:      claims the verifier did not support (dropped by the policy).

Structure is judged with the current citebound/text/structure.py loaded from this checkout, so the same
rules judge a run of an older tree (`PYTHONPATH=/path/to/old/tree python bench/structure_bench.py`).

    .venv/bin/python bench/structure_bench.py --out bench/results/structure_after.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _structure():
    spec = importlib.util.spec_from_file_location("structure_now", ROOT / "citebound/text/structure.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["structure_now"] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def judge(text: str, start: int, end: int, st) -> dict:
    covered = [ln for ln in st.lines(text) if ln.end > start and ln.start < end and ln.kind != "blank"]
    heading = bool(covered) and all(ln.kind in st.STRUCTURAL for ln in covered)
    bare_intro = any(seg.end == end and st.items_end(text, seg.start, seg.end) > end
                     for seg in st.segments(text) if seg.start < end <= seg.end + 1)
    return {"heading": heading, "bare_intro": bare_intro}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--questions", default=str(HERE / "data/structure_questions.jsonl"))
    ap.add_argument("--docs", default=str(ROOT / "docs"))
    ap.add_argument("--mode", default="hybrid")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    import citebound
    from citebound.kb import KnowledgeBase
    from citebound.pipeline import ask
    from citebound.retrieval import Retriever

    st = _structure()
    questions = [json.loads(line) for line in Path(args.questions).read_text().splitlines() if line.strip()]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs"
        shutil.copytree(args.docs, docs, ignore=shutil.ignore_patterns("*.png", "*.html"))
        kb = KnowledgeBase.open(Path(tmp) / "kb", create=True)
        kb.ingest([docs], progress=False)
        retriever = Retriever(kb, mode=args.mode, progress=False)
        for q in questions:
            for threshold in (None, 0.0):
                t0 = time.perf_counter()
                options = {} if threshold is None else {"threshold": threshold}
                res = ask(q["question"], kb, retriever=retriever, audit=False, backend="extractive",
                          backend_options=options)
                cites = []
                for c in res.citations:
                    text = kb.document_text(c.doc_id, c.version)
                    assert text[c.start:c.end] == c.quote, "offsets not exact"
                    cites.append({"doc_id": c.doc_id, "start": c.start, "end": c.end, "quote": c.quote,
                                  **judge(text, c.start, c.end, st)})
                squash = lambda s: " ".join(s.split()).lower()
                rows.append({
                    "id": q["id"], "kind": q["kind"], "threshold": "default" if threshold is None else threshold,
                    "question": q["question"], "answer": res.answer, "abstained": res.abstained,
                    "gold": squash(q["gold"]) in squash(res.answer) or any(
                        squash(q["gold"]) in squash(c["quote"]) for c in cites),
                    "heading": any(c["heading"] for c in cites), "bare_intro": any(c["bare_intro"] for c in cites),
                    "removed": [r.text[:120] + " — " + r.reason[:160] for r in res.removed],
                    "citations": cites, "seconds": round(time.perf_counter() - t0, 3),
                })
        kb.close()
    summary = {}
    for th in ("default", 0.0):
        sel = [r for r in rows if r["threshold"] == th]
        summary[str(th)] = {k: sum(bool(r[k]) for r in sel) for k in ("abstained", "heading", "bare_intro", "gold")}
        summary[str(th)]["questions"] = len(sel)
        summary[str(th)]["with_removed_claims"] = sum(bool(r["removed"]) for r in sel)
    out = {"citebound": str(Path(citebound.__file__).parent), "mode": args.mode, "summary": summary, "rows": rows}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1, ensure_ascii=False))
    json.dump(summary, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
