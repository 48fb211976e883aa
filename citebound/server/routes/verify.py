"""POST /v1/verify: `citebound.verify.verify_answer` over HTTP — answer + sources in, per-claim verdicts,
spans, groundedness and citation precision/recall out, and the verifier's flags for instruction-like
source text (citebound.text.injection)."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from citebound.errors import CiteboundError
from citebound.server.auth import require
from citebound.server.errors import ApiError, public_message
from citebound.server.routes.ask import INPUT_FAILURES, check_text
from citebound.server.schemas import ERRORS, MAX_SOURCES, VerifyBody, VerifyOut

log = logging.getLogger("citebound.server")
router = APIRouter(tags=["verify"])


def run_verify(service: Any, body: VerifyBody) -> dict[str, Any]:
    from citebound.verify import verify_answer
    from citebound.verify.checker_cache import get_checker

    sources = body.sources if isinstance(body.sources, dict) else {s.id: s.text for s in body.sources}
    if len(sources) > MAX_SOURCES:
        raise ApiError(400, "invalid_request", f"at most {MAX_SOURCES} sources")
    check_text(body.answer, "answer")
    for sid, text in sources.items():
        check_text(sid, "source id")
        check_text(text, "source text")
    try:
        report = verify_answer(body.answer, sources, checker=get_checker(body.checker, body.threshold))
    except CiteboundError as exc:
        raise ApiError(400, "invalid_request", public_message(str(exc))) from None
    except INPUT_FAILURES as exc:
        log.warning("verify failed on its input: %s", type(exc).__name__)
        raise ApiError(400, "invalid_request", "the answer or sources could not be processed") from None
    out = report.to_dict()  # with `flags`: instruction-like source text, found by the verifier itself
    service.metrics.observe_verdicts("/v1/verify", [c.label for c in report.claims])
    return out


@router.post("/v1/verify", response_model=VerifyOut, responses=ERRORS,
             summary="Verify an answer's cited claims against the given sources")
async def verify_endpoint(body: VerifyBody, request: Request, _principal=Depends(require("verify"))) -> Any:
    service = request.app.state.service
    size = len(body.answer) + sum(len(t) for t in (body.sources.values() if isinstance(body.sources, dict)
                                                    else (s.text for s in body.sources)))
    if body.checker == "deterministic" and size < 20_000:  # a few ms of pure Python: no worker hop
        return JSONResponse(run_verify(service, body))
    # JSONResponse: the body is built to VerifyOut already (schemathesis checks it against the schema);
    # FastAPI would otherwise validate it a second time on every request
    return JSONResponse(await service.run(run_verify, service, body))
