"""`citebound serve` is ready before every chunk has a vector, and recovers from a lost PostgreSQL
connection. Real `citebound serve` processes on loopback, real HTTP, the bundled handbook, a real
PostgreSQL (pgserver) for the second test."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from urllib.parse import urlsplit

import httpx
import pytest

from citebound.kb import KnowledgeBase
from helpers.server_fixtures import HANDBOOK

QUESTION = {"question": "How long do refunds take?"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(kb: str, *args: str):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "citebound", "serve", "--kb", kb, "--port", str(port),
                             "--rate-limit", "0", "--workers", "2", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    return proc, f"http://127.0.0.1:{port}"


def _ready(proc, base: str, timeout: float = 240) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read()[-3000:]
        try:
            r = httpx.get(f"{base}/readyz", timeout=5)
            if r.status_code == 200:
                return r.json()
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError("the server was not ready in time")


def _stop(proc) -> str:
    proc.terminate()
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return err


def _until(check, timeout: float = 240, what: str = "") -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def _handbook(target) -> int:
    """The handbook ingested without vectors; how many chunk texts lack one."""
    with KnowledgeBase.open(target, create=True) as kb:
        kb.ingest([HANDBOOK], progress=False, embed=False)
        from citebound.models.embedder import MODEL_NAME

        return len(kb.missing_vectors(MODEL_NAME))


def _dense_of(body: dict) -> list[float]:
    return [s["scores"].get("dense", 0.0) for s in body["sources"]]


def test_ready_at_once_without_vectors_then_dense_once_embedded(tmp_path):
    target = tmp_path / "kb"
    missing = _handbook(target)
    assert missing > 0
    # --embed-missing off: ready with every vector missing, answers from BM25
    proc, base = _serve(str(target), "--embed-missing", "off")
    try:
        body = _ready(proc, base)
        assert body["ready"] and not body["embedding"]
        status = _until(lambda: (httpx.get(f"{base}/readyz").json() if httpx.get(f"{base}/readyz").json()
                                 ["vectors_missing"] is not None else None), what="the count of missing vectors")
        assert status["vectors_missing"] == missing and not status["embedding"]
        first = httpx.post(f"{base}/v1/ask", json=QUESTION, timeout=120)
        assert first.status_code == 200 and first.json()["sources"]
        assert set(_dense_of(first.json())) == {0.0}  # no chunk has a vector: BM25 alone ranked them
        # `citebound embed` in another process: the running server uses the vectors at its next query
        done = subprocess.run([sys.executable, "-m", "citebound", "embed", "--kb", str(target)],
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        after = httpx.post(f"{base}/v1/ask", json=QUESTION, timeout=120).json()
        assert all(d > 0 for d in _dense_of(after))
    finally:
        err = _stop(proc)
    assert f"{missing} chunk texts have no vector yet" in err and "citebound embed" in err


def test_background_embedding_fills_in_the_vectors_while_the_server_answers(tmp_path):
    target = tmp_path / "kb"
    missing = _handbook(target)
    proc, base = _serve(str(target))  # --embed-missing background is the default
    try:
        assert _ready(proc, base)["ready"]
        assert httpx.post(f"{base}/v1/ask", json=QUESTION, timeout=120).status_code == 200
        status = _until(lambda: (lambda b: b if b["vectors_missing"] == 0 and not b["embedding"] else None)(
            httpx.get(f"{base}/readyz").json()), what="the background embedding")
        assert status["ready"]
        after = httpx.post(f"{base}/v1/ask", json=QUESTION, timeout=120).json()
        assert all(d > 0 for d in _dense_of(after))
        metrics = httpx.get(f"{base}/metrics").text
        assert "citebound_vectors_missing 0" in metrics
    finally:
        err = _stop(proc)
    assert f"{missing} chunk texts have no vector yet" in err and f"embedded {missing} chunk texts" in err
    with KnowledgeBase.open(target) as kb:
        from citebound.models.embedder import MODEL_NAME

        assert kb.missing_vectors(MODEL_NAME) == {}


def test_a_server_on_postgresql_answers_again_after_its_connections_are_cut(postgres_server):
    """Every connection of the server (the KB's, the audit log's) is cut between two asks: the second ask
    is answered, and the audit log has each ask once, its hash chain intact."""
    import psycopg

    from citebound.audit import AuditLog
    from test_pg_reconnect import terminate_others

    url = postgres_server.new_database()
    _handbook(url)
    proc, base = _serve(url, "--embed-missing", "off")
    try:
        _ready(proc, base)
        first = httpx.post(f"{base}/v1/ask", json=QUESTION, timeout=120)
        assert first.status_code == 200
        assert terminate_others(url) >= 2
        second = httpx.post(f"{base}/v1/ask", json={"question": "Can I return an opened item?"}, timeout=120)
        assert second.status_code == 200, second.text
        third = httpx.post(f"{base}/v1/ask", json=QUESTION, timeout=120)
        assert third.status_code == 200
        ids = [r.json()["request_id"] for r in (first, second, third)]
        with AuditLog.beside(url) as log:
            logged = [r[0] for r in log._db.execute("SELECT id FROM requests ORDER BY seq")]
            assert [i for i in logged if i in ids] == ids and len(set(logged)) == len(logged)
            assert log.verify() == []
        # the database goes away for good: 503 with a reason the client can act on, not a 400 or a 500
        name = urlsplit(url).path.lstrip("/")
        with psycopg.connect(postgres_server.uri, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE {name} WITH (FORCE)")
        gone = httpx.post(f"{base}/v1/ask", json=QUESTION, timeout=120)
        assert gone.status_code == 503 and gone.json()["error"]["type"] == "database_unavailable"
        assert "postgres" not in gone.text.lower() and gone.headers["retry-after"] == "1"
        assert httpx.get(f"{base}/readyz").status_code == 503
    finally:
        _stop(proc)


@pytest.fixture(autouse=True)
def _reconnect_helpers_importable():
    """test_pg_reconnect lives in tests/unit/kb; its helper cuts connections."""
    here = os.path.join(os.path.dirname(__file__), "..", "kb")
    sys.path.insert(0, os.path.abspath(here))
    yield
    sys.path.remove(os.path.abspath(here))


def test_two_servers_on_one_postgresql_kb_embed_each_chunk_once(postgres_server):
    """Both start with every vector missing and --embed-missing background: they take turns on an
    advisory lock, so the chunk texts are embedded once between them, and both end up using them."""
    import re

    url = postgres_server.new_database()
    missing = _handbook(url)
    servers = [_serve(url), _serve(url)]
    try:
        for proc, base in servers:
            _ready(proc, base)
        with KnowledgeBase.open(url) as kb:
            from citebound.models.embedder import MODEL_NAME

            _until(lambda: not kb.missing_vectors(MODEL_NAME), what="the vectors")
        for _, base in servers:
            body = _until(lambda b=base: (lambda r: r if r["sources"] and all(d > 0 for d in _dense_of(r)) else None)(
                httpx.post(f"{b}/v1/ask", json=QUESTION, timeout=120).json()), what="dense scores on each server")
            assert body["sources"]
    finally:
        logs = [_stop(proc) for proc, _ in servers]
    embedded = [int(n) for log in logs for n in re.findall(r"embedded (\d+) chunk texts in the background", log)]
    assert sum(embedded) == missing, logs  # no text embedded twice
