"""The LangChain runnable against the real `langchain-core`: Documents, chains built with `|`, batch."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_core")
from langchain_core.documents import Document
from langchain_core.messages import AIMessage
from langchain_core.runnables import Runnable, RunnableLambda

from citebound.errors import InputError
from citebound.integrations.langchain import CiteboundVerifier

DOCS = [Document(page_content="Refunds are paid within five business days of the return.", metadata={"id": "r"}),
        Document(page_content="Express delivery arrives the next business day and costs 12 euros.")]


def test_invoke_returns_the_verified_answer_with_per_claim_verdicts():
    verifier = CiteboundVerifier()
    assert isinstance(verifier, Runnable)
    out = verifier.invoke({"question": "What about refunds?", "documents": DOCS,
                           "answer": "Refunds are paid within five business days [1]. Refunds take ten days [1]."})
    assert out["answer"] == "Refunds are paid within five business days [1]."
    assert out["original_answer"].endswith("Refunds take ten days [1].")
    assert out["faithfulness"] == 0.5 and out["label"] == "partially_faithful"
    supported, wrong = out["claims"]
    assert supported["label"] == "supported" and supported["source_id"] == "S1" and supported["span"] == [0, len("Refunds are paid within five business days")]
    assert wrong["label"] == "unsupported" and "10" in wrong["reason"]
    assert out["removed"] == [wrong] and out["citation_precision"] == 0.5


def test_in_a_chain_unmarked_answers_and_chat_messages():
    chain = RunnableLambda(lambda q: {"question": q, "documents": DOCS,
                                      "answer": AIMessage(content="Express delivery costs 12 euros. It is free.")})
    out = (chain | CiteboundVerifier()).invoke("How much is express delivery?")
    assert out["answer"] == "Express delivery costs 12 euros."
    assert out["claims"][0]["supporting_contexts"] == ["S2"]


def test_report_only_batch_and_bad_input():
    verifier = CiteboundVerifier(drop_unsupported=False)
    outs = verifier.batch([{"answer": "Refunds take ten days.", "documents": ["Refunds take five days."]},
                           {"answer": "", "documents": {"a": "x"}}])
    assert outs[0]["answer"] == "Refunds take ten days." and outs[0]["label"] == "unfaithful"
    assert outs[1]["label"] == "empty" and outs[1]["faithfulness"] == 1.0
    with pytest.raises(InputError, match="documents"):
        verifier.invoke({"answer": "Refunds take five days."})
