"""The HTTP service: `create_app(kb_path, settings)` builds a FastAPI app over one knowledge base.

    citebound serve --kb my-kb          # http://127.0.0.1:8000; see docs/service.md

Pieces, one module each: `settings` (what a deployment sets), `state.Service` (the KB, one backend and
one retriever built once, the worker pool, the KB's read/write lock, per-thread audit connections),
`auth` (API keys and scopes, rate limit), `limits.Guard` (Host header, body size, request timing),
`metrics` (Prometheus text), `errors` (bodies that never echo input or paths), `routes/*` (one module
per area of the API), `views` (library results as response bodies).
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from citebound.server.settings import ServerSettings
from citebound.server.views import CONTEXT_CHARS, citation_view

API_DESCRIPTION = (
    "Answers questions from a knowledge base and verifies every claim against the span it cites. "
    "Send `Authorization: Bearer <key>` (keys: `citebound keys create`). Errors are "
    '`{"error": {"type", "message"}}` and never echo the request.'
)


def create_app(kb_path: str | Path, settings: ServerSettings | None = None, *, backend: str | None = None,
               backend_options: dict[str, Any] | None = None):
    try:
        from fastapi import FastAPI
    except ImportError:  # pragma: no cover - depends on the installed extras
        from citebound.errors import ModelUnavailableError

        raise ModelUnavailableError("citebound serve needs FastAPI: pip install 'citebound[server]'") from None

    from citebound.server import errors
    from citebound.server.limits import Guard
    from citebound.server.routes import (
        ask,
        documents,
        health,
        openai,
        page,
        requests,
        verify,
    )
    from citebound.server.state import Service

    settings = settings or ServerSettings()
    if backend is not None or backend_options is not None:
        settings = ServerSettings(**{**settings.__dict__, "backend": backend or settings.backend,
                                     "backend_options": dict(backend_options or {})})
    service = Service(kb_path, settings)

    @asynccontextmanager
    async def lifespan(_app):
        service.start()
        try:
            yield
        finally:
            service.close()

    app = FastAPI(title="citebound", version="1", description=API_DESCRIPTION, lifespan=lifespan,
                  docs_url="/docs" if settings.docs else None, redoc_url="/redoc" if settings.docs else None)
    app.state.service = service
    app.state.kb = service.kb
    errors.install(app)
    for module in (page, health, ask, verify, documents, requests, openai):
        app.include_router(module.router)
    app.add_middleware(Guard, settings=settings, metrics=service.metrics)
    return app


__all__ = ["CONTEXT_CHARS", "ServerSettings", "citation_view", "create_app"]
