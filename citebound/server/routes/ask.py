"""POST /v1/ask: a verified answer; with `Accept: text/event-stream`, server-sent events per stage:
`sources` (retrieved, before generation), one `claim` per verdict, then `answer` (the same body as
the JSON response) — or `error`."""

from __future__ import annotations

import json
import logging
import time
from typing import Any
from collections.abc import AsyncIterator, Sequence

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, StreamingResponse

from citebound import config
from citebound.errors import BackendError, CiteboundError, DatabaseUnavailableError
from citebound.server.auth import require
from citebound.server.errors import ApiError, error_body, public_message
from citebound.server.schemas import ERRORS, AskBody, AskOut
from citebound.server.views import ask_view

log = logging.getLogger("citebound.server")
router = APIRouter(tags=["ask"])

# Errors a hostile question may still raise inside the library: answered 400, never 500.
INPUT_FAILURES = (ValueError, OverflowError, RecursionError, UnicodeError)


class Prefetched:
    """A retriever whose hits were fetched already (so the stream could send them first)."""

    def __init__(self, retriever: Any, hits: Sequence[Any]) -> None:
        self.retriever = retriever
        self.hits = list(hits)

    def retrieve(self, question: str, k: int = config.TOP_K) -> list[Any]:
        return list(self.hits)

    def should_abstain(self, hits: Sequence[Any]) -> bool:
        return self.retriever.should_abstain(hits)


def check_text(value: str, what: str) -> str:
    """Text that SQLite and UTF-8 can carry: no lone surrogates, no NUL bytes."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ApiError(400, "invalid_request", f"the {what} is not valid Unicode (a lone surrogate)") from None
    if "\x00" in value:
        raise ApiError(400, "invalid_request", f"the {what} contains a NUL character")
    return value


def retrieve_hits(service: Any, question: str, k: int) -> tuple[list[Any], float]:
    t0 = time.perf_counter()
    with service.kb_lock.read():
        try:
            hits = service.retriever.retrieve(question.strip(), k)
        except DatabaseUnavailableError:
            raise  # 503 (server/errors.py), not the caller's fault
        except CiteboundError as exc:
            raise ApiError(400, "invalid_request", public_message(str(exc))) from None
    return hits, time.perf_counter() - t0


def run_ask(service: Any, question: str, k: int, checker: str | None = None, endpoint: str = "/v1/ask",
            hits: list[Any] | None = None) -> dict[str, Any]:
    """ask() with the shared backend and retriever, audited on this worker's log connection."""
    from citebound.pipeline import ask

    check_text(question, "question")
    with service.kb_lock.read():
        retriever = service.retriever if hits is None else Prefetched(service.retriever, hits)
        try:
            result = ask(question, service.kb, backend=service.backend, retriever=retriever, k=k,
                         audit=service.audit_log(), checker=checker)
        except BackendError as exc:
            raise ApiError(502, "backend_error", public_message(str(exc))) from None
        except DatabaseUnavailableError:
            raise  # 503 (server/errors.py), not the caller's fault
        except CiteboundError as exc:
            raise ApiError(400, "invalid_request", public_message(str(exc))) from None
        except INPUT_FAILURES as exc:
            log.warning("ask failed on its input: %s", type(exc).__name__)
            raise ApiError(400, "invalid_request", "the question could not be processed") from None
        view = ask_view(service.kb, result)
    service.metrics.observe_verdicts(endpoint, [c.label for c in result.claims] + [r.label for r in result.removed])
    service.metrics.observe_answer(endpoint, result.abstained)
    return view


def sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


async def stream_ask(service: Any, body: AskBody) -> AsyncIterator[str]:
    try:
        check_text(body.question, "question")
        hits, seconds = await service.run(retrieve_hits, service, body.question, body.k)
        yield sse("sources", {"sources": [{"source_id": h.source_id, "doc_id": h.chunk.doc_id,
                                            "version": h.chunk.version, "chunk_id": h.chunk.id,
                                            "start": h.chunk.start, "end": h.chunk.end, "scores": h.scores,
                                            "text": h.chunk.text} for h in hits]})
        view = await service.run(run_ask, service, body.question, body.k, body.checker, "/v1/ask", hits)
        view["timings"]["retrieve"] = round(seconds, 6)
        for claim in view["claims"]:
            yield sse("claim", {**claim, "kept": True, "reason": None})
        for removed in view["removed"]:
            yield sse("claim", {**removed, "kept": False, "citations": []})
        yield sse("answer", view)
    except ApiError as exc:
        yield sse("error", {**error_body(exc.type, exc.message), "status": exc.status})
    except Exception:  # headers are sent already: the stream itself says what went wrong
        log.exception("streamed ask failed")
        yield sse("error", {**error_body("internal_error", "internal error (logged on the server)"), "status": 500})


def wants_stream(request: Request) -> bool:
    return "text/event-stream" in request.headers.get("accept", "").lower()


@router.post("/v1/ask", response_model=AskOut, summary="Answer a question from the KB, every claim verified",
             responses={**ERRORS, 502: ERRORS[400] | {"description": "the generation backend failed"},
                        200: {"content": {"text/event-stream": {"schema": {"type": "string"}}},
                              "description": "the answer (JSON), or events when the client accepts text/event-stream"}})
async def ask_endpoint(body: AskBody, request: Request, _principal=Depends(require("ask"))) -> Any:
    service = request.app.state.service
    if wants_stream(request):
        return StreamingResponse(stream_ask(service, body), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    return JSONResponse(await service.run(run_ask, service, body.question, body.k, body.checker))
