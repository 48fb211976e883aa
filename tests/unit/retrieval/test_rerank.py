"""The reranking stage on real text with a real model.

The trained reranker ships in citebound/models/reranker/; these tests run the stage with the
answerability cross-encoder (question, sentence -> P(answers)), a real model with the same inputs, so
they test the plumbing (windows, ordering, depth, the Retriever hook, `ask --rerank`, the evaluation)
whichever reranker is installed. No figure of reranking quality is asserted here.
"""

from __future__ import annotations

import json

import pytest

from citebound import config
from citebound.errors import InputError, ModelUnavailableError
from citebound.models import ANSWERABILITY_DIR
from citebound.retrieval import CrossEncoderReranker, Retriever
from citebound.retrieval.rerank import order_by_interp, order_by_rrf, order_by_scores, reorder
from citebound.types import Chunk, Hit

STAND_IN = ANSWERABILITY_DIR / "model.onnx"

FILLER = ("Owls are nocturnal birds of prey that hunt small mammals at night using silent flight over open fields. "
          "Their feathers have soft edges that muffle the sound of their wings. ") * 6
LONG_CHUNK = FILLER + "Scurvy is caused by a lack of vitamin C in the diet of sailors on long voyages."


@pytest.fixture(scope="module")
def reranker():
    # every window of a chunk, the reranker's order alone: what these tests check (the defaults are
    # one window and "interp", config.RERANK_MAX_WINDOWS and RERANK_COMBINE)
    return CrossEncoderReranker(STAND_IN, depth=3, max_windows=0, combine="replace").warm_up()


def test_order_by_scores_reorders_the_head_only():
    assert order_by_scores(["a", "b", "c", "d"], [0.1, 0.9, 0.5], 3) == ["b", "c", "a", "d"]
    assert order_by_scores(["a", "b", "c"], [0.5, 0.5, 0.9], 2) == ["a", "b", "c"]  # ties keep the given order
    assert order_by_scores(["a", "b"], [0.2, 0.7, 0.9], 5) == ["b", "a"]  # depth beyond the list
    assert order_by_scores([], [], 3) == []


def test_order_by_rrf_weighs_both_orders_equally():
    # fused order a, b, c; the model's order c, b, a: a and c tie (1/61 + 1/63), the given order settles
    # it; b, second in both, scores 2/62, a little less; d, beyond the depth, stays where it was
    assert order_by_rrf(["a", "b", "c", "d"], [0.1, 0.5, 0.9], 3) == ["a", "c", "b", "d"]
    # a chunk both put high stays first; the model alone would move c above a
    assert order_by_rrf(["a", "b", "c"], [0.8, 0.1, 0.9], 3)[0] == "a"
    assert order_by_scores(["a", "b", "c"], [0.8, 0.1, 0.9], 3)[0] == "c"
    # one that both put last stays last
    assert order_by_rrf(["a", "b", "c"], [0.9, 0.7, 0.1], 3) == ["a", "b", "c"]
    assert order_by_rrf(["a", "b"], [0.2, 0.7, 0.9], 5) == ["a", "b"]  # depth beyond the list; a tie
    assert order_by_rrf([], [], 3) == []


