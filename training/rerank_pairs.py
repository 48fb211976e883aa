"""Training groups for the reranker, mined with citebound's own BM25 retriever (run with the citebound venv).

    .venv/bin/python training/rerank_pairs.py --out training/device_data/rerank.jsonl.gz

Each output row is one query: ``{"set", "qid", "split", "query", "pos": [chunk texts], "neg": [chunk
texts]}``. Only data we may train on is read:

- SciFact **train** queries and qrels (``retrieval/scifact/qrels/train.tsv``). Positives are the chunks of
  the judged documents that BM25 ranks in its top 100 (at most 2 per query); negatives are the other
  top-30 BM25 chunks (hard negatives). A fixed fifth of the train queries (`citebound.evaluate.splits.is_rerank_dev_query`) is held out
  as ``split = "dev"`` for choosing epochs, depth and the default; the test qrels are never read.
- SQuAD 2.0 **dev** answerable questions: the positive is the chunk of the gold paragraph that contains
  a gold answer; negatives are BM25's top-15 chunks from other paragraphs that contain no gold answer.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

from citebound.datasets import load_beir
from citebound.evaluate.retrieval_eval import chunk_documents
from citebound.evaluate.splits import is_rerank_dev_query
from citebound.kb.cache import cached_kb
from citebound.retrieval import Retriever

DATA = Path("/work/shared/data")


def chunk_table(kb) -> dict[str, tuple[str, str]]:
    """chunk id -> (document id as in the corpus, chunk text) for the current versions."""
    rows = list(chunk_documents(kb))
    texts = {c.id: c.text for c in kb.get_chunks([cid for cid, _ in rows])}
    return {cid: (doc, texts[cid]) for cid, doc in rows if cid in texts}


def scifact_groups() -> list[dict]:
    beir = load_beir(DATA / "retrieval" / "scifact", "train")
    kb = cached_kb(beir.corpus, beir.name, progress=True)
    table = chunk_table(kb)
    retriever = Retriever(kb, mode="bm25", depth=100, progress=False)
    out = []
    for qid, query in beir.queries.items():
        gold = {d for d, rel in beir.qrels[qid].items() if rel > 0}
        ranked = [c.chunk_id for c in retriever.rank(query, 100)]
        pos = [table[c][1] for c in ranked if table[c][0] in gold][:2]
        neg = [table[c][1] for c in ranked[:30] if table[c][0] not in gold]
        if pos and neg:
            out.append({"set": "scifact", "qid": qid, "split": "dev" if is_rerank_dev_query(qid) else "train",
                        "query": query, "pos": pos, "neg": neg})
    kb.close()
    return out


def squad_groups() -> list[dict]:
    folder = DATA / "qa" / "squad2" / "dev"  # dev only: the test split is never read
    kb = cached_kb(folder / "corpus.jsonl", "qa-squad2-dev", progress=True)
    table = chunk_table(kb)
    retriever = Retriever(kb, mode="bm25", depth=30, progress=False)
    out = []
    with (folder / "questions.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            q = json.loads(line)
            if not q.get("answerable") or not q.get("answers"):
                continue
            answers = [a for a in q["answers"] if a]
            ranked = [c.chunk_id for c in retriever.rank(q["question"], 30)]
            own = [cid for cid, (doc, text) in table.items()
                   if doc == q["context_id"] and any(a in text for a in answers)]
            neg = [table[c][1] for c in ranked if table[c][0] != q["context_id"]
                   and not any(a.lower() in table[c][1].lower() for a in answers)][:15]
            if own and neg:
                out.append({"set": "squad2", "qid": q["id"], "split": "train", "query": q["question"],
                            "pos": [table[own[0]][1]], "neg": neg})
    kb.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    groups = scifact_groups() + squad_groups()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.out, "wt", encoding="utf-8") as fh:
        for g in groups:
            fh.write(json.dumps(g) + "\n")
    counts: dict[str, int] = {}
    for g in groups:
        counts[f"{g['set']}/{g['split']}"] = counts.get(f"{g['set']}/{g['split']}", 0) + 1
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
