"""PostgreSQL behind the same small interface as SQLite (see `citebound.db`), so the knowledge base and the
audit log run unchanged on a `postgresql://` URL and several processes share one database.

- psycopg 3 in autocommit mode: transactions are the explicit ones of `citebound.db`.
- SQL is written once with `?` placeholders; they become `%s` here (and a literal `%` becomes `%%`).
- Writers serialise on one transaction-scoped advisory lock per store (`lock`: the knowledge base and the
  audit log have one each), the counterpart of SQLite's `BEGIN IMMEDIATE`: what a writer reads after
  taking it stays true until it commits (the KB revision, the audit chain's previous hash). A killed
  writer's transaction is rolled back by the server and its lock released with the connection.
- Errors come out as the DB-API classes of the standard library's `sqlite3` (IntegrityError, DataError,
  OperationalError, …, the original chained), so the stores handle one vocabulary of errors.
- Vectors are pgvector `vector` values (the extension is created by the KB's migrations).
- A lost connection (the server restarted, an idle timeout, `pg_terminate_backend`) is opened again by
  the next statement, so a long-running server recovers by itself. The statement that found it lost is
  run again on the new connection only when that cannot repeat a write: a `SELECT`, `SET`, `SHOW` or
  `BEGIN` issued outside a transaction. Otherwise it raises `citebound.db.ConnectionLost`, saying
  whether the transaction is known not to have committed (lost before `COMMIT`: the server rolled it
  back) or not known (lost during `COMMIT`, or an autocommit write); `citebound.db.run_write` retries a
  whole write transaction in the first case. While the database cannot be reached, each statement
  fails with a `DatabaseUnavailableError` (a `KnowledgeBaseError`) naming it, after one connection
  attempt (`CONNECT_TIMEOUT_S`); the HTTP service answers 503 to both.

Needs the optional extra: `pip install 'citebound[postgres]'` (psycopg, pgvector).
"""

from __future__ import annotations

import hashlib
import logging
import re
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from citebound.db import ConnectionLost
from citebound.errors import (
    DatabaseUnavailableError,
    KnowledgeBaseError,
    ModelUnavailableError,
)

LOCK_TIMEOUT = "60s"  # how long a writer waits for another's transaction (SQLite's busy timeout is 30 s)
log = logging.getLogger(__name__)
CONNECT_TIMEOUT_S = 10  # one attempt to (re)connect gives up after this long
_REPEATABLE = ("SELECT", "SET", "SHOW", "BEGIN")  # statements that write nothing when run outside a transaction

_DDL = [  # SQLite DDL -> PostgreSQL, in order
    (re.compile(r'(?<!["\w])end(?=\s+(?:INTEGER|TEXT|REAL)\b)'), '"end"'),  # a column named end (reserved)
    (re.compile(r"\bINTEGER PRIMARY KEY AUTOINCREMENT\b"), "BIGSERIAL PRIMARY KEY"),
    (re.compile(r"\bINTEGER\b"), "BIGINT"),
    (re.compile(r"\bREAL\b"), "DOUBLE PRECISION"),
    (re.compile(r"\bBLOB\b"), "BYTEA"),
    (re.compile(r"\)\s*STRICT\s*;\s*$"), ");"),
]


