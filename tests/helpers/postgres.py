"""A real PostgreSQL 16 with pgvector for the tests, started by the test run itself from the `pgserver`
wheel (dev extra) in a temporary folder; each test gets a database of its own. When pgserver is not
installed or the server cannot start, the PostgreSQL tests are skipped with the reason."""

from __future__ import annotations

import itertools
import re

import pytest

_counter = itertools.count()


class PostgresServer:
    def __init__(self, folder) -> None:
        import pgserver

        self._server = pgserver.get_server(str(folder), cleanup_mode="stop")
        self.uri = self._server.get_uri()  # postgresql://postgres:@/postgres?host=/tmp/…

    def url(self, database: str) -> str:
        return re.sub(r"/postgres\?", f"/{database}?", self.uri, count=1)

    def new_database(self) -> str:
        """A fresh, empty database; its URL."""
        import psycopg

        name = f"citebound_test_{next(_counter)}"
        with psycopg.connect(self.uri, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name}")
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        self._server.cleanup()


def start_server(tmp_path_factory) -> PostgresServer | str:
    """The server, or why it could not start (a skip reason)."""
    try:
        import pgserver  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError as exc:
        return f"PostgreSQL tests need the dev extra (pgserver, psycopg): {exc}"
    try:
        return PostgresServer(tmp_path_factory.mktemp("pgdata"))
    except Exception as exc:  # noqa: BLE001 - any failure to start is a reason to skip, reported as such
        return f"pgserver could not start PostgreSQL here: {type(exc).__name__}: {exc}"
