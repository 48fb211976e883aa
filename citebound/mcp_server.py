"""`citebound mcp`: the Model Context Protocol over stdio, so assistants that speak MCP can answer from a
knowledge base with verified citations and check their own answers.

Tools:
- `ask(question, k)`: a verified answer with numbered citations (document, version, character span,
  quote), the claims that were removed and why, or an abstention. Needs `--kb`.
- `search(query, k)`: retrieved chunks, each with its document, version and character span, text and scores.
  Needs `--kb`.
- `verify(answer, sources, checker)`: per-claim verdicts (label, reason, score, span of the supporting
  source) and the answer's figures. Works without a knowledge base.

Uses the official `mcp` package (optional extra `citebound[mcp]`): `mcp.server.mcpserver.MCPServer` in
mcp 2.x, `mcp.server.fastmcp.FastMCP` in 1.x. Nothing but protocol messages is written to stdout: the
knowledge base and models are opened on the first call that needs them, with progress bars off.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from citebound import config
from citebound.errors import CiteboundError, InputError, ModelUnavailableError
from citebound.verify.checkers import DEFAULT_CHECKER

INSTRUCTIONS = (
    "citebound answers from the user's own documents and checks every citation against the exact span of "
    "source text that supports it. Use `ask` for a verified answer, `search` to see the retrieved passages, and "
    "`verify` to check any answer with [1]/[S1] citation markers against its sources (unsupported claims are named "
    "with a reason). Faithfulness to the sources, not factuality."
)


def _sdk() -> tuple[Any, type[Exception]]:
    """(server class, ToolError) of the installed SDK: the ToolError's message reaches the model."""
    try:
        from mcp.server.mcpserver import MCPServer  # mcp >= 2
        from mcp.server.mcpserver.exceptions import ToolError

        return MCPServer, ToolError
    except ImportError:
        pass
    try:
        from mcp.server.fastmcp import FastMCP  # mcp 1.x
        from mcp.server.fastmcp.exceptions import ToolError

        return FastMCP, ToolError
    except ImportError:
        raise ModelUnavailableError("citebound mcp needs the MCP SDK: pip install 'citebound[mcp]'") from None


class _Knowledge:
    """The KB, retriever and backend, opened once on first use and shared by every call (one at a time)."""

    def __init__(self, kb: str | Path | None, backend: str, backend_options: dict[str, Any] | None,
                 mode: str = "hybrid") -> None:  # fmt: skip
        self.path = (str(kb) if str(kb).lower().startswith(("postgresql://", "postgres://")) else Path(kb)) if kb else None
        self.backend_name = backend
        self.backend_options = dict(backend_options or {})
        self.mode = mode
        self.lock = threading.Lock()
        self._kb = self._retriever = self._backend = None

    def open(self) -> tuple[Any, Any, Any]:
        if self.path is None:
            raise InputError("this citebound MCP server has no knowledge base: start it with `citebound mcp --kb DIR`")
        if self._kb is None:
            from citebound.generation import get_backend
            from citebound.kb import KnowledgeBase
            from citebound.retrieval import Retriever, ask_reranker

            self._kb = KnowledgeBase.open(self.path)
            self._retriever = Retriever(self._kb, mode=self.mode, progress=False, reranker=ask_reranker())
            self._backend = get_backend(self.backend_name, **self.backend_options)
        return self._kb, self._retriever, self._backend

    def close(self) -> None:
        if self._kb is not None:
            self._kb.close()


def ask_tool(knowledge: _Knowledge, question: str, k: int = config.TOP_K) -> dict[str, Any]:
    from citebound.pipeline import ask

    with knowledge.lock:
        kb, retriever, backend = knowledge.open()
        result = ask(question, kb, backend=backend, retriever=retriever, k=k)
    return {
        "request_id": result.request_id,
        "answer": result.answer,
        "abstained": result.abstained,
        "abstain_reason": result.abstain_reason,
        "citations": [{"number": c.number, "source_id": c.source_id, "doc_id": c.doc_id, "version": c.version,
                       "start": c.start, "end": c.end, "quote": c.quote} for c in result.citations],
        "claims": [{"text": c.text, "citations": list(c.citations), "label": c.label, "score": round(c.score, 4)}
                   for c in result.claims],
        "removed": [{"text": r.text, "label": r.label, "reason": r.reason} for r in result.removed],
        "kb_revision": result.kb_revision,
    }