def display_url(url: str) -> str:
    """The URL without its password: what is shown, logged and written to audit records."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = (parts.username or "") + ":***"
    return urlunsplit(parts._replace(netloc=f"{user}@{netloc[-1]}"))


@lru_cache(maxsize=512)
def translate(sql: str) -> str:
    """`?` placeholders -> `%s` outside string literals; every literal `%` doubled."""
    pieces = sql.replace("%", "%%").split("'")
    return "'".join(p.replace("?", "%s") if i % 2 == 0 else p for i, p in enumerate(pieces))


def _lock_key(name: str) -> int:
    return int.from_bytes(hashlib.sha256(f"citebound:{name}".encode()).digest()[:8], "big", signed=True)


def _as_sqlite_error(exc: Exception) -> sqlite3.Error:
    import psycopg

    for theirs, ours in (
        (psycopg.IntegrityError, sqlite3.IntegrityError),
        (psycopg.DataError, sqlite3.DataError),
        (psycopg.OperationalError, sqlite3.OperationalError),
        (psycopg.ProgrammingError, sqlite3.ProgrammingError),
        (psycopg.InterfaceError, sqlite3.InterfaceError),
        (psycopg.NotSupportedError, sqlite3.NotSupportedError),
        (psycopg.InternalError, sqlite3.InternalError),
        (psycopg.DatabaseError, sqlite3.DatabaseError),
    ):
        if isinstance(exc, theirs):
            return ours(_message(exc))
    return sqlite3.Error(_message(exc))


def _message(exc: Exception) -> str:
    text = str(exc).strip()
    return text if "PostgreSQL" in text else f"PostgreSQL: {text}"


class PgConnection:
    """One psycopg connection with the interface of `citebound.db.Connection`."""

    dialect = "postgresql"
    rowid = "ctid"  # rows are only ever inserted, so their physical order is insertion order

    def __init__(self, url: str, lock: str) -> None:
        try:
            import psycopg  # noqa: F401 - whether the extra is installed
        except ImportError:
            raise ModelUnavailableError(
                "a postgresql:// knowledge base needs psycopg and pgvector: pip install 'citebound[postgres]'"
            ) from None
        self.url = url
        self.location = display_url(url)
        self._lock_key = _lock_key(lock)
        self._vectors_ready = False
        self._mutex = threading.RLock()  # one statement at a time, as sqlite3 serialises its connection
        self._closed = False
        self.reconnects = 0  # connections opened again after one was lost
        self._conn = self._connect()

    def _connect(self) -> Any:
        import psycopg

        try:
            conn = psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
            conn.execute(f"SET lock_timeout = '{LOCK_TIMEOUT}'")
        except psycopg.Error as exc:
            raise DatabaseUnavailableError(f"cannot connect to {self.location}: {str(exc).strip()}") from None
        return conn

    def _lost(self) -> bool:
        return self._conn.closed or self._conn.broken

    def _reconnect(self) -> None:
        """A new connection in place of a lost one (KnowledgeBaseError when the database cannot be reached)."""
        if self._closed:
            raise KnowledgeBaseError(f"the connection to {self.location} was closed")
        try:
            self._conn.close()
        except Exception as exc:  # noqa: BLE001 - it is gone either way
            log.debug("closing the lost connection to %s: %s", self.location, exc)
        self._conn = self._connect()
        self.reconnects += 1
        if self._vectors_ready:  # pgvector's types are registered per connection
            from pgvector.psycopg import register_vector

            register_vector(self._conn)

    def _run(self, sql: str, run: Any) -> Any:
        """`run(connection)` under the mutex, on a connection opened again if the last one was lost; run
        once more on a new one if it was lost during this statement and running it again is safe."""
        import psycopg

        with self._mutex:
            if self._lost():
                self._reconnect()
            outside = not self.in_transaction
            try:
                return run(self._conn)
            except psycopg.Error as exc:
                if not self._lost():
                    raise _as_sqlite_error(exc) from exc
                first = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""
                if outside and first in _REPEATABLE:
                    self._reconnect()
                    try:
                        return run(self._conn)
                    except psycopg.Error as again:
                        raise _as_sqlite_error(again) from again
                committed = None if (first == "COMMIT" or outside) else False
                what = ("it was rolled back by the server, nothing of it was committed" if committed is False
                        else "whether it committed is not known")
                raise ConnectionLost(f"PostgreSQL: the connection to {self.location} was lost during "
                                     f"{first or 'a statement'}: {what} ({str(exc).strip()})", committed) from exc

    # -- DB-API -----------------------------------------------------------------------------------------
    def execute(self, sql: str, params: Any = ()) -> Any:
        query, args = translate(sql), tuple(params)
        return self._run(sql, lambda conn: conn.execute(query, args, binary=True))

    def executemany(self, sql: str, rows: Any) -> Any:
        query, args = translate(sql), [tuple(r) for r in rows]

        def run(conn: Any) -> Any:
            cur = conn.cursor(binary=True)
            cur.executemany(query, args)
            return cur

        return self._run("INSERT", run)  # never repeated: treated as a write

    def close(self) -> None:
        self._closed = True
        self._conn.close()

    @property
    def in_transaction(self) -> bool:
        """Inside an open transaction (False once the connection is lost: the server rolled it back)."""
        from psycopg.pq import TransactionStatus

        if self._lost():
            return False
        return self._conn.info.transaction_status != TransactionStatus.IDLE

    def try_lock(self, name: str) -> bool:
        """Take the session-level advisory lock `name` unless another session holds it; True if taken. It
        is held until `unlock(name)` or until the connection ends (a lost connection releases it)."""
        return bool(self.execute("SELECT pg_try_advisory_lock(?)", (_lock_key(name),)).fetchone()[0])

    def unlock(self, name: str) -> None:
        self.execute("SELECT pg_advisory_unlock(?)", (_lock_key(name),))

    @contextmanager
    def session(self) -> Iterator[PgConnection]:
        """Hold the connection for several statements in a row (a `SET` and the query it is for): no other
        thread's statement runs between them."""
        with self._mutex:
            yield self

    # -- what differs from SQLite ------------------------------------------------------------------------
    def begin_write(self) -> None:
        self.execute("BEGIN")
        try:
            self.execute("SELECT pg_advisory_xact_lock(?)", (self._lock_key,))
        except BaseException:
            self.execute("ROLLBACK")
            raise

    def begin_read(self) -> None:
        self.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")

    def ddl(self, statement: str) -> str:
        for pattern, replacement in _DDL:
            statement = pattern.sub(replacement, statement)
        return statement

    def _vectors(self) -> None:
        if not self._vectors_ready:
            from pgvector.psycopg import register_vector

            with self._mutex:
                register_vector(self._conn)
            self._vectors_ready = True

    def encode_vector(self, vector: np.ndarray) -> Any:
        self._vectors()
        return np.asarray(vector, dtype=np.float32)

    def decode_vectors(self, values: list[Any]) -> np.ndarray:
        """Rows of `vector` values as read: pgvector's binary form (int16 dimension, int16 unused, then
        big-endian float32s), or `Vector` objects once the connection has registered the type."""
        if not values:
            return np.zeros((0, 0), dtype=np.float32)
        rows = [np.frombuffer(bytes(v), dtype=">f4", offset=4) if isinstance(v, (bytes, memoryview))
                else np.asarray(v.to_numpy() if hasattr(v, "to_numpy") else v) for v in values]
        return np.vstack(rows).astype(np.float32)


def open_postgres(url: str, lock: str) -> PgConnection:
    """A connection to the database at `url`, writers serialised on the advisory lock named `lock`."""
    return PgConnection(url, lock)
