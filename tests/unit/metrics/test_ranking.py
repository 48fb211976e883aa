"""Ranking metrics: hand-worked cases per metric, names, and cross-checks against ranx and trec_eval."""

from __future__ import annotations

import random

import pytest

import citebound
from citebound.errors import InputError
from citebound.metrics import (
    average_precision,
    dcg,
    evaluate,
    mean_metrics,
    ndcg_at_k,
    parse_metric,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
)


def test_public_name():
    assert citebound.metrics.ndcg_at_k is ndcg_at_k
    assert not hasattr(citebound.metrics, "rrf_score")  # RRF is fusion (citebound.retrieval.fusion), not a metric


def test_seed_example_dcg_exponential():
    assert dcg([1, 0, 2], gain="exponential") == pytest.approx(2.5)
    assert dcg([1, 0, 2], gain="linear") == pytest.approx(1 + 2 / 2)


# One ranking, worked by hand: relevant b (grade 1) at rank 2, d (grade 2) at rank 4, z (grade 1) never.
RANKED = ["a", "b", "c", "d"]
QRELS = {"b": 1, "d": 2, "z": 1}


def test_recall_at_k():
    assert recall_at_k(RANKED, QRELS, 2) == pytest.approx(1 / 3)  # b of {b, d, z}
    assert recall_at_k(RANKED, QRELS, 4) == pytest.approx(2 / 3)
    assert recall_at_k(RANKED, {"a": 0}, 4) == 0.0  # nothing relevant


def test_precision_at_k():
    assert precision_at_k(RANKED, QRELS, 2) == 0.5
    assert precision_at_k(RANKED, QRELS, 4) == 0.5
    assert precision_at_k(RANKED, QRELS, 10) == pytest.approx(0.2)  # divided by k, as trec_eval


def test_reciprocal_rank():
    assert reciprocal_rank(RANKED, QRELS) == 0.5  # first relevant id at rank 2
    assert reciprocal_rank(RANKED, QRELS, k=1) == 0.0
    assert reciprocal_rank(["b"], QRELS) == 1.0


def test_average_precision():
    # precision at b's rank 2 is 1/2, at d's rank 4 is 2/4; z never retrieved counts 0; three relevant ids
    assert average_precision(RANKED, QRELS) == pytest.approx((1 / 2 + 2 / 4) / 3)
    assert average_precision(RANKED, QRELS, k=2) == pytest.approx((1 / 2) / 3)


def test_dcg_states_its_gain():
    # grades 1, 0, 2 at ranks 1..3: linear 1/log2(2) + 2/log2(4) = 2; exponential 1 + 3/2 = 2.5
    assert dcg([1, 0, 2], gain="linear") == pytest.approx(2.0)
    assert dcg([1, 0, 2], gain="exponential") == pytest.approx(2.5)
    with pytest.raises(InputError):
        dcg([1], gain="quadratic")


def test_hand_worked_cases():
    ranked, qrels = RANKED, QRELS
    ideal_linear = 2 + 1 / 1.5849625007211563 + 1 / 2
    assert ndcg_at_k(ranked, qrels, 10) == pytest.approx((1 / 1.5849625007211563 + 2 / 2.321928094887362) / ideal_linear)
    assert ndcg_at_k(["d", "b", "z"], qrels, 3) == pytest.approx(1.0)
    assert ndcg_at_k(ranked, {"a": 0}, 10) == 0.0


def test_metric_names_parse_and_bad_names_are_refused():
    assert parse_metric("NDCG@3")(["a"], {"a": 1}) == 1.0
    assert parse_metric("mrr")(["x", "a"], {"a": 1}) == 0.5
    for bad in ("ndcg", "recall", "f1@10", "ndcg@0", "ndcg@x"):
        with pytest.raises(InputError):
            parse_metric(bad)
    with pytest.raises(InputError):
        evaluate({}, {}, ["ndcg@10"], gain="quadratic")


def test_evaluate_skips_unjudged_queries_and_scores_missing_runs_zero():
    per_query = evaluate({"q1": ["a", "a", "b"]}, {"q1": {"b": 1}, "q2": {"c": 1}, "q3": {"d": 0}}, ["mrr", "recall@2"])
    assert set(per_query) == {"q1", "q2"}
    assert per_query["q1"] == {"mrr": 0.5, "recall@2": 1.0}  # the repeated "a" counts once
    assert per_query["q2"] == {"mrr": 0.0, "recall@2": 0.0}
    assert mean_metrics(per_query) == {"mrr": 0.25, "recall@2": 0.5}


def _random_case(seed: int):
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(40)]
    qrels, run, scores = {}, {}, {}
    for q in range(25):
        qid = f"q{q}"
        judged = rng.sample(docs, rng.randint(1, 8))
        qrels[qid] = {d: rng.choice([0, 1, 2, 3]) for d in judged}
        if not any(qrels[qid].values()):
            qrels[qid][judged[0]] = 1
        ranked = rng.sample(docs, rng.randint(0, 30))
        run[qid] = ranked
        scores[qid] = {d: float(len(ranked) - i) for i, d in enumerate(ranked)}
    return qrels, run, scores


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_against_ranx(seed):
    ranx = pytest.importorskip("ranx")
    qrels, run, scores = _random_case(seed)
    ours = evaluate(run, qrels, ["ndcg@10", "map", "mrr@10", "recall@10"], gain="linear")
    ours_exp = evaluate(run, qrels, ["ndcg@10"], gain="exponential")
    rq = ranx.Qrels({q: {d: g for d, g in j.items()} for q, j in qrels.items()})
    rr = ranx.Run({q: s for q, s in scores.items() if s} | {q: {"__none__": 0.0} for q, s in scores.items() if not s})
    ref = ranx.evaluate(rq, rr, ["ndcg@10", "ndcg_burges@10", "map", "mrr@10", "recall@10"], return_mean=False)
    qids = list(rq.keys())
    for i, q in enumerate(qids):
        assert ours[q]["ndcg@10"] == pytest.approx(ref["ndcg@10"][i], abs=1e-9)
        assert ours_exp[q]["ndcg@10"] == pytest.approx(ref["ndcg_burges@10"][i], abs=1e-9)
        assert ours[q]["map"] == pytest.approx(ref["map"][i], abs=1e-9)
        assert ours[q]["mrr@10"] == pytest.approx(ref["mrr@10"][i], abs=1e-9)
        assert ours[q]["recall@10"] == pytest.approx(ref["recall@10"][i], abs=1e-9)


@pytest.mark.parametrize("seed", [4, 5])
def test_against_trec_eval(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run, scores = _random_case(seed)
    ours = evaluate(run, qrels, ["ndcg@10", "map", "recall@100", "precision@5"])
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recall.100", "P.5"})
    ref = evaluator.evaluate({q: s for q, s in scores.items()})
    for q in ours:
        r = ref.get(q, {"ndcg_cut_10": 0.0, "map": 0.0, "recall_100": 0.0, "P_5": 0.0})
        assert ours[q]["ndcg@10"] == pytest.approx(r["ndcg_cut_10"], abs=1e-4)
        assert ours[q]["map"] == pytest.approx(r["map"], abs=1e-4)
        assert ours[q]["recall@100"] == pytest.approx(r["recall_100"], abs=1e-4)
        assert ours[q]["precision@5"] == pytest.approx(r["P_5"], abs=1e-4)
