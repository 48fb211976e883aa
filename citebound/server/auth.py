"""Who is asking: `Authorization: Bearer <key>` checked against the KB's hashed keys, scopes, and the
per-key rate limit. A KB with no active key is served without authentication (and only on loopback:
see settings.check_bind); every client then counts as one local principal per address."""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from citebound.kb.keys import SCOPES
from citebound.server.errors import ApiError
from citebound.server.limits import retry_after

bearer = HTTPBearer(auto_error=False, description="An API key from `citebound keys create`.")


@dataclass(frozen=True)
class Principal:
    key_id: str | None  # None: no keys configured (loopback, unauthenticated)
    scopes: tuple[str, ...]


def _service(request: Request):
    return request.app.state.service


def authenticate(request: Request, credentials: HTTPAuthorizationCredentials | None) -> Principal:
    service = _service(request)
    if not service.keys.any_active():
        client = request.client.host if request.client else "local"
        return Principal(None, SCOPES), f"local:{client}"
    if credentials is None or credentials.scheme.lower() != "bearer" or not credentials.credentials:
        raise ApiError(401, "unauthorized", "an API key is required: send Authorization: Bearer <key>",
                       {"WWW-Authenticate": "Bearer"})
    key = service.keys.lookup(credentials.credentials)
    if key is None:
        raise ApiError(401, "unauthorized", "the API key is not valid (unknown or revoked)",
                       {"WWW-Authenticate": "Bearer"})
    return Principal(key.key_id, key.scopes), f"key:{key.key_id}"


def require(scope: str | None) -> Callable[..., Principal]:
    """A dependency: the caller's principal, which must hold `scope` (None: any valid key)."""

    def dependency(request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> Principal:
        principal, bucket = authenticate(request, credentials)
        if scope is not None and scope not in principal.scopes:
            raise ApiError(403, "forbidden", f"this API key does not have the {scope!r} scope")
        wait = _service(request).limiter.take(bucket)
        if wait > 0:
            _service(request).metrics.rate_limited += 1
            raise ApiError(429, "rate_limited", "too many requests for this key; retry later",
                           {"Retry-After": retry_after(wait)})
        return principal

    return dependency
