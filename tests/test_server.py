"""The web app through FastAPI's TestClient (real app, real KB, real pipeline)."""

import shutil
from importlib import resources

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from citebound.kb import KnowledgeBase  # noqa: E402
from citebound.server.app import create_app  # noqa: E402

HANDBOOK = resources.files("citebound") / "samples" / "handbook"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    root = tmp_path_factory.mktemp("server")
    shutil.copytree(HANDBOOK, root / "docs")
    with KnowledgeBase.open(root / "kb", create=True) as kb:
        kb.ingest([root / "docs"], progress=False)
    with TestClient(create_app(root / "kb")) as client:
        yield client


def test_page_is_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "/api/ask" in page.text and "<mark" not in page.text.split("<script>")[0]


def test_ask_returns_citations_with_their_highlighted_span(client):
    res = client.post("/api/ask", json={"question": "How much does express delivery cost?"})
    assert res.status_code == 200
    data = res.json()
    assert not data["abstained"] and "12 euros" in data["answer"]
    cit = data["citations"][0]
    assert cit["span"] == cit["quote"] and "12 euros" in cit["span"]
    assert cit["before"].endswith("\n") or cit["before"] == "" or cit["before"][-1] in " .\n"
    trace = client.get(f"/api/trace/{data['request_id']}").json()
    assert trace["question"] == "How much does express delivery cost?"


def test_bad_requests_are_4xx(client):
    assert client.post("/api/ask", json={"question": ""}).status_code == 422
    assert client.get("/api/trace/nope").status_code == 404
