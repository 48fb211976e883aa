"""The shared write transaction (citebound.db) on a real SQLite file."""

from __future__ import annotations

import sqlite3

import pytest

from citebound.db import write_transaction


@pytest.fixture
def db(tmp_path):
    conn = sqlite3.connect(tmp_path / "t.sqlite3", isolation_level=None)
    conn.execute("CREATE TABLE t (x INTEGER)")
    yield conn
    conn.close()


def test_a_block_that_raises_writes_nothing_and_leaves_the_connection_usable(db):
    with pytest.raises(RuntimeError):
        with write_transaction(db):
            db.execute("INSERT INTO t VALUES (1)")
            raise RuntimeError("disk full, say")
    assert not db.in_transaction
    assert db.execute("SELECT count(*) FROM t").fetchone() == (0,)
    with write_transaction(db):  # before, a second BEGIN here failed: "cannot start a transaction within a transaction"
        db.execute("INSERT INTO t VALUES (2)")
    assert db.execute("SELECT x FROM t").fetchall() == [(2,)]


def test_a_block_that_returns_early_commits_what_it_wrote(db):
    def write_then_return():
        with write_transaction(db):
            db.execute("INSERT INTO t VALUES (3)")
            return "early"

    assert write_then_return() == "early"
    assert not db.in_transaction
    assert db.execute("SELECT x FROM t").fetchall() == [(3,)]


def test_a_migration_that_fails_halfway_leaves_nothing_behind():
    """Both databases (KB and audit log) migrate through citebound.db.Migrations: a step that fails
    after its first statement rolls back whole and is not recorded, so the next open retries it."""
    import sqlite3

    from citebound.db import Migrations, execute_script

    steps = Migrations("_test_migrations")

    @steps
    def m001_half(db):
        execute_script(db, "CREATE TABLE a (x INTEGER); CREATE TABLE b (y INTEGER); INSERT INTO nowhere VALUES (1);")

    db = sqlite3.connect(":memory:", isolation_level=None)
    try:
        steps.apply(db)
    except sqlite3.OperationalError:
        pass
    else:
        raise AssertionError("the broken migration did not raise")
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {"_test_migrations"} and not db.in_transaction
    assert list(db.execute("SELECT name FROM _test_migrations")) == []
    with_fix = Migrations("_test_migrations")
    with_fix(lambda d: execute_script(d, "CREATE TABLE a (x INTEGER);"))
    assert with_fix.apply(db) == ["<lambda>"] and with_fix.apply(db) == []


def _connect(target):
    from citebound.db import is_postgres, open_sqlite

    if is_postgres(str(target)):
        from citebound.db.postgres import open_postgres

        return open_postgres(str(target), lock="test")
    target.mkdir()
    return open_sqlite(target / "t.sqlite3")


def test_a_failed_migration_rolls_back_whole_in_either_database(kb_target):
    """The one runner on both backends: a step that fails after its first statement leaves no table
    and no record; the fixed step then applies once, and again nothing."""
    import sqlite3

    from citebound.db import Migrations, execute_script

    db = _connect(kb_target)
    try:
        steps = Migrations("_test_migrations")
        steps(lambda d: execute_script(d, "CREATE TABLE a (x INTEGER); INSERT INTO nowhere VALUES (1);"))
        with pytest.raises(sqlite3.Error):  # PostgreSQL's errors come out as the same DB-API classes
            steps.apply(db)
        assert not db.in_transaction
        assert list(db.execute("SELECT name FROM _test_migrations")) == []
        with pytest.raises(sqlite3.Error):
            db.execute("SELECT x FROM a")
        fixed = Migrations("_test_migrations")
        fixed(lambda d: execute_script(d, "CREATE TABLE a (x INTEGER, t REAL, b BLOB, end INTEGER) STRICT;"))
        assert fixed.apply(db) == ["<lambda>"] and fixed.apply(db) == []
        db.execute('INSERT INTO a (x, t, "end") VALUES (?, ?, ?)', (2**40, 0.1 + 1e-12, 7))
        assert db.execute('SELECT x, t, "end" FROM a WHERE x > ?', (1,)).fetchall() == [(2**40, 0.1 + 1e-12, 7)]
    finally:
        db.close()


def test_postgres_urls_are_shown_without_their_password_and_placeholders_translate():
    from citebound.db.postgres import display_url, translate

    assert display_url("postgresql://cb:s3cret@db.internal:5432/kb") == "postgresql://cb:***@db.internal:5432/kb"
    assert display_url("postgresql://cb@db/kb") == "postgresql://cb@db/kb"
    assert translate("SELECT ? WHERE a LIKE ? ESCAPE '\\' AND b = '?%'") == \
        "SELECT %s WHERE a LIKE %s ESCAPE '\\' AND b = '?%%'"


def test_a_file_another_connection_is_reading_still_becomes_wal_once_it_is_free(tmp_path):
    """Switching a file to WAL needs it to itself, and SQLite does not wait for that (no busy handler):
    two processes creating one audit log at once saw "database is locked" at once. open_sqlite waits."""
    import threading
    import time

    from citebound.db import open_sqlite

    path = tmp_path / "new.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN IMMEDIATE")  # a writer mid-transaction, as a second process creating the schema
    holder.execute("INSERT INTO t VALUES (1)")
    released = threading.Timer(0.5, lambda: holder.execute("COMMIT"))
    released.start()
    started = time.monotonic()
    db = open_sqlite(path)
    try:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert time.monotonic() - started >= 0.4  # it waited for the reader instead of failing
    finally:
        released.join()
        db.close()
        holder.close()
