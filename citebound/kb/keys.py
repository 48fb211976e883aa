"""API keys of a knowledge base's HTTP service, stored in the KB (table `api_keys`, migration m002).

A key is `cb_` + 43 URL-safe characters (32 random bytes). Only its sha256 is stored, so a copy of
the KB does not give out working keys; the key itself is shown once, when it is created. Each key has a
short public id (for `keys list` and `keys revoke`), a name, and scopes:

    ask      POST /v1/ask, POST /v1/chat/completions
    verify   POST /v1/verify
    ingest   POST /v1/documents, DELETE /v1/documents/{id}
    audit    GET /v1/requests/{id}, POST /v1/requests/{id}/replay

Reading the KB's documents (`GET /v1/documents…`) needs a valid key of any scope.

    from citebound.kb.keys import KeyStore
    store = KeyStore(kb.db)
    info, secret = store.create(["ask", "verify"], name="support team")
    store.lookup(secret)  # -> ApiKey, or None for an unknown or revoked key
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from collections.abc import Iterable

from citebound.db import write_transaction
from citebound.errors import InputError

SCOPES = ("ask", "verify", "ingest", "audit")
KEY_PREFIX = "cb_"
_MAX_KEY_CHARS = 200  # anything longer is not one of ours; never hashed


@dataclass(frozen=True, slots=True)
class ApiKey:
    key_id: str
    name: str
    scopes: tuple[str, ...]
    created_at: str
    revoked_at: str | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def to_dict(self) -> dict:
        return {"key_id": self.key_id, "name": self.name, "scopes": list(self.scopes),
                "created_at": self.created_at, "revoked_at": self.revoked_at}


def hash_key(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def parse_scopes(scopes: str | Iterable[str]) -> tuple[str, ...]:
    """`"ask,verify"` or `["ask", "verify"]` -> ("ask", "verify"); an unknown scope is an InputError."""
    items = scopes.split(",") if isinstance(scopes, str) else list(scopes)
    out = tuple(dict.fromkeys(s.strip().lower() for s in items if s.strip()))
    if not out:
        raise InputError(f"give at least one scope: {', '.join(SCOPES)}")
    unknown = [s for s in out if s not in SCOPES]
    if unknown:
        raise InputError(f"unknown scope {unknown[0]!r}; scopes are {', '.join(SCOPES)}")
    return out


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class KeyStore:
    """The keys of one KB, on its SQLite connection (`kb.db`)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def create(self, scopes: str | Iterable[str], name: str = "") -> tuple[ApiKey, str]:
        """A new key with these scopes: (its record, the key itself — shown once, never stored)."""
        scope_tuple = parse_scopes(scopes)
        if not isinstance(name, str) or len(name) > 200 or any(ord(c) < 32 for c in name):
            raise InputError("a key name is at most 200 printable characters")
        secret = KEY_PREFIX + secrets.token_urlsafe(32)
        key = ApiKey(secrets.token_hex(6), name, scope_tuple, _now())
        with write_transaction(self.db) as db:
            db.execute("INSERT INTO api_keys (key_id, key_hash, name, scopes, created_at) VALUES (?, ?, ?, ?, ?)",
                       (key.key_id, hash_key(secret), key.name, ",".join(key.scopes), key.created_at))
        return key, secret

    def list(self, include_revoked: bool = True) -> list[ApiKey]:
        where = "" if include_revoked else "WHERE revoked_at IS NULL"
        rows = self.db.execute(f"SELECT key_id, name, scopes, created_at, revoked_at FROM api_keys {where} "
                               "ORDER BY created_at, key_id").fetchall()
        return [ApiKey(kid, name, tuple(s for s in scopes.split(",") if s), created, revoked)
                for kid, name, scopes, created, revoked in rows]

    def revoke(self, key_id: str) -> ApiKey:
        """Revoke the key with this id (exact id); revoking twice is not an error."""
        with write_transaction(self.db) as db:
            row = db.execute("SELECT revoked_at FROM api_keys WHERE key_id = ?", (key_id,)).fetchone()
            if row is None:
                raise InputError("no key with that id (see `citebound keys list`)")
            if row[0] is None:
                db.execute("UPDATE api_keys SET revoked_at = ? WHERE key_id = ?", (_now(), key_id))
        return next(k for k in self.list() if k.key_id == key_id)

    def any_active(self) -> bool:
        return self.db.execute("SELECT 1 FROM api_keys WHERE revoked_at IS NULL LIMIT 1").fetchone() is not None

    def lookup(self, secret: str) -> ApiKey | None:
        """The active key whose hash matches `secret`, else None (unknown, malformed or revoked)."""
        if not isinstance(secret, str) or not secret.startswith(KEY_PREFIX) or len(secret) > _MAX_KEY_CHARS:
            return None
        row = self.db.execute("SELECT key_id, name, scopes, created_at, revoked_at FROM api_keys "
                              "WHERE key_hash = ? AND revoked_at IS NULL", (hash_key(secret),)).fetchone()
        if row is None:
            return None
        kid, name, scopes, created, revoked = row
        return ApiKey(kid, name, tuple(s for s in scopes.split(",") if s), created, revoked)


__all__ = ["SCOPES", "ApiKey", "KeyStore", "hash_key", "parse_scopes"]
