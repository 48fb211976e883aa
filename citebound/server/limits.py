"""Limits applied before a request reaches a route: the Host header (DNS rebinding), the body size
(413), and the per-key rate limit (429 with Retry-After). Also times every request for /metrics.

`Guard` is plain ASGI middleware, so it neither buffers nor breaks streamed responses.
"""

from __future__ import annotations

import json
import math
import threading
import time
from typing import Any

from starlette.exceptions import HTTPException as StarletteHTTPException

from citebound.server.metrics import Metrics
from citebound.server.settings import ServerSettings

UPLOAD_PATHS = ("/v1/documents",)


class BodyTooLarge(StarletteHTTPException):
    """Raised while the body is read; an HTTPException so FastAPI's body parser passes it on as a 413."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is over the limit of {limit} bytes")


class RateLimiter:
    """A token bucket per client key: `rate` tokens a second, at most `burst` saved up."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = float(rate)
        self.burst = max(1, int(burst))
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, key: str) -> float:
        """0.0 when the request may go ahead, else the seconds to wait for the next token."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                return 0.0
            self._buckets[key] = (tokens, now)
            if len(self._buckets) > 100_000:  # forget idle clients (full buckets) so memory stays bounded
                self._buckets = {k: v for k, v in self._buckets.items() if v[0] < self.burst - 1}
            return (1.0 - tokens) / self.rate


def _json(status: int, type_: str, message: str, extra_headers: list[tuple[bytes, bytes]] = ()) -> tuple:
    body = json.dumps({"error": {"type": type_, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               *extra_headers]
    return ({"type": "http.response.start", "status": status, "headers": headers},
            {"type": "http.response.body", "body": body})


def _host_name(raw: str) -> str:
    raw = raw.strip().lower()
    if raw.startswith("["):  # [::1]:8000
        return raw[1:raw.find("]")] if "]" in raw else raw
    if raw.count(":") == 1:
        return raw.split(":", 1)[0]
    return raw


class Guard:
    def __init__(self, app: Any, settings: ServerSettings, metrics: Metrics) -> None:
        self.app = app
        self.hosts = settings.host_names()
        self.max_body = settings.max_body_bytes
        self.max_upload = settings.max_upload_bytes
        self.metrics = metrics

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()
        status_box = [500]
        started = [False]

        async def send_wrapper(message: dict) -> None:
            if message["type"] == "http.response.start":
                status_box[0] = message["status"]
                started[0] = True
            await send(message)

        async def reply(status: int, type_: str, message: str, headers: list = ()) -> None:
            for part in _json(status, type_, message, headers):
                await send_wrapper(part)

        try:
            headers = {k.lower(): v for k, v in scope.get("headers", ())}
            host = _host_name(headers.get(b"host", b"").decode("latin-1"))
            if host not in self.hosts:
                await reply(400, "bad_host", "this server does not answer for that Host name")
                return
            limit = self.max_upload if scope.get("path", "") in UPLOAD_PATHS else self.max_body
            length = headers.get(b"content-length")
            if length is not None:
                try:
                    declared = int(length)
                except ValueError:
                    await reply(400, "bad_request", "the Content-Length header is not a number")
                    return
                if declared > limit:
                    await reply(413, "body_too_large", f"the request body is over the limit of {limit} bytes")
                    return
            received = [0]

            async def receive_limited() -> dict:
                message = await receive()
                if message["type"] == "http.request":
                    received[0] += len(message.get("body", b""))
                    if received[0] > limit:
                        raise BodyTooLarge(limit)
                return message

            try:
                await self.app(scope, receive_limited, send_wrapper)
            except BodyTooLarge:
                if not started[0]:
                    await reply(413, "body_too_large", f"the request body is over the limit of {limit} bytes")
        finally:
            route = scope.get("route")
            endpoint = getattr(route, "path", None) or "unmatched"
            self.metrics.observe_request(endpoint, scope.get("method", ""), status_box[0], time.perf_counter() - t0)


def retry_after(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))