def search_tool(knowledge: _Knowledge, query: str, k: int = config.TOP_K) -> list[dict[str, Any]]:
    if not query.strip():
        raise InputError("the query is empty")
    with knowledge.lock:
        _kb, retriever, _backend = knowledge.open()
        hits = retriever.retrieve(query, k=k)
    return [{"source_id": h.source_id, "doc_id": h.chunk.doc_id, "version": h.chunk.version, "chunk_id": h.chunk.id,
             "start": h.chunk.start, "end": h.chunk.end, "text": h.chunk.text,
             "scores": {name: round(float(v), 6) for name, v in h.scores.items()}} for h in hits]


def verify_tool(answer: str, sources: dict[str, str] | list[str], checker: str = DEFAULT_CHECKER) -> dict[str, Any]:
    from citebound.verify import verify_answer

    if isinstance(sources, list):
        sources = {f"S{i}": text for i, text in enumerate(sources, 1)}
    report = verify_answer(answer, sources, checker=checker)
    out = report.to_dict()
    for claim in out["claims"]:
        claim.pop("checks", None)  # per-source detail; the verdict, reason and span are what a caller acts on
    return out


def build_server(kb: str | Path | None = None, *, backend: str = "extractive",
                 backend_options: dict[str, Any] | None = None, mode: str = "hybrid") -> Any:  # fmt: skip
    """The MCP server object with the three tools registered (call `.run("stdio")` to serve)."""
    server_class, tool_error = _sdk()
    server = server_class(name="citebound", instructions=INSTRUCTIONS)
    knowledge = _Knowledge(kb, backend, backend_options, mode)

    def _call(fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except CiteboundError as exc:  # shown to the model as a tool error with a one-line reason
            raise tool_error(str(exc)) from None

    @server.tool()
    def ask(question: str, k: int = config.TOP_K) -> dict[str, Any]:
        """Answer a question from the knowledge base. Every claim in the answer is verified against the exact
        span of the source it cites; unsupported claims are removed (listed in `removed`). When nothing
        supported is left, the answer is an abstention (`abstained: true`) instead of a guess."""
        return _call(ask_tool, knowledge, question, k)

    @server.tool()
    def search(query: str, k: int = config.TOP_K) -> dict[str, Any]:
        """Search the knowledge base (BM25 + dense, fused). Each hit has its document id, version and the
        character span [start, end) of the chunk in that document version, its text and ranking scores."""
        return {"hits": _call(search_tool, knowledge, query, k)}

    @server.tool()
    def verify(answer: str, sources: dict[str, str] | list[str], checker: str = DEFAULT_CHECKER) -> dict[str, Any]:
        """Check an answer with inline citation markers ([1], [S1, S2]) against its sources: an object
        {id: text} or a list of texts (cited as [1]..[n]). Returns one verdict per claim (supported, partial,
        unsupported, uncited) with its reason and the span of the supporting source, and the answer's
        groundedness, citation precision and recall. checker: full (default: rules, then the entailment model) or deterministic (rules only, fast)."""
        return _call(verify_tool, answer, sources, checker)

    server._citebound_knowledge = knowledge
    return server


def serve(kb: str | Path | None = None, **kwargs: Any) -> None:
    """Serve over stdio until the client closes the connection."""
    import logging

    logging.getLogger("citebound").setLevel(logging.WARNING)
    server = build_server(kb, **kwargs)
    try:
        server.run("stdio")
    finally:
        server._citebound_knowledge.close()


__all__ = ["INSTRUCTIONS", "ask_tool", "build_server", "search_tool", "serve", "verify_tool"]
