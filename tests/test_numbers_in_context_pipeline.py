"""A wrong number through the whole ask() pipeline with the OpenAI-compatible backend: a real HTTP
chat-completions server on 127.0.0.1 (tests/helpers/chat_server.py) answers with a number that the
handbook states, but about something else. The claim must be removed, never shown.

The handbook's refunds page says "within 30 days of delivery" (returns) and "within five business
days" (refunds). "Refunds are processed within 30 business days" used to be shown with its citation,
because 30 is in the page; the numbers check now asks for 30 with "business days", in a sentence
about refunds being processed.
"""

import json
import shutil
from importlib import resources

import pytest

from citebound.audit import AuditLog
from citebound.kb import KnowledgeBase
from citebound.pipeline import ask
from citebound.retrieval import Retriever

HANDBOOK = resources.files("citebound") / "samples" / "handbook"
QUESTION = "How long does it take to process refunds?"


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kb")
    shutil.copytree(HANDBOOK, folder / "docs")
    kb = KnowledgeBase.open(folder / "kb", create=True)
    kb.ingest([folder / "docs"])
    yield kb
    kb.close()


@pytest.fixture(scope="module")
def retriever(kb):
    return Retriever(kb, mode="bm25", progress=False)


def refunds_label(retriever) -> str:
    hits = retriever.retrieve(QUESTION, 5)
    return next(h.source_id for h in hits if h.chunk.doc_id.endswith("refunds.md"))


def answer(label: str, days: str) -> str:
    return json.dumps({
        "answer": f"Refunds are processed within {days} business days [{label}].",
        "citations": [{"source_id": label, "quote": "Refunds are processed within five business days"}],
        "abstained": False,
    })  # fmt: skip


@pytest.mark.parametrize("checker", [None, "deterministic"])  # None: the backend's default (`full`)
def test_a_true_number_about_something_else_is_never_shown(kb, retriever, tmp_path, checker):
    from helpers.chat_server import ChatServer

    label = refunds_label(retriever)
    with ChatServer() as server, AuditLog(tmp_path / "audit.sqlite3") as log:
        server.enqueue(answer(label, "30"))
        result = ask(QUESTION, kb, backend="openai", retriever=retriever, audit=log, checker=checker, regenerate=False,
                     backend_options={"base_url": server.base_url, "model": "m", "backoff": 0.0})  # fmt: skip
    assert "30" not in result.answer
    assert all("30" not in c.text for c in result.claims)
    (removed,) = result.removed
    assert removed.label == "unsupported" and "30" in removed.reason, removed.reason
    assert "business days" in removed.reason or "something else" in removed.reason, removed.reason


def test_the_same_answer_with_the_handbook_number_is_kept(kb, retriever, tmp_path):
    from helpers.chat_server import ChatServer

    label = refunds_label(retriever)
    with ChatServer() as server, AuditLog(tmp_path / "audit.sqlite3") as log:
        server.enqueue(answer(label, "five"))
        result = ask(QUESTION, kb, backend="openai", retriever=retriever, audit=log, regenerate=False,
                     backend_options={"base_url": server.base_url, "model": "m", "backoff": 0.0})  # fmt: skip
    assert not result.abstained
    assert [c.text for c in result.claims] == ["Refunds are processed within five business days."]
