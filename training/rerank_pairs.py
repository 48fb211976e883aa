"""Training groups for the reranker, mined with citebound's own BM25 retriever (run with the citebound venv).

    .venv/bin/python training/rerank_pairs.py --out training/device_data/rerank.jsonl.gz
    .venv/bin/python training/rerank_pairs.py --sets scifact --mode hybrid --neg-depth 20 --out /tmp/rr.jsonl.gz

Each output row is one query: ``{"set", "qid", "split", "query", "pos": [chunk texts], "neg": [chunk
texts]}``. Only data we may train on is read:

- SciFact **train** queries and qrels (``retrieval/scifact/qrels/train.tsv``). Positives are the chunks of
  the judged documents that BM25 ranks in its top 100 (at most 2 per query); negatives are the other
  top-30 BM25 chunks (hard negatives). A fixed fifth of the train queries (`citebound.evaluate.splits.is_rerank_dev_query`) is held out
  as ``split = "dev"`` for choosing epochs, depth and the default; the test qrels are never read.
  ``--mode hybrid`` mines them from the ranking the reranker is given at run time instead (citebound's
  hybrid, the evaluation's candidate depth; the KB's chunk vectors are computed first if missing, e.g. by
  ``citebound embed``): positives are the gold documents' chunks in its top 100, negatives every other
  chunk of its top ``--neg-depth`` (no chunk of a judged document is ever a negative).
- SQuAD 2.0 **dev** answerable questions: the positive is the chunk of the gold paragraph that contains
  a gold answer; negatives are BM25's top-15 chunks from other paragraphs that contain no gold answer.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

from citebound.datasets import load_beir
from citebound.evaluate.retrieval_eval import EVALUATION_DEPTH, chunk_documents
from citebound.evaluate.splits import is_rerank_dev_query
from citebound.kb.cache import cached_kb
from citebound.retrieval import Retriever

DATA = Path("/work/shared/data")


def chunk_table(kb) -> dict[str, tuple[str, str]]:
    """chunk id -> (document id as in the corpus, chunk text) for the current versions."""
    rows = list(chunk_documents(kb))
    texts = {c.id: c.text for c in kb.get_chunks([cid for cid, _ in rows])}
    return {cid: (doc, texts[cid]) for cid, doc in rows if cid in texts}


def scifact_groups(mode: str = "bm25", neg_depth: int = 30) -> list[dict]:
    beir = load_beir(DATA / "retrieval" / "scifact", "train")
    kb = cached_kb(beir.corpus, beir.name, progress=True)
    table = chunk_table(kb)
    # hybrid: the retriever as the evaluation builds it (candidate depth EVALUATION_DEPTH), so the order
    # mined is the order `eval retrieval --mode hybrid+rerank` and bench/rerank_choose.py rerank
    retriever = Retriever(kb, mode=mode, depth=100 if mode == "bm25" else EVALUATION_DEPTH, progress=True)
    retriever.warm_up()
    qids = list(beir.queries)
    qvecs = retriever.embed_queries([beir.queries[q] for q in qids]) if retriever.uses_dense else None
    out = []
    for i, qid in enumerate(qids):
        query = beir.queries[qid]
        judged = set(beir.qrels[qid])  # never a negative, whatever its grade
        gold = {d for d, rel in beir.qrels[qid].items() if rel > 0}
        ranked = [c.chunk_id for c in retriever.rank(query, retriever.depth, None if qvecs is None else qvecs[i])]
        pos = [table[c][1] for c in ranked[:100] if table[c][0] in gold][:2]
        neg = [table[c][1] for c in ranked[:neg_depth] if table[c][0] not in judged]
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
    ap.add_argument("--sets", default="scifact,squad2", help="which groups to mine (comma-separated)")
    ap.add_argument("--mode", choices=("bm25", "hybrid"), default="bm25", help="SciFact's ranking to mine")
    ap.add_argument("--neg-depth", type=int, default=30, help="SciFact negatives: non-judged chunks of this top")
    args = ap.parse_args()
    sets = set(args.sets.split(","))
    groups = (scifact_groups(args.mode, args.neg_depth) if "scifact" in sets else []) + \
        (squad_groups() if "squad2" in sets else [])
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
