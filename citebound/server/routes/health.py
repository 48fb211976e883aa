"""Liveness, readiness and Prometheus metrics (no key needed: they show no document or question)."""

from __future__ import annotations

import os
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from citebound.server.schemas import HealthOut, ReadyOut

router = APIRouter(tags=["health"])


def rss_bytes() -> int:
    """Resident memory of this process (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


@router.get("/healthz", response_model=HealthOut, summary="The process is up")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz", response_model=ReadyOut, responses={503: {"model": ReadyOut}},
            summary="Models loaded and the KB open (503 until then); chunks still without a vector")
async def readyz(request: Request) -> Any:
    service = request.app.state.service
    kb_open = service.kb._db is not None
    body = {"ready": False, "kb_open": kb_open, "models_loaded": service.ready.is_set(), "documents": 0,
            "revision": 0, "workers": service.workers}
    if kb_open:
        try:
            stats = service.kb.stats()
            body.update(documents=stats["documents"], revision=stats["revision"])
        except Exception:  # closed between the two lines
            body["kb_open"] = False
    body["ready"] = body["kb_open"] and body["models_loaded"]
    body.update(service.vector_status())  # ready does not wait for them: BM25 and the vectors there are answer
    if service.warm_error:
        body["warm_up_error"] = service.warm_error
    return JSONResponse(body, status_code=200 if body["ready"] else 503)


@router.get("/metrics", response_class=PlainTextResponse, summary="Prometheus text format",
            responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}}})
async def metrics(request: Request) -> PlainTextResponse:
    service = request.app.state.service
    text = service.metrics.render({"citebound_process_resident_memory_bytes": rss_bytes(),
                                   "citebound_ready": int(service.ready.is_set()),
                                   "citebound_vectors_missing": service.vector_status()["vectors_missing"] or 0,
                                   "citebound_workers": service.workers})
    return PlainTextResponse(text, media_type="text/plain; version=0.0.4; charset=utf-8")
