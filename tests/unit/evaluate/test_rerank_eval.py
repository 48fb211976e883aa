"""`eval retrieval --mode hybrid+rerank` on a tiny BEIR folder, with a real cross-encoder.

The answerability model stands in for the reranker (same inputs: question, text): the test checks what
the evaluation reports and how, not how good a reranker is.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from citebound.errors import InputError
from citebound.evaluate.retrieval_eval import evaluate_reranking, evaluate_retrieval
from citebound.models import ANSWERABILITY_DIR

STAND_IN = ANSWERABILITY_DIR / "model.onnx"


def test_hybrid_then_one_result_per_depth(beir_dir):
    results = evaluate_reranking(beir_dir, depths=(3, 1), model_path=STAND_IN, progress=False)
    assert [r["mode"] for r in results] == ["hybrid", "hybrid+rerank", "hybrid+rerank"]
    assert [r.get("rerank_depth") for r in results] == [None, 1, 3]
    hybrid, one, three = results
    plain = evaluate_retrieval(beir_dir, mode="hybrid", progress=False)
    for metric in ("ndcg@10", "recall@10", "mrr@10", "map"):
        assert hybrid[metric] == plain[metric]
        assert one[metric] == hybrid[metric]  # reordering one candidate changes nothing
    # "What causes scurvy?": d1 (scurvy, grade 2) is what a question-answering model puts first
    assert three["per_query"]["q1"]["mrr@10"] == 1.0
    for r in (one, three):
        assert r["reranker"].endswith("model.onnx") and r["queries"] == 3
        assert 0 <= r["rerank_ms_p50"] <= r["rerank_ms_p95"] and r["rerank_ms_mean"] > 0
        assert 0 <= r["rerank_cpu_ms_p50"] <= r["rerank_cpu_ms_p95"] and r["rerank_cpu_ms_mean"] > 0
        assert r["windows_per_chunk"] >= 1
    assert three["rerank_ms_mean"] >= one["rerank_ms_mean"]  # more chunks scored, never less time


def test_each_way_of_combining_from_one_scoring_pass(beir_dir):
    results = evaluate_reranking(beir_dir, depths=(3,), model_path=STAND_IN, progress=False,
                                 combines=("replace", "rrf"), max_windows=1)
    assert [(r.get("rerank_combine"), r.get("rerank_depth")) for r in results] == [(None, None), ("replace", 3), ("rrf", 3)]
    assert all(r["rerank_max_windows"] == 1 and r["windows_per_chunk"] == 1 for r in results[1:])
    # both come from the same scores, so the same added time
    assert results[1]["rerank_ms_mean"] == results[2]["rerank_ms_mean"]
    with pytest.raises(InputError, match="combine"):
        evaluate_reranking(beir_dir, depths=(3,), model_path=STAND_IN, progress=False, combines=("mean",))


def test_interp_once_per_weight_from_the_same_scores(beir_dir):
    results = evaluate_reranking(beir_dir, depths=(3,), model_path=STAND_IN, progress=False,
                                 combines=("replace", "interp"), weights=(0.0, 1.0), max_windows=1)
    assert [(r.get("rerank_combine"), r.get("rerank_weight")) for r in results] == [
        (None, None), ("replace", None), ("interp", 0.0), ("interp", 1.0)]
    hybrid, replace, none, alone = results
    for q in hybrid["per_query"]:
        # share 0 keeps the fused order; share 1 is the reranker's order (its logits order as its probabilities)
        assert none["per_query"][q] == hybrid["per_query"][q]
        assert alone["per_query"][q] == replace["per_query"][q]
    assert len({r["rerank_ms_mean"] for r in results[1:]}) == 1
    with pytest.raises(InputError, match="weight"):
        evaluate_reranking(beir_dir, depths=(3,), model_path=STAND_IN, progress=False, combines=("interp",),
                           weights=(1.5,))


def test_only_the_queries_asked_for(beir_dir):
    results = evaluate_reranking(beir_dir, depths=(2,), model_path=STAND_IN, queries={"q2"}, progress=False)
    assert all(r["queries"] == 1 and set(r["per_query"]) == {"q2"} for r in results)
    with pytest.raises(InputError, match="among the ids asked for"):
        evaluate_reranking(beir_dir, depths=(2,), model_path=STAND_IN, queries={"nope"}, progress=False)
    with pytest.raises(InputError, match="positive integers"):
        evaluate_reranking(beir_dir, depths=(0, 5), model_path=STAND_IN, progress=False)


def _cli():
    import typer

    from citebound.cli import eval_app
    from citebound.cli import kb as kb_commands

    app = typer.Typer()
    app.add_typer(eval_app, name="eval")
    kb_commands.register(app)
    return app


def test_cli_hybrid_rerank(beir_dir, tmp_path):
    app = _cli()
    args = ["eval", "retrieval", "--data", str(beir_dir), "--mode", "hybrid+rerank", "--rerank-depth", "1,2",
            "--reranker-model", str(STAND_IN)]
    result = CliRunner().invoke(app, [*args, "--json", "--report", str(tmp_path / "rep")])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.strip().splitlines()]
    assert [(r["mode"], r.get("rerank_depth")) for r in rows] == [("hybrid", None), ("hybrid+rerank", 1), ("hybrid+rerank", 2)]
    report = json.loads((tmp_path / "rep.json").read_text())
    assert len(report["sections"][0]["table"]) == 3
    text = CliRunner().invoke(app, args)
    assert text.exit_code == 0 and "mode hybrid+rerank at depth 2" in text.stdout and "ms/query" in text.stdout
    bad = CliRunner().invoke(app, [*args[:-4], "--rerank-depth", "ten"])
    assert isinstance(bad.exception, InputError) and "--rerank-depth" in str(bad.exception)
    interp = CliRunner().invoke(app, [*args, "--rerank-combine", "interp", "--rerank-weight", "0.3,0.6"])
    assert interp.exit_code == 0 and "(interp 0.3)" in interp.stdout and "(interp 0.6)" in interp.stdout
    bad = CliRunner().invoke(app, [*args, "--rerank-combine", "interp", "--rerank-weight", "2"])
    assert isinstance(bad.exception, InputError) and "--rerank-weight" in str(bad.exception)
