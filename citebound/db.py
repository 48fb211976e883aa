"""SQLite, the one way citebound uses it: schema migrations and write transactions.

Writes: a `BEGIN IMMEDIATE` … `COMMIT` transaction that rolls back on
any exception, so a failed write never leaves the connection inside an open transaction (the next write
would fail) and a killed process leaves nothing half-written (SQLite rolls it back on the next open).
Connections are opened with `isolation_level=None`, so transactions are exactly these."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def write_transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Take the write lock first (IMMEDIATE: what is read inside stays true until COMMIT), then commit,
    or roll back if the block raises. A block that returns early without writing commits nothing."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


Migration = Callable[[sqlite3.Connection], None]


class Migrations:
    """The ordered schema changes of one database, and the one runner that applies them.

    Register each change with the instance as a decorator; its function name (zero-padded, unique) is
    recorded in `table` once applied, so `apply()` is idempotent and an old database is brought up to
    date when it is opened. Each change and its record are applied in one `write_transaction`: whole or
    not at all. Never edit a released migration: add a new one.
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

    def apply(self, db: sqlite3.Connection) -> list[str]:
        """Apply every migration not applied yet, in order; return the names applied.
        `db` must be in autocommit mode (`isolation_level=None`): transactions are explicit here."""
        db.execute(f"CREATE TABLE IF NOT EXISTS {self.table} (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
        done = {row[0] for row in db.execute(f"SELECT name FROM {self.table}")}
        applied = []
        for name, fn in self.steps:
            if name in done:
                continue
            with write_transaction(db):
                fn(db)
                db.execute(f"INSERT INTO {self.table} (name, applied_at) VALUES (?, datetime('now'))", (name,))
            applied.append(name)
        return applied


def execute_script(db: sqlite3.Connection, script: str) -> None:
    """Run the statements of `script` one by one inside the caller's transaction
    (`executescript` would commit first, and a failure halfway would leave half a schema)."""
    current = ""
    for piece in script.split(";"):  # a `;` inside a string literal just makes an incomplete piece
        current += piece + ";"
        if sqlite3.complete_statement(current):
            if current.strip(" ;\n\t"):
                db.execute(current.strip())
            current = ""
