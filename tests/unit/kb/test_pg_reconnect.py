"""A lost PostgreSQL connection is opened again by the next statement: the KB answers again, an audit
record interrupted before COMMIT is written once (not twice, not lost), and a database that stays away
gives a clear error. Real PostgreSQL 16 (pgserver); connections are cut with pg_terminate_backend, what
a server restart or an idle timeout does to a client."""

from __future__ import annotations

import threading
import time
from urllib.parse import urlsplit

import pytest

from citebound.audit import AuditLog
from citebound.errors import KnowledgeBaseError
from citebound.kb import KnowledgeBase
from citebound.kb.ingest import RawDocument

from test_store_backends import make_record


def _admin(url: str):
    import psycopg

    return psycopg.connect(url, autocommit=True)


def terminate_others(url: str, where: str = "TRUE") -> int:
    """Cut every other connection to the database of `url` (matching `where` on pg_stat_activity)."""
    with _admin(url) as conn:
        return conn.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            f"WHERE datname = current_database() AND pid <> pg_backend_pid() AND {where}").fetchone()[0]


@pytest.fixture
def pg_url(postgres_server):
    return postgres_server.new_database()


def _docs() -> list[RawDocument]:
    return [RawDocument("refunds", "Refunds take five business days after the return arrives.", "refunds.md"),
            RawDocument("shipping", "Orders ship within two days from the Berlin warehouse.", "shipping.md")]


def test_the_kb_answers_again_after_its_connection_is_cut(pg_url):
    from citebound.retrieval import Retriever

    with KnowledgeBase.open(pg_url, create=True) as kb:
        kb.ingest_documents(_docs(), progress=False)
        retriever = Retriever(kb, mode="bm25", progress=False)
        assert retriever.retrieve("how long do refunds take", k=1)[0].chunk.doc_id == "refunds"
        assert terminate_others(pg_url) >= 1
        hits = retriever.retrieve("when do orders ship", k=1)  # the first statement finds the connection gone
        assert hits[0].chunk.doc_id == "shipping" and kb.db.reconnects == 1
        # writes work on the new connection too
        kb.ingest_documents([RawDocument("returns", "Returns are free within 30 days.", "returns.md")], progress=False)
        assert kb.revision == 2 and kb.stats()["documents"] == 3


def test_an_audit_write_cut_inside_its_transaction_is_written_once(pg_url):
    """The writer is cut while it waits for the log's lock, inside its transaction: the server rolled the
    transaction back, so it is run again on a new connection, from the chain's head as it is then."""
    with KnowledgeBase.open(pg_url, create=True):
        pass
    with AuditLog.beside(pg_url) as log:
        log.write(make_record("r0"))
        from citebound.db.postgres import _lock_key

        holder = _admin(pg_url)
        holder.execute("SELECT pg_advisory_lock(%s)", (_lock_key("audit"),))  # the log's writer lock, held
        result: dict = {}
        writer = threading.Thread(target=lambda: result.update(rec=log.write(make_record("r1"))))
        writer.start()
        deadline = time.monotonic() + 30
        while not terminate_others(pg_url, "wait_event_type = 'Lock' AND wait_event = 'advisory'"):
            assert time.monotonic() < deadline, "the writer never waited for the lock"
            time.sleep(0.05)
        holder.execute("SELECT pg_advisory_unlock(%s)", (_lock_key("audit"),))
        holder.close()
        writer.join(60)
        assert not writer.is_alive() and "rec" in result
        log.write(make_record("r2"))
        assert [r[0] for r in log._db.execute("SELECT id FROM requests ORDER BY seq")] == ["r0", "r1", "r2"]
        assert log.verify() == [] and log._db.reconnects == 1
        assert result["rec"].prev_hash == log._db.execute("SELECT hash FROM requests WHERE id = 'r0'").fetchone()[0]


def test_a_statement_inside_a_transaction_is_not_repeated(pg_url):
    """Cut in the middle of a write transaction: the error says nothing was committed, nothing was, and
    the next statement works on a new connection."""
    from citebound.db import ConnectionLost, write_transaction

    with KnowledgeBase.open(pg_url, create=True) as kb:
        with pytest.raises(ConnectionLost, match="rolled back") as lost:
            with write_transaction(kb.db) as db:
                db.execute("INSERT INTO meta (key, value) VALUES ('half', 'written')")
                terminate_others(pg_url)
                db.execute("INSERT INTO meta (key, value) VALUES ('other', 'half')")
        assert lost.value.committed is False
        assert kb.get_setting("half") is None and kb.db.reconnects == 1


def test_a_database_that_stays_away_gives_a_clear_error(pg_url, postgres_server):
    with KnowledgeBase.open(pg_url, create=True) as kb:
        kb.ingest_documents(_docs(), progress=False)
        name = urlsplit(pg_url).path.lstrip("/")
        with _admin(postgres_server.uri) as admin:
            admin.execute(f"DROP DATABASE {name} WITH (FORCE)")  # cuts the KB's connection, and it cannot come back
        for _ in range(2):  # every statement tries once more, and says why it cannot
            with pytest.raises(KnowledgeBaseError, match=f"cannot connect to .*{name}.*does not exist"):
                kb.stats()


def test_the_kb_answers_again_after_the_database_server_restarts(tmp_path_factory):
    """A PostgreSQL of its own, shut down (fast) and started again between two queries: while it is
    down each statement says it cannot connect, and once it is back the next one works."""
    import os
    import signal

    from helpers.postgres import start_server

    from citebound.retrieval import Retriever

    server = start_server(tmp_path_factory)
    if isinstance(server, str):
        pytest.skip(server)
    try:
        url = server.new_database()
        with KnowledgeBase.open(url, create=True) as kb:
            kb.ingest_documents(_docs(), progress=False)
            retriever = Retriever(kb, mode="bm25", progress=False)
            assert retriever.retrieve("how long do refunds take", k=1)[0].chunk.doc_id == "refunds"
            pid = server._server.get_pid()
            os.kill(pid, signal.SIGINT)  # fast shutdown: clients are disconnected
            deadline = time.monotonic() + 30
            while True:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                assert time.monotonic() < deadline, "PostgreSQL did not stop"
                time.sleep(0.05)
            with pytest.raises(KnowledgeBaseError, match="cannot connect to"):
                kb.stats()
            server._server.ensure_postgres_running()  # the same data folder and socket
            assert retriever.retrieve("when do orders ship", k=1)[0].chunk.doc_id == "shipping"
            assert kb.stats()["documents"] == 2 and kb.db.reconnects == 1
    finally:
        server.stop()
