"""`citebound mcp` driven by the official `mcp` client library over stdio: the real server process, a real
knowledge base (the bundled handbook), the real pipeline and verifier."""

from __future__ import annotations

import json
import os
import shutil
import sys
from importlib import resources

import pytest

pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from citebound.kb import KnowledgeBase

HANDBOOK = resources.files("citebound") / "samples" / "handbook"
pytestmark = pytest.mark.slow  # each test starts a server process (the SDK's import alone takes seconds)


@pytest.fixture(scope="module")
def kb_path(tmp_path_factory):
    root = tmp_path_factory.mktemp("mcp")
    shutil.copytree(HANDBOOK, root / "docs")
    with KnowledgeBase.open(root / "kb", create=True) as kb:
        kb.ingest([root / "docs"], progress=False)
    return root / "kb"


def _params(*args: str) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k.startswith(("CITEBOUND_", "OMP_", "HOME", "PATH", "PYTHON"))}
    return StdioServerParameters(command=sys.executable, args=["-m", "citebound", "mcp", *args], env=env)


def _is_error(result) -> bool:  # mcp 2.x: is_error; 1.x: isError
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))


def _payload(result) -> dict:
    """The tool's JSON result: structured content when the SDK sends it, else the JSON text block."""
    data = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)
    if data:
        return data.get("result", data) if set(data) == {"result"} else data
    return json.loads(result.content[0].text)


async def _session_run(params: StdioServerParameters, calls: list[tuple[str, dict]]):
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            results = [await session.call_tool(name, arguments) for name, arguments in calls]
            return tools, results


def test_tools_ask_search_verify_over_stdio(kb_path):
    calls = [
        ("ask", {"question": "How much does express delivery cost?"}),
        ("search", {"query": "express delivery cost", "k": 3}),
        ("verify", {"answer": "Refunds take five business days [1]. Refunds take ten days [1]. Shipping is free [9].",
                    "sources": ["Refunds take five business days after the item arrives."]}),
        ("ask", {"question": "What is the airspeed velocity of an unladen swallow?"}),
    ]
    tools, results = anyio.run(_session_run, _params("--kb", str(kb_path)), calls)
    assert {t.name for t in tools.tools} == {"ask", "search", "verify"}
    assert not any(_is_error(r) for r in results), [r.content for r in results if _is_error(r)]

    answer = _payload(results[0])
    assert not answer["abstained"] and "12 euros" in answer["answer"] and "[1]" in answer["answer"]
    cit = answer["citations"][0]
    assert cit["doc_id"].endswith("shipping.md") and "12 euros" in cit["quote"]
    with KnowledgeBase.open(kb_path) as kb:  # the span is the quote, cut from the cited document version
        assert kb.document_text(cit["doc_id"], cit["version"])[cit["start"] : cit["end"]] == cit["quote"]

    hits = _payload(results[1])["hits"]
    assert len(hits) == 3 and hits[0]["doc_id"].endswith("shipping.md")
    with KnowledgeBase.open(kb_path) as kb:
        for hit in hits:
            assert kb.document_text(hit["doc_id"], hit["version"])[hit["start"] : hit["end"]] == hit["text"]

    report = _payload(results[2])
    assert [c["label"] for c in report["claims"]] == ["supported", "unsupported", "unsupported"]
    assert report["claims"][0]["span"] == [0, len("Refunds take five business days")]  # the quote itself
    assert "10" in report["claims"][1]["reason"] and "9" in report["claims"][2]["reason"]
    assert report["invalid_citations"] == ["9"]
    assert report["ok"] is False

    assert _payload(results[3])["abstained"] is True


def test_without_a_kb_verify_works_and_ask_is_a_tool_error():
    calls = [("verify", {"answer": "Refunds take five business days [S1].",
                         "sources": {"S1": "Refunds take five business days."}}),
             ("ask", {"question": "How long do refunds take?"})]
    _tools, (verified, asked) = anyio.run(_session_run, _params(), calls)
    assert not _is_error(verified) and _payload(verified)["ok"] is True
    assert _is_error(asked) and "--kb" in asked.content[0].text
