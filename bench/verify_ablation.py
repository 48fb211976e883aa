"""Dev-split ablation of the deterministic cascade: what each layer adds (design choices were made here).

    python bench/verify_ablation.py [--data ../shared/data/claims]

Prints balanced accuracy on each set's dev.jsonl at the dev-optimal threshold, for the plain lexical
baseline and for the cascade with its layers added one at a time. Reads no test split.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from citebound.verify.batch import checker_threshold, predict, read_rows
from citebound.verify.cascade import Cascade
from citebound.verify.checkers import make_checker

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "claims"
VARIANTS = {
    "plain lexical": lambda: make_checker("lexical"),
    "+stems +numbers (whole source)": lambda: Cascade(scope="source", pair_weight=0.0, negation=False),
    "+blend with best window": lambda: Cascade(pair_weight=0.0, negation=False),
    "+word pairs 0.25": lambda: Cascade(negation=False),
    "+negation = deterministic": lambda: Cascade(),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = ap.parse_args()
    sets = sorted(p for p in args.data.iterdir() if (p / "dev.jsonl").is_file())
    results: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for folder in sets:
        rows = read_rows(folder / "dev.jsonl")
        for name, make in VARIANTS.items():
            predictions, _ = predict(rows, make())
            results[name].append(checker_threshold(predictions)[1])
    print("| variant (dev balanced accuracy) | " + " | ".join(p.name for p in sets) + " |")
    print("|---|" + "---|" * len(sets))
    for name, values in results.items():
        print(f"| {name} | " + " | ".join(f"{v:.3f}" for v in values) + " |")


if __name__ == "__main__":
    main()