def test_order_by_interp_weighs_how_sure_each_ranker_is():
    fused = [0.033, 0.032, 0.016, 0.015]  # a and b close in the fused list; c far behind
    # the model is sure of c (logit +4.6) and finds a and b alike (-1.4, -0.8): scaled to [0, 1] over the
    # three, model a 0 · b 0.09 · c 1, fused a 1 · b 0.94 · c 0; at share 0.6: a 0.40 · b 0.43 · c 0.60
    assert order_by_interp(["a", "b", "c", "d"], [0.2, 0.3, 0.99], fused, 3, 0.6) == ["c", "b", "a", "d"]
    # a small share leaves the fused order alone unless the model is far surer
    assert order_by_interp(["a", "b", "c", "d"], [0.2, 0.3, 0.99], fused, 3, 0.1) == ["a", "b", "c", "d"]
    # where the model puts c barely above b (0.31 against 0.30), c no longer jumps b: the rank-only RRF
    # rule sees the same model order in both cases and cannot tell them apart
    assert order_by_interp(["a", "b", "c"], [0.2, 0.3, 0.31], fused, 3, 0.6) == ["b", "c", "a"]
    assert order_by_rrf(["a", "b", "c"], [0.2, 0.3, 0.99], 3) == order_by_rrf(["a", "b", "c"], [0.2, 0.3, 0.31], 3)
    # share 1: the reranker's order; share 0: the fused order; ties keep the given order
    assert order_by_interp(["a", "b", "c"], [0.2, 0.3, 0.99], fused, 3, 1.0) == ["c", "b", "a"]
    assert order_by_interp(["a", "b", "c"], [0.2, 0.3, 0.99], fused, 3, 0.0) == ["a", "b", "c"]
    assert order_by_interp(["a", "b"], [0.5, 0.5], [0.02, 0.02], 2, 0.5) == ["a", "b"]
    # saturated probabilities still order by their logits, not as a tie
    assert order_by_interp(["a", "b"], [0.9999, 0.999999], [0.02, 0.02], 2, 1.0) == ["b", "a"]
    assert order_by_interp([], [], [], 3, 0.5) == []
    assert reorder(["a", "b", "c"], [0.2, 0.3, 0.99], 3, "interp", fused[:3], 0.6) == ["c", "b", "a"]
    with pytest.raises(InputError, match="fused scores"):
        reorder(["a", "b"], [0.1, 0.2], 2, "interp")
    for bad in (-0.1, 1.5, True, "half"):
        with pytest.raises(InputError, match="weight"):
            order_by_interp(["a"], [0.5], [0.1], 1, bad)
        with pytest.raises(InputError, match="weight"):
            CrossEncoderReranker(STAND_IN, combine="interp", weight=bad)


def test_rerank_interp_reads_the_fused_score_of_each_hit(reranker):
    question = "What causes scurvy?"
    texts = ["Owls hunt small mammals at night.", "Scurvy is caused by a lack of vitamin C.", "Rome is in Italy."]
    hits = [Hit(f"S{i}", Chunk(f"c{i}", "doc", 1, 0, len(t), t), {"fused": f}) for i, (t, f) in
            enumerate(zip(texts, [0.033, 0.020, 0.019]), 1)]
    probs = reranker.score(question, texts)
    assert probs[1] > probs[0] and probs[1] > probs[2]
    interp = CrossEncoderReranker(encoder=reranker.encoder, depth=3, combine="interp", weight=0.8)
    out = interp.rerank(question, hits)
    assert [h.chunk.text for h in out][0] == texts[1] and all("rerank" in h.scores for h in out)
    # share 0 keeps the fused order whatever the model says
    keep = CrossEncoderReranker(encoder=reranker.encoder, depth=3, combine="interp", weight=0.0)
    assert [h.source_id for h in keep.rerank(question, hits)] == ["S1", "S2", "S3"]


def test_an_unknown_way_of_combining_is_an_input_error():
    with pytest.raises(InputError, match="combine"):
        CrossEncoderReranker(STAND_IN, combine="average")


def test_a_long_chunk_is_scored_by_its_best_sentence_window_not_its_first_128_tokens(reranker):
    question = "What causes scurvy?"
    windows = reranker.windows(question, LONG_CHUNK)
    assert len(windows) > 1
    tok = reranker.encoder.tokenizer
    for w in windows:  # each window fits the model beside the question, whole sentences only
        assert len(tok.encode(question, w).ids) <= reranker.encoder.max_length
        assert w.endswith(".")
    assert "Scurvy is caused" in windows[-1]
    score = reranker.score(question, [LONG_CHUNK])[0]
    truncated = reranker.encoder.score_pairs([(question, LONG_CHUNK)])[0]  # what blind truncation would read
    assert score == pytest.approx(max(reranker.encoder.score_pairs([(question, w) for w in windows])))
    assert score > truncated + 0.2, (score, truncated)


def test_scores_are_a_function_of_the_pair_alone(reranker):
    question = "Which birds hunt at night?"
    texts = [FILLER, "Paris is the capital of France.", LONG_CHUNK]
    together = reranker.score(question, texts)
    alone = [CrossEncoderReranker(STAND_IN, max_windows=0).score(question, [t])[0] for t in texts]
    assert together == pytest.approx(alone, abs=1e-9)
    assert reranker.score(question, ["", "   "]) == [0.0, 0.0]  # no sentence, nothing to score


def _hit(n: int, text: str) -> Hit:
    return Hit(f"S{n}", Chunk(f"c{n}", f"doc{n}", 1, 0, len(text), text), {"fused": 1.0 / (60 + n)})


