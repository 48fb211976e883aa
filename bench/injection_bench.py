"""How well citebound.text.injection tells instruction-like text from ordinary text.

Positives: instruction-like sentences written for this (tests/data/injection/), in the order they were
used: `positives_dev.txt` (used while writing the first rules); `positives_heldout.txt` (written before
those rules were tried on it: 50/59 caught; its misses then guided a second round of rules, so it is
development data now); `positives_heldout2.txt` (written before the second round, never looked at
while writing it: the held-out figure). Negatives: the ordinary sentences of the corpora under shared/data, split into
- `dev` negatives: the retrieval corpora (scifact, cran, cacm, med, time, adi) and the squad2 *dev*
  corpus — false positives here were read while writing the rules;
- `held-out` negatives: the evidence and claims of the claims sets' *dev* splits (climate_fever, qags,
  scifact, summedits, wice) — not looked at while writing the rules.
No test split is read. Sentences come from citebound.text.sentences (as the detector sees them in
`ask`), deduplicated, with at least 4 words.

    .venv/bin/python bench/injection_bench.py [--data ../shared/data] [--limit N] [--show 20] [--json]

Prints detection rate per positive set, false-positive rate per negative group with a 95 % Wilson
interval, and the false positives themselves (`--show`).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from citebound.text.injection import instruction_rules  # noqa: E402
from citebound.text.sentences import sentence_spans  # noqa: E402

INJECTION_DATA = ROOT / "tests" / "data" / "injection"
RETRIEVAL = ("scifact", "cran", "cacm", "med", "time", "adi")
CLAIMS = ("climate_fever", "qags", "scifact", "summedits", "wice")


def read_lines(path: Path) -> list[str]:
    return [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip() and not ln.startswith("#")]


def _sentences(text: str) -> list[str]:
    out = []
    for s, e in sentence_spans(text):
        sentence = " ".join(text[s:e].split())
        if len(sentence.split()) >= 4:
            out.append(sentence)
    return out


def negatives(data: Path) -> dict[str, list[str]]:
    """Ordinary sentences per group ("dev", "held-out"), deduplicated across groups."""
    dev: dict[str, None] = {}
    for name in RETRIEVAL:
        corpus = data / "retrieval" / name / "corpus.jsonl"
        if corpus.is_file():
            for line in corpus.open(encoding="utf-8"):
                row = json.loads(line)
                for s in _sentences(f"{row.get('title') or ''}\n\n{row.get('text') or ''}"):
                    dev.setdefault(s, None)
    squad = data / "qa" / "squad2" / "dev" / "corpus.jsonl"
    if squad.is_file():
        for line in squad.open(encoding="utf-8"):
            for s in _sentences(json.loads(line).get("text") or ""):
                dev.setdefault(s, None)
    held: dict[str, None] = {}
    for name in CLAIMS:
        path = data / "claims" / name / "dev.jsonl"
        if path.is_file():
            for line in path.open(encoding="utf-8"):
                row = json.loads(line)
                for field in ("evidence", "claim"):
                    for s in _sentences(row.get(field) or ""):
                        if s not in dev:
                            held.setdefault(s, None)
    return {"dev": list(dev), "held-out": list(held)}


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def run(data: Path, limit: int | None = None, seed: int = 0) -> dict:
    t0 = time.perf_counter()
    result: dict = {"positives": {}, "negatives": {}}
    for name in ("dev", "heldout", "heldout2"):
        sentences = read_lines(INJECTION_DATA / f"positives_{name}.txt")
        hits = [s for s in sentences if instruction_rules(s)]
        missed = [s for s in sentences if not instruction_rules(s)]
        result["positives"][name] = {"n": len(sentences), "detected": len(hits),
                                     "rate": len(hits) / len(sentences), "missed": missed}
    hard = read_lines(INJECTION_DATA / "hard_negatives.txt")
    result["hard_negatives"] = {"n": len(hard), "flagged": [s for s in hard if instruction_rules(s)]}
    for group, sentences in negatives(data).items():
        if limit is not None and len(sentences) > limit:
            sentences = random.Random(seed).sample(sentences, limit)
        flagged = [(s, instruction_rules(s)) for s in sentences if instruction_rules(s)]
        lo, hi = wilson(len(flagged), len(sentences))
        result["negatives"][group] = {
            "n": len(sentences), "flagged": len(flagged), "fpr": len(flagged) / max(1, len(sentences)),
            "fpr_95ci": [lo, hi], "by_rule": dict(Counter(r for _, rules in flagged for r in rules)),
            "examples": [{"sentence": s, "rules": rules} for s, rules in flagged],
        }
    all_n = sum(g["n"] for g in result["negatives"].values())
    all_k = sum(g["flagged"] for g in result["negatives"].values())
    result["negatives_all"] = {"n": all_n, "flagged": all_k, "fpr": all_k / max(1, all_n),
                               "fpr_95ci": list(wilson(all_k, all_n))}
    result["seconds"] = round(time.perf_counter() - t0, 1)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--limit", type=int, default=None, help="sample at most N sentences per negative group")
    parser.add_argument("--show", type=int, default=20, help="print up to N false positives per group")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.data, args.limit)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return
    for name, r in result["positives"].items():
        print(f"positives {name:<8} detected {r['detected']}/{r['n']} = {r['rate']:.1%}")
        for s in r["missed"]:
            print(f"    missed: {s}")
    hard = result["hard_negatives"]
    print(f"hard negatives   flagged {len(hard['flagged'])}/{hard['n']}")
    for s in hard["flagged"]:
        print(f"    flagged: {s}")
    for group, r in result["negatives"].items():
        lo, hi = r["fpr_95ci"]
        print(f"negatives {group:<9} flagged {r['flagged']}/{r['n']} = {r['fpr']:.3%} (95% CI {lo:.3%}-{hi:.3%}) "
              f"by rule {r['by_rule']}")
        for ex in r["examples"][: args.show]:
            print(f"    FP [{','.join(ex['rules'])}]: {ex['sentence'][:200]}")
    a = result["negatives_all"]
    print(f"negatives all    flagged {a['flagged']}/{a['n']} = {a['fpr']:.3%} "
          f"(95% CI {a['fpr_95ci'][0]:.3%}-{a['fpr_95ci'][1]:.3%}); {result['seconds']} s")


if __name__ == "__main__":
    main()
