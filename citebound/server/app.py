"""The web app: `POST /api/ask` runs the same `ask()` as the CLI; `/` shows the answer with each
citation's span highlighted in its source document.

    citebound serve --kb my-kb          # then open http://127.0.0.1:8000

One knowledge base per app, opened at start, and one backend built for it at start (so its caches
and loaded models serve every request). Requests are answered one at a time (a lock around `ask`):
the KB's SQLite connection and the embedding model are shared.
"""

from __future__ import annotations

import threading
from contextlib import asynccontextmanager
from dataclasses import asdict
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from citebound import config
from citebound.errors import BackendError, CiteboundError, InputError

CONTEXT_CHARS = 400  # characters of the document shown on each side of a cited span


class AskBody(BaseModel):
    """Module level: FastAPI resolves the (postponed) annotation by name in this module."""

    question: str = Field(min_length=1, max_length=4000)
    k: int = Field(config.TOP_K, ge=1, le=50)


def citation_view(kb: Any, citation: Any) -> dict[str, Any]:
    """A citation with the surrounding text of the document version it points into."""
    text = kb.document_text(citation.doc_id, citation.version)
    lo = max(0, citation.start - CONTEXT_CHARS)
    hi = min(len(text), citation.end + CONTEXT_CHARS)
    return {**asdict(citation), "before": text[lo : citation.start], "span": text[citation.start : citation.end],
            "after": text[citation.end : hi], "starts_document": lo == 0, "ends_document": hi == len(text)}


def create_app(kb_path: str | Path, *, backend: str = "extractive", backend_options: dict[str, Any] | None = None):
    try:
        from fastapi import FastAPI, HTTPException
        from fastapi.responses import HTMLResponse
    except ImportError:  # pragma: no cover - depends on the installed extras
        from citebound.errors import ModelUnavailableError

        raise ModelUnavailableError("citebound serve needs FastAPI: pip install 'citebound[server]'") from None

    from citebound.audit import AuditLog
    from citebound.generation import get_backend
    from citebound.kb import KnowledgeBase
    from citebound.pipeline import ask
    from citebound.retrieval import Retriever

    generator = get_backend(backend, **dict(backend_options or {}))
    kb = KnowledgeBase.open(kb_path)
    retriever = Retriever(kb, progress=False)
    lock = threading.Lock()
    page = (resources.files("citebound") / "server" / "static" / "index.html").read_text(encoding="utf-8")

    @asynccontextmanager
    async def lifespan(_app):
        yield
        kb.close()

    app = FastAPI(title="citebound", version="0.1", lifespan=lifespan)

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return page

    @app.post("/api/ask")
    def api_ask(body: AskBody) -> dict[str, Any]:
        with lock:
            try:
                result = ask(body.question, kb, backend=generator, retriever=retriever, k=body.k)
            except BackendError as exc:
                raise HTTPException(502, str(exc)) from None
            except CiteboundError as exc:
                raise HTTPException(400, str(exc)) from None
            out = result.to_dict()
            out.pop("report", None)
            out["citations"] = [citation_view(kb, c) for c in result.citations]
        return out

    @app.get("/api/trace/{request_id}")
    def api_trace(request_id: str) -> dict[str, Any]:
        with lock, AuditLog.beside(kb.path) as log:
            try:
                return asdict(log.get(request_id))
            except InputError as exc:
                raise HTTPException(404, str(exc)) from None

    app.state.kb = kb
    return app
