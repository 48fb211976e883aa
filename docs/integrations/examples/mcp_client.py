"""Run: .venv/bin/python docs/integrations/examples/mcp_client.py   (needs `pip install 'citebound[mcp]'`)

Builds a knowledge base from the bundled sample handbook, starts `citebound mcp --kb …` as an MCP client
would (a subprocess speaking JSON-RPC over stdio), and calls its three tools with the official client."""

import json
import sys
import tempfile
from importlib import resources
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from citebound.kb import KnowledgeBase


def payload(result) -> dict:
    data = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)
    return data if data else json.loads(result.content[0].text)


async def main(kb: Path) -> None:
    server = StdioServerParameters(command=sys.executable, args=["-m", "citebound", "mcp", "--kb", str(kb)])
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        print("tools:", [t.name for t in (await session.list_tools()).tools])
        answer = payload(await session.call_tool("ask", {"question": "How much does express delivery cost?"}))
        print("ask:", answer["answer"])
        for c in answer["citations"]:
            print(f"  [{c['number']}] {Path(c['doc_id']).name} v{c['version']} {c['start']}-{c['end']}: {c['quote']}")
        hits = payload(await session.call_tool("search", {"query": "refund", "k": 2}))["hits"]
        print("search:", [(Path(h["doc_id"]).name, h["start"], h["end"]) for h in hits])
        report = payload(await session.call_tool("verify", {
            "answer": "Express delivery costs 15 euros [1].",
            "sources": ["Express delivery arrives the next business day and costs 12 euros."]}))
        print("verify:", [(c["label"], c["reason"]) for c in report["claims"]])


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        with KnowledgeBase.open(Path(tmp) / "kb", create=True) as kb:
            kb.ingest([Path(str(resources.files("citebound") / "samples" / "handbook"))], progress=False)
        anyio.run(main, Path(tmp) / "kb")
