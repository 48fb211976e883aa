"""The extractive backend with the real MiniLM embedder on the bundled handbook."""

import json
from importlib import resources

import pytest

from citebound.generation import GenerationRequest, get_backend
from citebound.generation.backends.extractive import cite_sentence
from citebound.verify import verify_answer
from citebound.verify.schema import parse_reply

HANDBOOK = resources.files("citebound") / "samples" / "handbook"


@pytest.fixture(scope="module")
def backend():
    return get_backend("extractive")


@pytest.fixture(scope="module")
def sources():
    return {"S1": (HANDBOOK / "refunds.md").read_text(), "S2": (HANDBOOK / "shipping.md").read_text(),
            "S3": (HANDBOOK / "support.txt").read_text()}


def test_answers_with_the_relevant_sentence_quoted_and_cited(backend, sources):
    gen = backend.generate(GenerationRequest("How much does express delivery cost?", sources))
    reply = json.loads(gen.text)
    assert not reply["abstained"]
    assert "costs 12 euros" in reply["answer"] and "[S2]" in reply["answer"]
    for citation in reply["citations"]:
        assert citation["quote"] in sources[citation["source_id"]]  # verbatim
    assert gen.confidence is not None and gen.confidence >= backend.threshold


def test_its_answers_pass_the_verifier(sources):
    # Threshold 0: the backend answers every question (the threshold changes only whether it answers, not
    # what: test_threshold_changes_only_whether_to_answer), so each answer here is one it can give.
    answering = get_backend("extractive", threshold=0.0)
    for question in ["How long do refunds take?", "When is support available?", "Is return shipping free?"]:
        reply = parse_reply(answering.generate(GenerationRequest(question, sources)).text)
        assert not reply.abstained and reply.citations, question
        report = verify_answer(reply, sources, checker=answering.default_checker)
        assert report.claims and all(c.label == "supported" for c in report.claims), report.to_dict()


def test_abstains_when_nothing_is_relevant(backend, sources):
    gen = backend.generate(GenerationRequest("Who won the football world cup in 1998?", sources))
    reply = json.loads(gen.text)
    assert reply["abstained"] and reply["citations"] == []
    assert gen.confidence < backend.threshold


def test_no_near_duplicate_sentences(sources):
    duplicated = {"S1": sources["S1"], "S2": sources["S1"]}  # overlapping chunks give the same sentence twice
    backend = get_backend("extractive", max_sentences=3, margin=1.0)
    reply = json.loads(backend.generate(GenerationRequest("How long do refunds take?", duplicated)).text)
    quotes = [c["quote"] for c in reply["citations"]]
    assert len(quotes) == len(set(quotes))


def test_threshold_changes_only_whether_to_answer(sources):
    question = "How long do refunds take?"
    low = json.loads(get_backend("extractive", threshold=0.0).generate(GenerationRequest(question, sources)).text)
    high = json.loads(get_backend("extractive", threshold=1.01).generate(GenerationRequest(question, sources)).text)
    assert not low["abstained"] and high["abstained"]


def test_cite_sentence_places_the_marker_before_the_full_stop():
    assert cite_sentence("Refunds take five days.", "S1") == "Refunds take five days [S1]."
    assert cite_sentence('He said "yes."', "S2") == 'He said "yes [S2]."'
    assert cite_sentence("A heading without stop", "S3") == "A heading without stop [S3]."
    assert cite_sentence("The battery lasts 12 hours [3].\n", "S1") == "The battery lasts 12 hours [S1]."
