"""The one way citebound writes to SQLite: a `BEGIN IMMEDIATE` … `COMMIT` transaction that rolls back on
any exception, so a failed write never leaves the connection inside an open transaction (the next write
would fail) and a killed process leaves nothing half-written (SQLite rolls it back on the next open).
Connections are opened with `isolation_level=None`, so transactions are exactly these."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
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