def test_rerank_orders_its_depth_and_keeps_the_rest_in_fused_order(reranker):
    texts = ["Paris is the capital of France.", "Honey bees make honey in the hive.",
             "Scurvy is caused by a lack of vitamin C.", "Owls hunt at night.", "Python is a language."]
    hits = [_hit(i, t) for i, t in enumerate(texts, 1)]
    out = reranker.rerank("What causes scurvy?", hits)  # depth 3: the first three are rescored
    assert [h.chunk.id for h in out[:1]] == ["c3"]
    assert sorted(h.chunk.id for h in out[:3]) == ["c1", "c2", "c3"]
    assert [h.chunk.id for h in out[3:]] == ["c4", "c5"]
    head = [h.scores["rerank"] for h in out[:3]]
    assert head == sorted(head, reverse=True)
    assert all("rerank" not in h.scores and "fused" in h.scores for h in out[3:])


class _Recording(CrossEncoderReranker):
    """The real reranker, noting how many candidates the retriever handed it."""

    seen: list[int] = []

    def rerank(self, question, hits):
        self.seen.append(len(hits))
        return super().rerank(question, hits)


def test_the_retriever_hands_the_reranker_its_depth_and_keeps_k(small_kb):
    reranker = _Recording(STAND_IN, depth=4)
    hits = Retriever(small_kb, mode="hybrid", reranker=reranker).retrieve("Who showed that citrus fruit cures scurvy?", k=2)
    assert reranker.seen == [4]  # five chunks in the KB, depth 4
    assert [h.source_id for h in hits] == ["S1", "S2"]
    assert hits[0].chunk.doc_id == "docs/scurvy.txt"
    assert all("rerank" in h.scores and "fused" in h.scores for h in hits)
    assert hits[0].scores["rerank"] >= hits[1].scores["rerank"]
    reranker.seen.clear()
    assert len(Retriever(small_kb, mode="hybrid", reranker=reranker).retrieve("owls at night", k=5)) == 5
    assert reranker.seen == [5]  # never fewer than k


def test_bad_settings_and_a_missing_model_are_clear_errors(tmp_path, monkeypatch):
    from citebound.retrieval import shared_reranker

    for depth in (0, -3, 2.5, True):
        with pytest.raises(InputError, match="depth"):
            CrossEncoderReranker(STAND_IN, depth=depth)
    with pytest.raises(ModelUnavailableError, match="nothing.onnx"):
        CrossEncoderReranker(tmp_path / "nothing.onnx").warm_up()
    with pytest.raises(ModelUnavailableError, match="CITEBOUND_RERANKER_MODEL"):
        shared_reranker(tmp_path / "nothing.onnx")
    with pytest.raises(InputError, match="empty"):
        CrossEncoderReranker(STAND_IN).score("  ", ["text"])


def test_rerank_settings_come_from_config_and_the_environment(monkeypatch):
    monkeypatch.delenv("CITEBOUND_RERANK", raising=False)
    monkeypatch.delenv("CITEBOUND_RERANK_DEPTH", raising=False)
    assert config.rerank_enabled() is config.RERANK and config.rerank_depth() == config.RERANK_DEPTH
    monkeypatch.setenv("CITEBOUND_RERANK", "on")
    monkeypatch.setenv("CITEBOUND_RERANK_DEPTH", "7")
    assert config.rerank_enabled() is True and config.rerank_depth() == 7
    assert CrossEncoderReranker(STAND_IN).depth == 7
    monkeypatch.setenv("CITEBOUND_RERANK", "0")
    monkeypatch.setenv("CITEBOUND_RERANK_DEPTH", "many")
    assert config.rerank_enabled() is False and config.rerank_depth() == config.RERANK_DEPTH


