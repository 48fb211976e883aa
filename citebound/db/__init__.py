"""The database, the one way citebound uses it: connections, schema migrations and write transactions.

Two backends speak the same small interface, so the knowledge base and the audit log hold their logic
(versioning, ingest batches, hash chain) once:

- SQLite (`open_sqlite`, the embedded default): a file, WAL mode, `synchronous=NORMAL`.
- PostgreSQL (`citebound.db.postgres`, optional extra `postgres`): a `postgresql://` URL, so several
  processes on several machines share one database.

Both are DB-API connections in autocommit mode (`execute(sql, params)` with `?` placeholders, `executemany`,
`in_transaction`), so transactions are exactly the ones opened here, plus what differs between them:
`dialect` ("sqlite" | "postgresql"), `begin_write()` (the one writer lock: `BEGIN IMMEDIATE` in SQLite, a
transaction-scoped advisory lock in PostgreSQL), `begin_read()` (a consistent snapshot), `ddl(statement)`
(SQLite DDL as that database writes it), `rowid` (a column that orders rows by insertion) and the vector
codec (`encode_vector`, `decode_vectors`). SQL is written once, in the subset both understand:
`ON CONFLICT … DO NOTHING / DO UPDATE` instead of `INSERT OR IGNORE / REPLACE`, `"end"` quoted.

Writes: a `write_transaction` rolls back on any exception, so a failed write never leaves the connection
inside an open transaction (the next write would fail) and a killed process leaves nothing half-written
(SQLite rolls it back on the next open; PostgreSQL when the connection drops).

A PostgreSQL connection that drops is opened again by the next statement (`citebound.db.postgres`); a
statement that found it lost raises `ConnectionLost` unless it could safely run again. `run_write(db, fn)`
is a write transaction that is run once more when the first attempt is known not to have committed."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
T = TypeVar("T")


class Connection(Protocol):
    """What the knowledge base and the audit log need of a database connection (see the module docstring)."""

    dialect: str
    rowid: str

    def execute(self, sql: str, params: Any = ...) -> Any: ...
    def executemany(self, sql: str, rows: Any) -> Any: ...
    def close(self) -> None: ...
    @property
    def in_transaction(self) -> bool: ...
    def begin_write(self) -> None: ...
    def begin_read(self) -> None: ...
    def ddl(self, statement: str) -> str: ...
    def encode_vector(self, vector: np.ndarray) -> Any: ...
    def decode_vectors(self, values: list[Any]) -> np.ndarray: ...


class ConnectionLost(sqlite3.OperationalError):
    """The database connection dropped during a statement. `committed` is False when the statement was
    inside a transaction, before COMMIT (the server rolled the transaction back: nothing of it is
    stored), None when not known (lost during COMMIT, or during a write outside a transaction)."""

    def __init__(self, message: str, committed: bool | None) -> None:
        super().__init__(message)
        self.committed = committed


def is_postgres(target: object) -> bool:
    """True for a `postgresql://` (or `postgres://`) URL: a knowledge base or log kept in PostgreSQL."""
    return isinstance(target, str) and target.lower().startswith(POSTGRES_SCHEMES)


class SqliteConnection(sqlite3.Connection):
    """sqlite3's connection plus the few things the PostgreSQL backend does differently."""

    dialect = "sqlite"
    rowid = "rowid"

    def begin_write(self) -> None:
        self.execute("BEGIN IMMEDIATE")  # the write lock first: what is read inside stays true until COMMIT

    def begin_read(self) -> None:
        self.execute("BEGIN")  # WAL: the first read fixes a snapshot that lasts until COMMIT

    def ddl(self, statement: str) -> str:
        return statement

    def encode_vector(self, vector: np.ndarray) -> bytes:
        return np.asarray(vector, dtype=np.float32).tobytes()

    def decode_vectors(self, values: list[Any]) -> np.ndarray:
        if not values:
            return np.zeros((0, 0), dtype=np.float32)
        return np.frombuffer(b"".join(values), dtype=np.float32).reshape(len(values), -1)


def open_sqlite(path: str | Path) -> SqliteConnection:
    """A connection to the SQLite file at `path`: autocommit (transactions are explicit), WAL, and
    `synchronous=NORMAL` (with WAL, atomic and durable against process kills), foreign keys on,
    shareable between threads (sqlite3 serialises them), 30 s busy timeout."""
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30, factory=SqliteConnection)
    try:
        _use_wal(db, deadline=time.monotonic() + 30)
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
    except BaseException:
        db.close()
        raise
    return db  # type: ignore[return-value]


