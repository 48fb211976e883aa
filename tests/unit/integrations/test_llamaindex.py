"""The LlamaIndex adapter against the real `llama-index-core`: real Response, TextNode and query-engine
objects, the real verifier."""

from __future__ import annotations

import pytest

pytest.importorskip("llama_index.core")
from llama_index.core.base.response.schema import Response
from llama_index.core.evaluation import BaseEvaluator
from llama_index.core.query_engine import CustomQueryEngine
from llama_index.core.schema import NodeWithScore, TextNode

from citebound.integrations.llamaindex import (
    CiteboundEvaluator,
    CiteboundResponseFilter,
    VerifiedQueryEngine,
)
from citebound.text.citations import ABSTENTION_SENTENCE

NODES = [
    NodeWithScore(node=TextNode(text="Refunds are paid within five business days of the return."), score=0.9),
    NodeWithScore(node=TextNode(text="Express delivery arrives the next business day and costs 12 euros."), score=0.7),
]


def _response(text: str) -> Response:
    return Response(response=text, source_nodes=list(NODES), metadata={"engine": "test"})


def test_evaluator_is_a_base_evaluator_scoring_against_source_nodes():
    evaluator = CiteboundEvaluator()
    assert isinstance(evaluator, BaseEvaluator)
    good = evaluator.evaluate_response(query="refunds?", response=_response(
        "Refunds are paid within five business days [1]. Express delivery costs 12 euros [2]."))
    assert good.passing is True and good.score == 1.0 and not good.invalid_result
    bad = evaluator.evaluate_response(query="refunds?", response=_response(
        "Refunds are paid within ten business days. Express delivery costs 12 euros."))
    assert bad.passing is False and bad.score == 0.5
    assert "1 of 2 claims supported" in bad.feedback and "does not state the number 10" in bad.feedback


def test_evaluator_threshold_abstention_and_empty():
    lenient = CiteboundEvaluator(min_faithfulness=0.5)
    result = lenient.evaluate(query="q", response="Refunds are paid within ten business days. Express delivery "
                              "costs 12 euros.", contexts=[n.node.get_content() for n in NODES])
    assert result.passing is True and result.score == 0.5
    abstained = lenient.evaluate(response=ABSTENTION_SENTENCE, contexts=["Anything at all."])
    assert abstained.passing is True and abstained.score == 1.0 and "abstention" in abstained.feedback
    empty = lenient.evaluate(response="", contexts=["Anything at all."])
    assert empty.passing is False and empty.invalid_result and empty.invalid_reason == "the response is empty"
    no_context = lenient.evaluate(response="Refunds are quick.", contexts=[])
    assert no_context.invalid_result and no_context.passing is False


def test_response_filter_drops_unsupported_sentences_and_keeps_the_verdicts():
    original = _response("Refunds are paid within five business days [1]. Refunds are paid within ten days [1]. "
                         "Express delivery costs 12 euros [2].")
    filtered = CiteboundResponseFilter()(original)
    assert isinstance(filtered, Response) and filtered.source_nodes == original.source_nodes
    assert filtered.response == "Refunds are paid within five business days [1]. Express delivery costs 12 euros [2]."
    meta = filtered.metadata["citebound"]
    assert filtered.metadata["engine"] == "test" and meta["faithfulness"] == pytest.approx(0.6667)
    assert [c["claim"] for c in meta["removed"]] == ["Refunds are paid within ten days."]
    assert original.response.startswith("Refunds are paid within five") and "ten days" in original.response  # not mutated


def test_response_filter_abstains_when_nothing_is_supported():
    filtered = CiteboundResponseFilter()(_response("The warehouse is in Lyon. Refunds take ten days."))
    assert filtered.response == ABSTENTION_SENTENCE and filtered.metadata["citebound"]["label"] == "unfaithful"
    bare = CiteboundResponseFilter()(Response(response="Refunds are quick.", source_nodes=[]))
    assert bare.response == ABSTENTION_SENTENCE and bare.metadata["citebound"]["label"] == "no_sources"


class _FixedEngine(CustomQueryEngine):
    answer: str

    def custom_query(self, query_str: str) -> Response:
        return Response(response=self.answer, source_nodes=list(NODES))


def test_verified_query_engine_filters_every_answer():
    engine = VerifiedQueryEngine(_FixedEngine(answer="Express delivery costs 12 euros. It arrives within three business days."))
    response = engine.query("How much is express delivery?")
    assert response.response == "Express delivery costs 12 euros."
    assert response.metadata["citebound"]["removed"][0]["claim"] == "It arrives within three business days."


def test_verified_query_engine_async():
    import asyncio

    engine = VerifiedQueryEngine(_FixedEngine(answer="Express delivery costs 12 euros. It arrives within three business days."))
    response = asyncio.run(engine.aquery("How much is express delivery?"))
    assert response.response == "Express delivery costs 12 euros."
