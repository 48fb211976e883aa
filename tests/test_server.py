"""The web app through FastAPI's TestClient (real app, real KB, real pipeline)."""

import shutil
from importlib import resources

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from citebound.kb import KnowledgeBase  # noqa: E402
from citebound.server.app import CONTEXT_CHARS, create_app  # noqa: E402

HANDBOOK = resources.files("citebound") / "samples" / "handbook"


@pytest.fixture(scope="module")
def kb_path(tmp_path_factory):
    root = tmp_path_factory.mktemp("server")
    shutil.copytree(HANDBOOK, root / "docs")
    with KnowledgeBase.open(root / "kb", create=True) as kb:
        kb.ingest([root / "docs"], progress=False)
    return root / "kb"


@pytest.fixture(scope="module")
def client(kb_path):
    with TestClient(create_app(kb_path)) as client:
        yield client


def test_page_is_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "/api/ask" in page.text and "<mark" not in page.text.split("<script>")[0]


def test_ask_returns_citations_with_their_highlighted_span(client, kb_path):
    res = client.post("/api/ask", json={"question": "How much does express delivery cost?"})
    assert res.status_code == 200
    data = res.json()
    assert not data["abstained"] and "12 euros" in data["answer"]
    cit = data["citations"][0]
    # The span is the cited sentence, cut from the document version the citation points into, and the
    # page's context is exactly the CONTEXT_CHARS characters on either side of it.
    assert cit["span"] == cit["quote"] == "Express delivery arrives the next business day and costs 12 euros."
    with KnowledgeBase.open(kb_path) as kb:
        text = kb.document_text(cit["doc_id"], cit["version"])
    start, end = cit["start"], cit["end"]
    assert cit["doc_id"].endswith("shipping.md") and text[start:end] == cit["span"]
    assert cit["before"] == text[max(0, start - CONTEXT_CHARS) : start]
    assert cit["after"] == text[end : end + CONTEXT_CHARS]
    assert cit["before"].endswith("business days.\n")  # the sentence before it, whole, up to the line break
    assert cit["starts_document"] == (start <= CONTEXT_CHARS)
    assert cit["ends_document"] == (end + CONTEXT_CHARS >= len(text))
    trace = client.get(f"/api/trace/{data['request_id']}").json()
    assert trace["question"] == "How much does express delivery cost?"


def test_bad_requests_are_4xx(client):
    assert client.post("/api/ask", json={"question": ""}).status_code == 422
    assert client.get("/api/trace/nope").status_code == 404
