"""A real PostgreSQL 16 with pgvector for the tests, started by the test run itself from the `pgserver`
wheel (dev extra) in a temporary folder; each test gets a database of its own. When pgserver is not
installed or the server cannot start, the PostgreSQL tests are skipped with the reason."""

from __future__ import annotations

import itertools
import re
import shutil
import tempfile
from pathlib import Path

_counter = itertools.count()


class PostgresServer:
    def __init__(self, folder) -> None:
        import pgserver

        self.folder = Path(folder)
        self._server = pgserver.get_server(str(folder), cleanup_mode="stop")
        self.uri = self._server.get_uri()  # postgresql://postgres:@/postgres?host=/tmp/…
        import psycopg

        with psycopg.connect(self.uri, autocommit=True) as conn:
            # a throwaway server: no flushing to disk (process kills, what the tests do, lose nothing)
            conn.execute("ALTER SYSTEM SET fsync = off")
            conn.execute("ALTER SYSTEM SET synchronous_commit = off")
            conn.execute("SELECT pg_reload_conf()")

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
        """Immediate shutdown (SIGQUIT to the postmaster): the data is thrown away, so no checkpoint."""
        import os
        import signal
        import time

        pid = self._server.get_pid()
        if pid:
            os.kill(pid, signal.SIGQUIT)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.05)
        self._server.cleanup()
        shutil.rmtree(self.folder, ignore_errors=True)


def start_server(tmp_path_factory=None) -> PostgresServer | str:  # noqa: ARG001 - kept for callers
    """The server, or why it could not start (a skip reason). Its data folder is its own (removed by
    `stop`), not under pytest's basetemp: a second pytest run on the machine deletes all but the newest
    basetemp folders, and with them a running server's data and socket ("Connection refused" mid-run)."""
    try:
        import pgserver  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError as exc:
        return f"PostgreSQL tests need the dev extra (pgserver, psycopg): {exc}"
    reason = ""
    for _ in range(2):  # pg_ctl gives up after 10 s; a loaded machine may need a second try
        folder = tempfile.mkdtemp(prefix="citebound-pg-")
        try:
            return PostgresServer(folder)
        except Exception as exc:  # noqa: BLE001 - any failure to start is a reason to skip, reported as such
            shutil.rmtree(folder, ignore_errors=True)
            reason = f"pgserver could not start PostgreSQL here: {type(exc).__name__}: {exc}"
    return reason