def _use_wal(db: sqlite3.Connection, deadline: float) -> None:
    """Put the file in WAL mode. The conversion needs the file to itself and SQLite does not run the busy
    handler for it: two processes creating one file at once would see "database is locked" at once
    whatever the timeout. So: nothing to do when the file is WAL already (a persistent property), else
    retry until `deadline` (another process's conversion counts)."""
    delay = 0.01
    while True:
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                db.execute("PRAGMA journal_mode=WAL")  # an in-memory database answers "memory": as before
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
        if time.monotonic() >= deadline:
            raise sqlite3.OperationalError(f"database is locked: could not switch {db} to WAL")
        time.sleep(delay)
        delay = min(0.2, delay * 2)


def _begin(db: Any, how: str) -> None:
    method = getattr(db, how, None)
    if method is not None:
        method()
    else:  # a plain sqlite3 connection
        db.execute("BEGIN IMMEDIATE" if how == "begin_write" else "BEGIN")


@contextmanager
def write_transaction(db: Any) -> Iterator[Any]:
    """Take the write lock first (what is read inside stays true until COMMIT), then commit, or roll back
    if the block raises. A block that returns early without writing commits nothing."""
    _begin(db, "begin_write")
    try:
        yield db
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


_UNSET = object()


def run_write(db: Any, fn: Callable[[Any], T], committed: Callable[[Any], bool] | None = None) -> T:
    """`fn(db)` inside a `write_transaction`, and its result. When the connection is lost (PostgreSQL)
    and the transaction is known not to have committed, it is run once more on the new connection, from
    the start (so `fn` must read what it depends on inside the transaction, as under the write lock it
    does anyway). When it is not known (lost during COMMIT), `committed(db)`, if given, looks on the new
    connection: True means the first attempt is stored (its result is returned), False that it can run
    again. Anything else, or a second loss, raises `ConnectionLost`; nothing is ever written twice."""
    for attempt in range(2):
        result: Any = _UNSET
        try:
            with write_transaction(db):
                result = fn(db)
            return result
        except ConnectionLost as exc:
            if attempt:
                raise
            if exc.committed is None:
                if committed is None or result is _UNSET:
                    raise
                if committed(db):
                    return result
    raise AssertionError("unreachable")  # pragma: no cover


@contextmanager
def read_transaction(db: Any) -> Iterator[Any]:
    """Read several statements from one consistent snapshot (no writer's commit shows up halfway)."""
    _begin(db, "begin_read")
    try:
        yield db
    finally:
        if db.in_transaction:
            db.execute("COMMIT")


Migration = Callable[[Any], None]


class Migrations:
    """The ordered schema changes of one database, and the one runner that applies them.

    Register each change with the instance as a decorator; its function name (zero-padded, unique) is
    recorded in `table` once applied, so `apply()` is idempotent and an old database is brought up to
    date when it is opened. Each change and its record are applied in one `write_transaction`: whole or
    not at all; the applied names are read again under the write lock, so two processes opening a new
    database at once apply each change once. Never edit a released migration: add a new one.
    """

    def __init__(self, table: str) -> None:
        self.table = table
        self.steps: list[tuple[str, Migration]] = []

    def __call__(self, fn: Migration) -> Migration:
        if any(name == fn.__name__ for name, _ in self.steps):
            raise ValueError(f"duplicate migration name {fn.__name__}")
        self.steps.append((fn.__name__, fn))
        return fn

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.steps]

    def _done(self, db: Any) -> set[str]:
        return {row[0] for row in db.execute(f"SELECT name FROM {self.table}")}

    def apply(self, db: Any) -> list[str]:
        """Apply every migration not applied yet, in order; return the names applied.
        `db` must be in autocommit mode (`isolation_level=None`): transactions are explicit here."""
        create = f"CREATE TABLE IF NOT EXISTS {self.table} (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
        if getattr(db, "dialect", "sqlite") == "sqlite":
            db.execute(create)  # a no-op on an existing table: no write lock taken
        else:
            with write_transaction(db):  # PostgreSQL: two processes creating it at once would collide
                db.execute(create)
        if set(self.names) <= self._done(db):
            return []
        applied = []
        for name, fn in self.steps:
            with write_transaction(db):
                if name in self._done(db):
                    continue
                fn(db)
                db.execute(f"INSERT INTO {self.table} (name, applied_at) VALUES (?, ?)",
                           (name, datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")))
            applied.append(name)
        return applied


def execute_script(db: Any, script: str) -> None:
    """Run the statements of `script` one by one inside the caller's transaction
    (`executescript` would commit first, and a failure halfway would leave half a schema).
    Statements are SQLite DDL; a PostgreSQL connection rewrites each into its own (`db.ddl`)."""
    ddl = getattr(db, "ddl", None)
    current = ""
    for piece in script.split(";"):  # a `;` inside a string literal just makes an incomplete piece
        current += piece + ";"
        if sqlite3.complete_statement(current):
            statement = current.strip()
            if statement.strip(" ;\n\t"):
                db.execute(ddl(statement) if ddl else statement)
            current = ""
