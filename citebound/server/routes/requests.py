"""The audit log over HTTP (scope `audit`): one logged request by its exact id, and its replay against
the KB as it is now. Ids are matched exactly — never as prefixes — so nobody can list other people's
requests by guessing one character at a time."""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Depends, Request

from citebound.errors import CiteboundError
from citebound.server.auth import require
from citebound.server.errors import ApiError
from citebound.server.schemas import ERRORS
from citebound.server.views import record_view

router = APIRouter(tags=["audit"])
REQUEST_ID = re.compile(r"^[0-9a-f]{32}$")  # uuid4().hex, as pipeline.ask makes them


def _record(service: Any, request_id: str) -> Any:
    if not REQUEST_ID.match(request_id):
        raise ApiError(404, "not_found", "no such request")
    try:
        record = service.audit_log().get(request_id)
    except CiteboundError:
        raise ApiError(404, "not_found", "no such request") from None
    if record.id != request_id:  # defence in depth: get() also accepts prefixes
        raise ApiError(404, "not_found", "no such request")
    return record


def _get(service: Any, request_id: str) -> dict[str, Any]:
    return record_view(_record(service, request_id))


def _replay(service: Any, request_id: str) -> dict[str, Any]:
    from citebound.audit.replay import replay

    record = _record(service, request_id)
    with service.kb_lock.read():
        try:
            return replay(record, service.kb).to_dict()
        except CiteboundError as exc:
            raise ApiError(400, "invalid_request", "this request cannot be replayed") from exc


@router.get("/v1/requests/{request_id}", responses=ERRORS, summary="One audited request (exact id)")
async def get_request(request_id: str, request: Request, _principal=Depends(require("audit"))) -> dict[str, Any]:
    service = request.app.state.service
    return await service.run(_get, service, request_id)


@router.post("/v1/requests/{request_id}/replay", responses=ERRORS,
             summary="Re-verify a logged answer against the KB as it is now")
async def replay_request(request_id: str, request: Request, _principal=Depends(require("audit"))) -> dict[str, Any]:
    service = request.app.state.service
    return await service.run(_replay, service, request_id)
