"""An OpenAI-compatible face: `POST /v1/chat/completions` (plain and streamed) and `GET /v1/models`.

The last user message is the question; `model` names this server's KB (its folder name), its backend,
or `citebound`. The reply is the verified answer: numbered markers in the text and a "Sources" list
after it, and the same citations as structured data (document, version, span, quote) in
`choices[0].message.citations` and a top-level `citations` — extra fields the `openai` SDK keeps
(`message.citations`, `completion.citations`). A streamed reply sends the role, then each kept claim as
a content delta, then the sources, then a last chunk with `finish_reason` and the citations.
"""

from __future__ import annotations

import json
import time
from typing import Any
from collections.abc import AsyncIterator

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse

from citebound import config
from citebound.server.auth import require
from citebound.server.errors import ApiError, error_body
from citebound.server.routes.ask import run_ask
from citebound.server.schemas import ERRORS, ChatBody

router = APIRouter(tags=["openai"])


def model_names(service: Any) -> list[str]:
    return list(dict.fromkeys(["citebound", service.kb_name, service.backend.name]))


def _question(body: ChatBody) -> str:
    for message in reversed(body.messages):
        if message.role != "user":
            continue
        content = message.content
        if isinstance(content, list):  # [{"type": "text", "text": "…"}, …]
            content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
        if isinstance(content, str) and content.strip():
            if len(content) > config.MAX_QUESTION_CHARS:
                raise ApiError(400, "invalid_request_error",
                               f"the question is longer than {config.MAX_QUESTION_CHARS} characters")
            return content
    raise ApiError(400, "invalid_request_error", "no user message with text: the last user message is the question")


def structured_citations(view: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"number": c["number"], "document": c["doc_id"], "version": c["version"],
             "span": {"start": c["start"], "end": c["end"]}, "quote": c["quote"], "chunk_id": c["chunk_id"]}
            for c in view["citations"]]


def sources_block(view: dict[str, Any]) -> str:
    if not view["citations"]:
        return ""
    lines = [f"[{c['number']}] {c['doc_id']} (version {c['version']}, characters {c['start']}–{c['end']}): "
             f"“{c['quote']}”" for c in view["citations"]]
    return "\n\nSources:\n" + "\n".join(lines)


def _citebound(view: dict[str, Any]) -> dict[str, Any]:
    return {"request_id": view["request_id"], "abstained": view["abstained"],
            "abstain_reason": view["abstain_reason"],
            "claims": [{"text": c["text"], "label": c["label"], "citations": c["citations"]} for c in view["claims"]],
            "removed": view["removed"]}


@router.get("/v1/models", responses=ERRORS, summary="Models (OpenAI format): this server's KB and backend")
async def list_models(request: Request, _principal=Depends(require(None))) -> dict[str, Any]:
    service = request.app.state.service
    return {"object": "list", "data": [{"id": name, "object": "model", "created": 0, "owned_by": "citebound"}
                                       for name in model_names(service)]}


def _chunk(cid: str, created: int, model: str, delta: dict[str, Any], finish: str | None = None,
           **extra: Any) -> str:
    body = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
    return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"


async def _stream(service: Any, question: str, model: str) -> AsyncIterator[str]:
    created = int(time.time())
    cid = f"chatcmpl-{int(time.time() * 1000):x}"
    yield _chunk(cid, created, model, {"role": "assistant", "content": ""})
    try:
        view = await service.run(run_ask, service, question, config.TOP_K, None, "/v1/chat/completions")
    except ApiError as exc:
        yield f"data: {json.dumps(error_body(exc.type, exc.message))}\n\n"
        yield "data: [DONE]\n\n"
        return
    cid = f"chatcmpl-{view['request_id']}"
    if view["abstained"]:
        yield _chunk(cid, created, model, {"content": view["answer"]})
    else:
        from citebound.pipeline import with_citation_numbers  # the answer's own marker placement

        for i, claim in enumerate(view["claims"]):
            yield _chunk(cid, created, model, {"content": (" " if i else "") + with_citation_numbers(claim["text"], claim["citations"])})
        yield _chunk(cid, created, model, {"content": sources_block(view)})
    citations = structured_citations(view)
    yield _chunk(cid, created, model, {}, "stop", citations=citations, citebound=_citebound(view))
    yield "data: [DONE]\n\n"


@router.post("/v1/chat/completions", responses=ERRORS,
             summary="OpenAI-compatible chat: the last user message is the question; the answer is verified")
async def chat_completions(body: ChatBody, request: Request, _principal=Depends(require("ask"))) -> Any:
    service = request.app.state.service
    if body.model not in model_names(service):
        raise ApiError(404, "invalid_request_error", "unknown model; GET /v1/models lists this server's models")
    question = _question(body)
    if body.stream:
        return StreamingResponse(_stream(service, question, body.model), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    view = await service.run(run_ask, service, question, config.TOP_K, None, "/v1/chat/completions")
    citations = structured_citations(view)
    content = view["answer"] + ("" if view["abstained"] else sources_block(view))
    return {
        "id": f"chatcmpl-{view['request_id']}", "object": "chat.completion", "created": int(time.time()),
        "model": body.model, "system_fingerprint": None,
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                     "message": {"role": "assistant", "content": content, "refusal": None, "citations": citations}}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        "citations": citations, "citebound": _citebound(view),
    }
