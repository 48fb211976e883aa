"""Error bodies the server sends: `{"error": {"type", "message", ...}}`, the shape OpenAI clients read.

They never echo the request (a 422 names the field and what was wrong with it, not the value sent) and
never contain a filesystem path: messages from library errors go through `public_message`.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from citebound.db import ConnectionLost
from citebound.errors import DatabaseUnavailableError

log = logging.getLogger("citebound.server")

_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|‘[^’\n]*’|“[^”\n]*”")
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][^\\/\s'\"<>]+){2,}[\\/]?")
_FIELD = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]{0,40}$")
MAX_MESSAGE = 300


class ApiError(Exception):
    """An error with its HTTP status, a stable `type` and a message safe to show."""

    def __init__(self, status: int, type_: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.type = type_
        self.message = message
        self.headers = headers or {}


def public_message(text: str) -> str:
    """A library error's message without quoted input or filesystem paths, at most MAX_MESSAGE chars."""
    text = _QUOTED.sub("'…'", str(text))
    text = _PATH.sub("<path>", text)
    text = " ".join(text.split())
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def error_body(type_: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"type": type_, "message": message, **extra}}


def error_response(status: int, type_: str, message: str, headers: dict[str, str] | None = None,
                   **extra: Any) -> JSONResponse:
    return JSONResponse(error_body(type_, message, **extra), status_code=status, headers=headers)


def _field_errors(exc: RequestValidationError) -> list[dict[str, Any]]:
    out = []
    for err in exc.errors()[:20]:
        loc = [p if isinstance(p, int) or (isinstance(p, str) and _FIELD.match(p)) else "…" for p in err.get("loc", ())]
        out.append({"loc": loc, "type": str(err.get("type", "invalid"))[:60],
                    "message": public_message(str(err.get("msg", "invalid value")))})
    return out


def install(app) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.type, exc.message, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(422, "invalid_request", "the request does not match the API schema",
                              fields=_field_errors(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        messages = {404: "no such endpoint", 405: "method not allowed on this endpoint"}
        message = messages.get(exc.status_code) or public_message(str(exc.detail))
        return error_response(exc.status_code, "http_error", message, getattr(exc, "headers", None))

    @app.exception_handler(DatabaseUnavailableError)
    @app.exception_handler(ConnectionLost)
    async def _database(_request: Request, exc: Exception) -> JSONResponse:
        # the database cannot be reached, or the connection dropped during this request's write (the
        # next statement opens a new one): the client may try again; the reason is logged, not sent
        log.warning("database unavailable: %s", exc)
        return error_response(503, "database_unavailable", "the database is not reachable right now; try again",
                              {"Retry-After": "1"})

    @app.exception_handler(Exception)
    async def _unexpected(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=exc)
        return error_response(500, "internal_error", "internal error (logged on the server)")
