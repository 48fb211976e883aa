"""What a deployment can set: where it listens, which Host names it answers, limits, worker threads."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field
from typing import Any

from citebound.errors import InputError

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
EMBED_MISSING = ("background", "off")


@dataclass(frozen=True)
class ServerSettings:
    host: str = "127.0.0.1"
    port: int = 8000
    backend: str = "extractive"
    backend_options: dict[str, Any] = field(default_factory=dict)
    allowed_hosts: tuple[str, ...] = ()  # Host header names answered besides loopback names and `host`
    max_body_bytes: int = 1_048_576  # JSON bodies; beyond it 413
    max_upload_bytes: int = 20 * 1_048_576  # POST /v1/documents
    rate_limit: float = 50.0  # requests per second per key (or per client address without keys); 0 = off
    rate_burst: int = 100
    docs: bool = False  # /docs and /redoc (the OpenAPI schema itself is always at /openapi.json)
    workers: int = 0  # threads that run asks and verifications; 0 = sized to the machine
    warm_up: bool = True  # load the models in the background at start (GET /readyz says when done)
    # chunks without a vector: "background" embeds them in a thread of the server while it answers (and
    # the chunks of later ingests), "off" leaves them to `citebound embed`; either way the server is
    # ready without them, and dense search ranks the chunks that have one
    embed_missing: str = "background"

    def __post_init__(self) -> None:
        if self.embed_missing not in EMBED_MISSING:
            raise InputError(f"embed_missing must be one of {', '.join(EMBED_MISSING)}, not {self.embed_missing!r}")

    def worker_count(self) -> int:
        if self.workers > 0:
            return self.workers
        return max(2, min(8, 2 * (os.cpu_count() or 1)))

    def host_names(self) -> frozenset[str]:
        """Host header values (without port, lower case) the server answers."""
        names = {*LOOPBACK_NAMES, *(h.lower().strip("[]") for h in self.allowed_hosts)}
        if self.host not in ("0.0.0.0", "::", ""):
            names.add(self.host.lower().strip("[]"))
        return frozenset(names)


def is_loopback(host: str) -> bool:
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind(host: str, keys_exist: bool) -> str | None:
    """Refuse a non-loopback address when the KB has no API key. Returns the note to print, if any."""
    if keys_exist:
        return None
    if not is_loopback(host):
        raise InputError(f"refusing to listen on {host}: this knowledge base has no API key, so anyone who "
                         "can reach the address could use it. Create one with `citebound keys create --kb DIR "
                         "--scope ask` or listen on 127.0.0.1")
    return ("no API key in this knowledge base: listening on loopback only, without authentication "
            "(create keys with `citebound keys create` to require them)")
