"""The GPU job: entailment model (issue 10) and reranker (issue 14) trained in one short run on a lent GPU.

Everything it needs travels with the repository: the shipped int8 ONNX models (their float weights are
rebuilt with the layer mapping of training/recover_weights.py, computed here beforehand into
``onnx_maps.json``; word-piece embeddings come from the ONNX file itself, as the runtime sees them), the
model config (training/minilm_config.json) and a data folder (``--data``: an xz tarball of the training
sets of ../shared/data, never a test split, plus ``rerank.jsonl.gz`` from training/rerank_pairs.py).

    python3 training/device_train.py --data DIR --out OUTDIR [--budget-seconds 420] [--smoke]

1. Entailment: two candidates from the shipped weights, the same pair budget, one with the NLI + claims
   fit halves only (``base``) and one adding every document-level generator of training/pairs.py
   (``gens``): the ablation. Each is scored on the claims/ dev *calibration* halves (the runtime's single
   best window, 128 tokens; model alone, one global threshold) beside the shipped weights; the better
   candidate is exported to int8 ONNX.
2. Reranker: from the answerability model's weights, listwise loss over (query, 1 positive, 7 BM25 hard
   negatives), each chunk read as its best sentence window; MRR of the held-out SciFact *train* queries
   (20%, by hash) before and after. Exported to int8 ONNX.

Seconds are budgeted: each phase gets a share of ``--budget-seconds`` and stops on time with a decayed
learning rate. The job is short (minutes), so it is not resumable; training/train_entailment.py is the
resumable CPU recipe.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(REPO))
from resumable import optimiser  # noqa: E402  (AdamW, word-piece table frozen: the CPU scripts' optimiser)

T0 = time.time()
LOG: list[str] = []


def log(msg: str) -> None:
    line = f"[{time.time() - T0:6.1f}s] {msg}"
    LOG.append(line)
    print(line, flush=True)


def build_model():
    import train_entailment as te
    from transformers import BertConfig, BertModel

    cfg = {k: v for k, v in json.loads((HERE / "minilm_config.json").read_text()).items() if not k.startswith("_")}
    return te.CrossEncoder(BertModel(BertConfig(**cfg), add_pooling_layer=False))


def recover_mapped(onnx_path: Path, mapping: dict[str, str]):
    """Float CrossEncoder weights from an int8 ONNX file, with a layer mapping computed beforehand."""
    import onnx
    from onnx import numpy_helper
    from recover_weights import dequantize

    inits = {i.name: numpy_helper.to_array(i) for i in onnx.load(str(onnx_path)).graph.initializer}
    model = build_model()
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    for k in state:
        if k in inits:
            state[k] = torch.from_numpy(inits[k].copy()).reshape(state[k].shape)
    for emb in ("word_embeddings", "position_embeddings", "token_type_embeddings"):
        k = f"encoder.embeddings.{emb}.weight"
        state[k] = torch.from_numpy(dequantize(inits, k)).reshape(state[k].shape)
    state["head.weight"] = torch.from_numpy(dequantize(inits, "head.weight_Transposed").T.copy())
    for k, n in mapping.items():
        state[k] = torch.from_numpy(dequantize(inits, n).T.copy())
    model.load_state_dict(state)
    return model


def to_device_batch(encodings, device):
    """Padded ids, mask and type ids of tokenizer encodings (train_entailment.collate), on `device`."""
    import train_entailment as te

    ids, mask, types, _ = te.collate(encodings, [0] * len(encodings), list(range(len(encodings))))
    return tuple(t.to(device, non_blocking=True) for t in (ids, mask, types))


@torch.no_grad()
def score(model, rows: list, device, batch: int = 512) -> np.ndarray:
    """Logits of tokenizer encodings, scored in batches of similar length."""
    model.eval()
    order = sorted(range(len(rows)), key=lambda i: len(rows[i].ids))
    out = np.zeros(len(rows), dtype=np.float64)
    for b in range(0, len(order), batch):
        idx = order[b : b + batch]
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
            z = model(*to_device_batch([rows[i] for i in idx], device))
        out[idx] = z.float().cpu().numpy()
    return out


def run_steps(model, batches, step_loss, lr: float, seconds: float, device, name: str, warmup: float = 0.03) -> dict:
    """Linear warm-up, then linear decay on whichever runs out first: the steps or the seconds."""
    model.train()
    optim = optimiser(model, lr)
    total = len(batches)
    warm = max(1, int(total * warmup))
    t0 = time.time()
    seen, running, step = 0, 0.0, 0
    for step, batch in enumerate(batches, 1):
        spent = time.time() - t0
        if spent > seconds:
            step -= 1
            break
        done = max((step - 1) / total, spent / seconds)
        scale = min(step / warm, max(0.0, (1 - done) / (1 - warm / total)))
        for g in optim.param_groups:
            g["lr"] = lr * scale
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
            loss, n = step_loss(batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optim.step()
        optim.zero_grad(set_to_none=True)
        seen += n
        if step % 200 == 0 or step == 1:
            running = loss.item()
            log(f"{name}: step {step}/{total} loss {running:.4f} {seen / (time.time() - t0):.0f} pairs/s")
    model.eval()
    return {"steps": step, "steps_planned": total, "pair_passes": seen, "seconds": round(time.time() - t0, 1)}


# -- entailment ------------------------------------------------------------------------------------------
def entailment_eval_rows(tok, te):
    """Calibration halves of claims/*/dev: encodings of claim vs its best window, and (set, gold) of each."""
    rows, meta = [], []
    for name in te.CLAIM_SETS:
        rows = te.read_jsonl(te.DATA / "claims" / name / "dev.jsonl")
        held_out = te.calibration_ids(name, [(r["id"], r["claim"], r["evidence"]) for r in rows], "group")
        for r in rows:
            if r["id"] in held_out:
                rows.append(tok.encode(r["claim"], te.best_window(r["claim"], r["evidence"])))
                meta.append((name, r["label"] == "supported"))
    return rows, meta


def entailment_metrics(logits: np.ndarray, meta) -> dict:
    from citebound.metrics import balanced_accuracy, pick_threshold, roc_auc

    names = list(dict.fromkeys(n for n, _ in meta))
    sets = np.array([names.index(n) for n, _ in meta])
    gold = np.array([g for _, g in meta])
    choice = pick_threshold(logits, gold, groups=sets, max_candidates=4000)
    per = {n: round(float(balanced_accuracy(gold[sets == i], logits[sets == i] >= choice.threshold)), 4) for i, n in enumerate(names)}
    auc = {n: round(float(roc_auc(logits[sets == i], gold[sets == i])), 4) for i, n in enumerate(names)}
    return {"mean_ba": round(float(choice.balanced_accuracy), 4), "per_set_ba": per,
            "mean_auroc": round(float(np.mean(list(auc.values()))), 4), "per_set_auroc": auc}  # fmt: skip


def train_entailment(args, maps, tok, device) -> dict:
    import train_entailment as te

    results: dict = {}
    tok.enable_truncation(max_length=te.MAX_LEN, strategy="longest_first")
    eval_rows, meta = entailment_eval_rows(tok, te)
    shipped = recover_mapped(REPO / "citebound/models/entailment/model.onnx", maps["entailment"]).to(device)
    results["shipped_recovered"] = entailment_metrics(score(shipped, eval_rows, device), meta)
    log(f"shipped (recovered, torch): {results['shipped_recovered']}")
    del shipped
    candidates = {}
    for variant, gens in (("base", []), ("gens", ["factcg", "squad_claims", "hard_negatives", "multi_sentence"])):
        rng = random.Random(args.seed)
        pairs, counts = te.sample_pairs(args.entail_pairs, rng, gens)
        enc = tok.encode_batch([(c, e) for c, e, _, _ in pairs])
        labels = [p[2] for p in pairs]
        log(f"{variant}: {len(enc)} pairs sampled and tokenised")
        order: list[list[int]] = []
        for epoch in range(args.entail_epochs):
            order += te.make_batches(enc, labels, args.batch_size, random.Random(f"{args.seed}:{variant}:{epoch}"))
        model = recover_mapped(REPO / "citebound/models/entailment/model.onnx", maps["entailment"]).to(device)
        loss_fn = torch.nn.BCEWithLogitsLoss()

        def step_loss(idx, enc=enc, labels=labels, model=model, loss_fn=loss_fn):
            y = torch.tensor([labels[i] for i in idx], dtype=torch.float32, device=device)
            return loss_fn(model(*to_device_batch([enc[i] for i in idx], device)).float(), y), len(idx)

        info = run_steps(model, order, step_loss, args.entail_lr, args.budget_seconds * args.entail_share / 2, device, variant)
        info["unique_pairs"] = len(enc)
        info["data"] = counts
        info["dev_calibration"] = entailment_metrics(score(model, eval_rows, device), meta)
        log(f"{variant}: {info['dev_calibration']} ({info['pair_passes']} pair-passes)")
        results[variant] = info
        candidates[variant] = {k: v.detach().cpu() for k, v in model.state_dict().items()}
        del model
    best = max(candidates, key=lambda v: results[v]["dev_calibration"]["mean_ba"])
    results["chosen"] = best
    return results, candidates[best]


# -- reranker --------------------------------------------------------------------------------------------
def train_reranker(args, maps, tok, device) -> dict:
    import train_entailment as te

    tok.enable_truncation(max_length=te.MAX_LEN, strategy="longest_first")
    groups = [json.loads(line) for line in (args.data / "rerank.jsonl").open(encoding="utf-8")]
    train = [g for g in groups if g["split"] == "train"]
    dev = [g for g in groups if g["split"] == "dev"]
    negs = 7

    def encode(q: str, texts: list[str]):
        return tok.encode_batch([(q, te.best_window(q, t)) for t in texts])

    dev_rows, dev_owner, dev_gold = [], [], []
    for k, g in enumerate(dev):
        cands = g["pos"] + g["neg"]
        dev_rows += encode(g["query"], cands)
        dev_owner += [k] * len(cands)
        dev_gold += [1] * len(g["pos"]) + [0] * len(g["neg"])

    def mrr(logits) -> float:
        best: dict[int, list[tuple[float, int]]] = {}
        for o, z, y in zip(dev_owner, logits, dev_gold):
            best.setdefault(o, []).append((z, y))
        rr = []
        for lst in best.values():
            ranked = [y for _, y in sorted(lst, key=lambda t: -t[0])]
            rr.append(1.0 / (ranked.index(1) + 1) if 1 in ranked else 0.0)
        return round(float(np.mean(rr)), 4)

    model = recover_mapped(REPO / "citebound/models/answerability/model.onnx", maps["answerability"]).to(device)
    results = {"train_queries": len(train), "dev_queries": len(dev), "dev_candidates": len(dev_rows),
               "dev_mrr_answerability_init": mrr(score(model, dev_rows, device))}  # fmt: skip
    log(f"reranker init: {results}")
    # training items: per group and epoch, one positive and 7 negatives drawn from the BM25 list
    items = []
    rng = random.Random(args.seed)
    for epoch in range(args.rerank_epochs):
        for g in train:
            for pos in g["pos"]:
                ns = rng.sample(g["neg"], min(negs, len(g["neg"])))
                if len(ns) == negs:
                    items.append((g["query"], [pos, *ns]))
    rng.shuffle(items)
    encoded = [encode(q, texts) for q, texts in items]
    per_batch = max(1, args.batch_size // (negs + 1))
    batches = [list(range(b, min(b + per_batch, len(encoded)))) for b in range(0, len(encoded), per_batch)]
    ce = torch.nn.CrossEntropyLoss()

    def step_loss(idx):
        rows = [r for i in idx for r in encoded[i]]
        z = model(*to_device_batch(rows, device)).float().view(len(idx), negs + 1)
        return ce(z, torch.zeros(len(idx), dtype=torch.long, device=device)), len(rows)

    info = run_steps(model, batches, step_loss, args.rerank_lr, args.budget_seconds * (1 - args.entail_share), device, "reranker")
    results.update(info)
    results["dev_mrr_trained"] = mrr(score(model, dev_rows, device))
    log(f"reranker: {results}")
    return results, {k: v.detach().cpu() for k, v in model.state_dict().items()}


def export_int8(state, out: Path, probes, label: str) -> None:
    from export_onnx import export

    model = build_model()
    model.load_state_dict(state)
    export(None, out, probes=probes, fp32=out.with_name(out.stem + "_fp32.onnx"), label=label, model=model)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True, help="folder with shared/ (data copy) and rerank.jsonl.gz")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--budget-seconds", type=float, default=420)
    ap.add_argument("--entail-share", type=float, default=0.75, help="share of the budget for the two entailment runs")
    ap.add_argument("--entail-pairs", type=int, default=300000)
    ap.add_argument("--entail-epochs", type=int, default=2)
    ap.add_argument("--entail-lr", type=float, default=2e-5)
    ap.add_argument("--rerank-epochs", type=int, default=4)
    ap.add_argument("--rerank-lr", type=float, default=3e-5)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--skip", default="", help="comma list: entailment, reranker")
    args = ap.parse_args()
    os.environ["CITEBOUND_SHARED_DATA"] = str(args.data / "shared")  # read by train_entailment.py and pairs.py
    from tokenizers import Tokenizer

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(args.seed)
    log(f"device {device} {torch.cuda.get_device_name() if device.type == 'cuda' else ''} torch {torch.__version__}")
    maps = json.loads((args.data / "onnx_maps.json").read_text())
    tok = Tokenizer.from_file(str(REPO / "citebound/models/minilm/tokenizer.json"))
    tok.no_padding()  # the file pads every pair to 128; batches are padded to their longest pair instead
    args.out.mkdir(parents=True, exist_ok=True)
    report: dict = {"args": {k: str(v) for k, v in vars(args).items()}}
    skip = set(filter(None, args.skip.split(",")))
    from export_onnx import PROBES as ENTAIL_PROBES

    if "reranker" not in skip:
        report["reranker"], state = train_reranker(args, maps, tok, device)
        from export_answerability import PROBES as QA_PROBES

        export_int8(state, args.out / "reranker.onnx", QA_PROBES, "P(relevant)")
        (args.out / "report.json").write_text(json.dumps(report, indent=1))
    if "entailment" not in skip:
        report["entailment"], state = train_entailment(args, maps, tok, device)
        (args.out / "report.json").write_text(json.dumps(report, indent=1))
        export_int8(state, args.out / "entailment.onnx", ENTAIL_PROBES, "P(supported)")
    report["seconds"] = round(time.time() - T0, 1)
    report["log"] = LOG
    (args.out / "report.json").write_text(json.dumps(report, indent=1))
    log("done")


if __name__ == "__main__":
    main()
