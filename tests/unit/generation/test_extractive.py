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


# -- ranking with the retriever's dense scores (ask passes them): no sentence embedded ----------------
SCORES = {"S1": {"dense": 0.41}, "S2": {"dense": 0.52}, "S3": {"dense": 0.33}}  # as a retriever gives them


@pytest.mark.parametrize("question, expected", [
    ("How much does express delivery cost?", "costs 12 euros"),
    ("How long do refunds take?", "within five business days"),
    ("When is support available?", "Monday to Friday"),
])
def test_with_the_sources_dense_scores_the_same_sentence_answers_and_none_is_embedded(sources, question, expected):
    backend = get_backend("extractive")
    exact = backend.generate(GenerationRequest(question, sources))
    fast = backend.generate(GenerationRequest(question, sources, source_scores=SCORES))
    assert exact.meta["sentences_embedded"] == exact.meta["sentences"] > 0
    assert fast.meta["sentences_embedded"] == 0 and fast.meta["sentences"] == exact.meta["sentences"]
    first = [parse_reply(g.text).citations[0].quote for g in (exact, fast)]
    assert first[0] == first[1] and expected in first[1]
    assert fast.confidence == pytest.approx(exact.confidence)  # the model read the same best sentence


def test_abstains_on_an_off_topic_question_without_embedding_sentences(sources):
    backend = get_backend("extractive")
    gen = backend.generate(GenerationRequest("Who won the football world cup in 1998?", sources, source_scores=SCORES))
    assert json.loads(gen.text)["abstained"] and gen.meta["sentences_embedded"] == 0


@pytest.mark.parametrize("options, embedded", [
    ({"embed_sentences": 3}, 3),  # the three best by the estimate get their own cosine
    ({"embed_sentences": None}, "all"),
    ({"signal": "relevance"}, "all"),  # its threshold was chosen on the exact relevance
    ({"choose": "relevance"}, "all"),
])
def test_which_options_embed_sentences(sources, options, embedded):
    gen = get_backend("extractive", **options).generate(
        GenerationRequest("How long do refunds take?", sources, source_scores=SCORES))
    assert gen.meta["sentences_embedded"] == (gen.meta["sentences"] if embedded == "all" else embedded)


def test_without_a_dense_score_for_every_source_every_sentence_is_embedded(sources):
    bm25_only = {"S1": {"bm25": 3.2, "fused": 0.016}, "S2": {"bm25": 1.1, "fused": 0.015}, "S3": {"bm25": 0.0, "fused": 0.0}}
    gen = get_backend("extractive").generate(GenerationRequest("How long do refunds take?", sources, source_scores=bm25_only))
    assert gen.meta["sentences_embedded"] == gen.meta["sentences"]


def test_near_duplicates_are_skipped_without_sentence_embeddings(sources):
    duplicated = {"S1": sources["S1"], "S2": sources["S1"]}
    backend = get_backend("extractive", max_sentences=3, margin=1.0)
    gen = backend.generate(GenerationRequest("How long do refunds take?", duplicated,
                                             source_scores={"S1": {"dense": 0.4}, "S2": {"dense": 0.4}}))
    quotes = [c["quote"] for c in json.loads(gen.text)["citations"]]
    assert gen.meta["sentences_embedded"] == 0 and len(quotes) == len(set(quotes)) > 1
