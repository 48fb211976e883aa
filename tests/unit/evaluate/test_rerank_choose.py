"""bench/rerank_choose.py's rule: how the rerank depth, the way of combining and the `ask` default are
chosen from `evaluate_reranking`'s results (on held-out SciFact train queries, never a test split)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "bench" / "rerank_choose.py"
spec = importlib.util.spec_from_file_location("rerank_choose", SCRIPT)
rerank_choose = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rerank_choose)


def row(depth: int, combine: str, ndcg: float, cpu_ms: float, weight: float | None = None) -> dict:
    r = {"mode": "hybrid+rerank", "rerank_depth": depth, "rerank_combine": combine, "ndcg@10": ndcg,
         "rerank_cpu_ms_p50": cpu_ms, "rerank_ms_p50": 2 * cpu_ms}
    return {**r, "rerank_weight": weight} if weight is not None else r


HYBRID = {"mode": "hybrid", "ndcg@10": 0.760}
# what the third reranker's dev run looked like: the best nDCG@10 at depth 20, over the CPU budget; depth
# 10 within it and 0.015 above hybrid
RESULTS = [HYBRID, row(5, "replace", 0.750, 80), row(10, "replace", 0.752, 160), row(20, "replace", 0.748, 320),
           row(5, "interp", 0.768, 80, 0.5), row(10, "interp", 0.775, 160, 0.5), row(10, "interp", 0.771, 160, 0.3),
           row(20, "interp", 0.786, 320, 0.3)]


def test_budget_first_chooses_among_what_fits_the_budget():
    c = rerank_choose.choose(RESULTS, tolerance=0.005, min_gain=0.01, budget_ms=250)
    assert (c["rerank_depth"], c["rerank_combine"], c["rerank_weight"]) == (10, "interp", 0.5)
    assert c["rerank_by_default"] is True and c["ndcg@10_gain_over_hybrid"] == 0.015
    # the rule as first written picks depth 20 by quality, then turns the default off for its cost
    first = c["quality_first"]
    assert (first["rerank_depth"], first["rerank_by_default"]) == (20, False)
    assert rerank_choose.choose(RESULTS, 0.005, 0.01, 250, budget_first=False) == first


def test_the_default_stays_off_without_the_gain_or_when_nothing_fits():
    small = [HYBRID, row(5, "rrf", 0.765, 80), row(10, "rrf", 0.766, 160)]
    c = rerank_choose.choose(small, 0.005, 0.01, 250)
    assert (c["rerank_depth"], c["rerank_combine"], c["rerank_by_default"]) == (5, "rrf", False)  # +0.005 only
    costly = [HYBRID, row(20, "interp", 0.800, 320, 0.3)]
    c = rerank_choose.choose(costly, 0.005, 0.01, 250)
    assert c["rerank_depth"] == 20 and c["rerank_by_default"] is False and "quality_first" not in c
    # at equal depth and within the tolerance, replace before rrf before interp
    tie = [HYBRID, row(10, "interp", 0.780, 160, 0.5), row(10, "replace", 0.778, 160)]
    assert rerank_choose.choose(tie, 0.005, 0.01, 250)["rerank_combine"] == "replace"