def test_the_rerank_weight_comes_from_the_environment(monkeypatch, reranker):
    """CITEBOUND_RERANK_WEIGHT sets the reranker's share wherever `ask` runs (docs/benchmarks.md: depth 20
    at 0.3 is the mode dev chose by quality alone); anything but a number from 0 to 1 leaves the default."""
    monkeypatch.delenv("CITEBOUND_RERANK_WEIGHT", raising=False)
    assert config.rerank_weight() == config.RERANK_WEIGHT
    for raw, weight in (("0.3", 0.3), ("0", 0.0), ("1", 1.0), ("1.5", config.RERANK_WEIGHT),
                        ("-0.2", config.RERANK_WEIGHT), ("nan", config.RERANK_WEIGHT), ("half", config.RERANK_WEIGHT)):
        monkeypatch.setenv("CITEBOUND_RERANK_WEIGHT", raw)
        assert config.rerank_weight() == weight, raw
    # the same hits, the reranker built as `ask` builds it (no weight given): the environment decides the order
    question = "What causes scurvy?"
    texts = ["Owls hunt small mammals at night.", "Scurvy is caused by a lack of vitamin C.", "Rome is in Italy."]
    hits = [Hit(f"S{i}", Chunk(f"c{i}", "doc", 1, 0, len(t), t), {"fused": f}) for i, (t, f) in
            enumerate(zip(texts, [0.033, 0.020, 0.019]), 1)]
    order = {}
    for raw in ("0", "0.8"):
        monkeypatch.setenv("CITEBOUND_RERANK_WEIGHT", raw)
        ranker = CrossEncoderReranker(encoder=reranker.encoder, depth=3, combine="interp")
        assert ranker.weight == float(raw)
        order[raw] = [h.source_id for h in ranker.rerank(question, hits)]
    assert order["0"] == ["S1", "S2", "S3"] and order["0.8"][0] == "S2"
    # an explicit weight wins over the environment
    assert CrossEncoderReranker(encoder=reranker.encoder, depth=3, weight=0.3).weight == 0.3


def test_the_reranker_runs_on_its_own_thread_count(monkeypatch):
    """One pair per call: the reranker's session takes RERANK_THREADS (1), not the embedder's CITEBOUND_THREADS."""
    monkeypatch.delenv("CITEBOUND_RERANK_THREADS", raising=False)
    monkeypatch.setenv("CITEBOUND_THREADS", "2")
    assert config.rerank_threads() == config.RERANK_THREADS == 1
    assert CrossEncoderReranker(STAND_IN).encoder.threads == 1
    monkeypatch.setenv("CITEBOUND_RERANK_THREADS", "3")
    assert CrossEncoderReranker(STAND_IN).encoder.threads == 3
    assert CrossEncoderReranker(STAND_IN, threads=2).encoder.threads == 2


def test_ask_reranks_when_asked(small_kb):
    """`citebound ask --rerank` through the real entry point: the sources carry the reranker's score."""
    import os
    import subprocess
    import sys

    def ask(*flags: str) -> dict:
        proc = subprocess.run(
            [sys.executable, "-m", "citebound.cli", "ask", "Who showed that citrus cures scurvy?", "--kb",
             str(small_kb.path), "--mode", "bm25", "--json", "--no-audit", *flags],
            capture_output=True, text=True, timeout=300,
            env={**os.environ, "OMP_NUM_THREADS": "1", "CITEBOUND_RERANKER_MODEL": str(STAND_IN)},
        )
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    on = ask("--rerank", "--rerank-depth", "3")["sources"]
    assert on and all("rerank" in s["scores"] for s in on)
    assert all("rerank" not in s["scores"] for s in ask("--no-rerank")["sources"])


def test_ask_takes_the_rerank_weight_from_its_flag_or_the_environment(small_kb):
    """`citebound ask --rerank-weight W` (else CITEBOUND_RERANK_WEIGHT) through the real entry point: at 1
    the reranked head is in the reranker's order, at 0 in the fused order, and here the two differ."""
    import os
    import subprocess
    import sys

    def ask(*flags: str, weight: str) -> list[dict]:
        proc = subprocess.run(
            [sys.executable, "-m", "citebound.cli", "ask", "Which animals hunt at night?", "--kb", str(small_kb.path),
             "--mode", "hybrid", "--json", "--no-audit", "--rerank", "--rerank-depth", "5", *flags],
            capture_output=True, text=True, timeout=300,
            env={**os.environ, "OMP_NUM_THREADS": "1", "CITEBOUND_RERANKER_MODEL": str(STAND_IN),
                 "CITEBOUND_RERANK_WEIGHT": weight},
        )
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)["sources"]

    def descending(values: list[float]) -> bool:
        return all(a >= b for a, b in zip(values, values[1:]))

    by_model = ask("--rerank-weight", "1", weight="0")  # the flag wins over the environment
    by_fused = ask(weight="0")
    assert len(by_model) == len(by_fused) == 5
    assert descending([s["scores"]["rerank"] for s in by_model])
    assert descending([s["scores"]["fused"] for s in by_fused])
    assert not descending([s["scores"]["rerank"] for s in by_fused])
