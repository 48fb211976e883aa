"""The fuzz suite of tests/unit/fuzz, run for minutes instead of a CI budget: inputs tried and failures.

Same properties as tests/unit/fuzz/test_fuzz.py (tests/unit/fuzz/properties.py): each entry point for
user input may refuse input only with citebound's own errors; anything else is a failure. The time is
shared equally between the properties; each runs in rounds of `--round` examples with a new seed per
round (printed, so any failure can be replayed), generation and shrinking on.

    .venv/bin/python bench/fuzz_bench.py --seconds 180 [--only verify_answer,chunker] [--json]

Reports per property: inputs tried (calls of the property, shrinking included), rounds, distinct
failures (exception type and first line), and the minimal failing input hypothesis found for each.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "unit" / "fuzz"))

import properties as p  # noqa: E402

PROPERTIES = {
    "verify_answer": (p.prop_verify_answer, (p.texts, p.sources, p.thresholds, p.checkers)),
    "grounded_answer_json": (p.prop_grounded_answer, (p.json_lines_text, p.sources)),
    "check_claim": (p.prop_check_claim, (p.texts, st.lists(p.source_ids, max_size=3), p.sources, p.thresholds,
                                         p.checkers)),
    "citation_parser": (p.prop_citations, (p.texts,)),
    "chunker": (p.prop_chunker, (p.texts, st.integers(-2, 400), st.integers(-2, 400))),
    "sources_reader": (p.prop_sources_reader, (st.one_of(p.json_lines_text, p.texts),)),
    "beir_reader": (p.prop_beir_reader, (p.raw_bytes,)),
    "questions_reader": (p.prop_questions_reader, (p.raw_bytes,)),
    "ingest_readers": (p.prop_collect, (p.raw_bytes, st.sampled_from([".txt", ".md", ".html", ".pdf", ".jsonl"]))),
}


def fuzz(name: str, seconds: float, round_size: int, first_seed: int) -> dict:
    fn, strategies = PROPERTIES[name]
    calls = 0

    def counted(args: tuple) -> None:
        nonlocal calls
        calls += 1
        fn(*args)

    failures: dict[str, dict] = {}
    rounds = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        round_seed = first_seed + rounds
        test = seed(round_seed)(settings(
            max_examples=round_size, deadline=None, database=None, derandomize=False,
            phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck),
        )(given(st.tuples(*strategies))(counted)))
        rounds += 1
        try:
            test()
        except Exception as exc:  # noqa: BLE001 - every failure is recorded, then fuzzing goes on
            for one in getattr(exc, "exceptions", None) or [exc]:  # hypothesis groups distinct failures
                key = f"{type(one).__name__}: {str(one).splitlines()[0][:160] if str(one) else ''}"
                notes = [n for n in getattr(one, "__notes__", []) if n.strip()]
                entry = failures.setdefault(key, {"count": 0, "seed": round_seed, "example": "\n".join(notes)[:1500]})
                entry["count"] += 1
    return {"inputs": calls, "rounds": rounds, "failures": failures}


def main() -> None:
    warnings.simplefilter("ignore")  # hypothesis warns about long reprs of generated inputs
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=180.0, help="total time, shared by the properties")
    parser.add_argument("--round", type=int, default=300, help="examples per round (one seed)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first round of each property")
    parser.add_argument("--only", default="", help="comma-separated property names")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or list(PROPERTIES)
    t0 = time.monotonic()
    results = {name: fuzz(name, args.seconds / len(names), args.round, args.seed) for name in names}
    summary = {"seconds": round(time.monotonic() - t0, 1), "inputs": sum(r["inputs"] for r in results.values()),
               "failures": sum(len(r["failures"]) for r in results.values()), "properties": results}
    if args.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
        return
    for name, r in results.items():
        print(f"{name:<22} {r['inputs']:>8} inputs  {r['rounds']:>4} rounds  {len(r['failures'])} distinct failures")
        for key, f in r["failures"].items():
            print(f"    {key} (in {f['count']} rounds; first seed {f['seed']})")
            for line in f["example"].splitlines()[:6]:
                print(f"        {line[:200]}")
    print(f"total: {summary['inputs']} inputs, {summary['failures']} distinct failures, {summary['seconds']} s")


if __name__ == "__main__":
    main()
