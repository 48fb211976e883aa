"""The store's contract on both backends: each test takes `kb_target` (tests/conftest.py), a SQLite folder
or a fresh PostgreSQL database (pgserver), and runs on each. Real processes: kill -9 during an ingest and
during an audit write, and two processes writing one KB and one audit log at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from citebound.audit import AuditLog
from citebound.db import is_postgres
from citebound.kb import KnowledgeBase
from citebound.kb.ingest import RawDocument

CHILD_INGEST = """
import sys
from citebound.kb import KnowledgeBase
from citebound.kb.ingest import RawDocument
target, prefix, n, batch = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
docs = (RawDocument(f"{prefix}{i}", f"Document {prefix}{i} is about {prefix}topic{i % 7}. It is number {i}.", f"{prefix}{i}")
        for i in range(n))
with KnowledgeBase.open(target, create=True) as kb:
    kb.ingest_documents(docs, progress=False, batch_docs=batch)
print("finished", flush=True)
"""

CHILD_AUDIT = """
import sys
sys.path.insert(0, sys.argv[3])
from test_store_backends import make_record
from citebound.audit import AuditLog
target, prefix, n = sys.argv[1], sys.argv[2], int(sys.argv[4])
with AuditLog.beside(target) as log:
    i = 0
    while n < 0 or i < n:
        log.write(make_record(f"{prefix}{i:06d}", sources=40))
        i += 1
print("finished", flush=True)
"""


def make_record(rid: str, sources: int = 2):
    from citebound.audit import AuditRecord, OutputRecord, SourceRecord, VerdictRecord

    return AuditRecord(
        id=rid, question=f"How long do refunds take? ({rid})", backend={"name": "scripted", "options": {}},
        status="answered", abstained=False, result={"answer": "Refunds take 5 days [S1]."}, timings={"retrieve": 0.01},
        kb_revision="3", answer="Refunds take 5 days [S1].",
        sources=tuple(SourceRecord(f"S{i + 1}", f"c{i}", "refunds.md", 1, i, i + 40, "ab" * 32, {"bm25": 1.0 / (i + 1)})
                      for i in range(sources)),
        outputs=(OutputRecord(0, "initial", '{"answer": "Refunds take 5 days [S1]."}'),),
        verdicts=tuple(VerdictRecord(0, i, f"Claim {i}.", ("S1",), "supported", "all terms found", True, "S1", 0, 20, 1.0)
                       for i in range(sources)),
    )


def _docs(prefix: str, n: int) -> list[RawDocument]:
    return [RawDocument(f"{prefix}{i}", f"Document {prefix}{i} is about {prefix}topic{i % 7}. It is number {i}.",
                        f"{prefix}{i}") for i in range(n)]


def _child(code: str, *args: object, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, **(env or {})})


def _peek(target, sql: str) -> int:
    """One integer read straight from the database (no KnowledgeBase: it would sync the index), 0 if absent."""
    import sqlite3

    try:
        if is_postgres(str(target)):
            from citebound.db.postgres import open_postgres

            db = open_postgres(str(target), lock="peek")
        else:
            path = Path(target) / "kb.sqlite3" if Path(target).is_dir() else Path(target)
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
        try:
            row = db.execute(sql).fetchone()
            return int(row[0]) if row else 0
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def _wait_until(proc: subprocess.Popen, done, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, "the child made no progress"
        time.sleep(0.01)


def _finish(proc: subprocess.Popen) -> None:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0 and b"finished" in out, err.decode()


def test_versions_batches_and_retirement(kb_target):
    with KnowledgeBase.open(kb_target, create=True) as kb:
        report = kb.ingest_documents(_docs("d", 3) + [RawDocument("", "no id", "bad")], progress=False)
        assert sorted(report.added) == ["d0", "d1", "d2"] and len(report.skipped) == 1 and kb.revision == 1
        old_chunk = kb.chunk_ids("d1")[0]
        report = kb.ingest_documents([RawDocument("d1", "Document d1 changed its mind.", "d1"), *_docs("d", 1)],
                                     progress=False)
        assert report.updated == [("d1", 2)] and report.unchanged == ["d0"] and kb.revision == 2
        assert kb.document_text("d1", 1).startswith("Document d1 is about")  # old citations still resolve
        assert kb.get_chunk(old_chunk).doc_id == "d1"
        assert kb.remove("d2") == 3 and kb.remove("d2") == 3
        assert [d.doc_id for d in kb.documents()] == ["d0", "d1"]
        assert [kb.get_chunk(c).doc_id for c, _ in kb.bm25.search("changed mind")] == ["d1"]
        assert kb.bm25.search("dtopic2") == []  # d2 retired: no longer retrieved
        assert kb.ingest_documents(_docs("d", 3)[2:], progress=False).added == ["d2"]  # the same text brings it back
        assert kb.stats() == {"revision": 4, "documents": 3, "removed_documents": 0, "versions": 4, "chunks": 4,
                              "vectors": 0}


def test_an_index_on_another_machine_follows_the_database(kb_target, tmp_path, monkeypatch):
    """Two servers: one ingests, changes and retires documents; the other's retriever sees each change at
    its next query (PostgreSQL: each with its own local index, caught up from the database)."""
    from citebound.retrieval import Retriever

    monkeypatch.setenv("CITEBOUND_CACHE", str(tmp_path / "machine-a"))
    a = KnowledgeBase.open(kb_target, create=True)
    a.ingest_documents(_docs("x", 2), progress=False)
    monkeypatch.setenv("CITEBOUND_CACHE", str(tmp_path / "machine-b"))
    b = KnowledgeBase.open(kb_target)
    reader = Retriever(b, mode="bm25", progress=False)
    try:
        assert [h.chunk.doc_id for h in reader.retrieve("xtopic1", k=3)] == ["x1"]
        a.ingest_documents([RawDocument("x1", "Volcanoes erupt molten rock.", "x1"), *_docs("y", 1)], progress=False)
        assert [h.chunk.doc_id for h in reader.retrieve("volcanoes", k=3)] == ["x1"]
        assert reader.retrieve("xtopic1", k=3) == []  # the old version is gone from the index
        assert [h.chunk.doc_id for h in reader.retrieve("ytopic0", k=3)] == ["y0"]
        a.remove("y0")
        assert reader.retrieve("ytopic0", k=3) == []
        assert b.bm25.num_docs() == a.bm25.num_docs() == 2
    finally:
        a.close()
        b.close()


def test_kill_9_mid_ingest_keeps_whole_batches_and_the_ingest_resumes(kb_target):
    n, batch = 20_000, 100
    proc = _child(CHILD_INGEST, kb_target, "k", n, batch)
    _wait_until(proc, lambda: _peek(kb_target, "SELECT value FROM meta WHERE key = 'revision'") >= 3)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    with KnowledgeBase.open(kb_target) as kb:
        revision, stored = kb.revision, kb.stats()["documents"]
        assert 3 <= revision < n // batch, "the child was not killed mid-ingest"
        assert stored == revision * batch  # whole batches only: the one being written was rolled back
        assert kb.bm25.revision == revision and kb.bm25.num_docs() == stored
        assert kb.get_chunk(kb.bm25.search("number 17")[0][0]).doc_id == "k17"
        again = _docs("k", stored + batch)
        report = kb.ingest_documents((RawDocument(d.doc_id, d.text.replace("Document", "Document", 1), d.source)
                                      for d in again), progress=False, batch_docs=1000)
        assert len(report.unchanged) == stored and len(report.added) == batch
        assert kb.bm25.num_docs() == stored + batch


def test_kill_9_during_audit_writes_leaves_an_intact_chain(kb_target):
    here = Path(__file__).parent
    if not is_postgres(str(kb_target)):
        Path(kb_target).mkdir()
    proc = _child(CHILD_AUDIT, kb_target, "r", here, -1)
    count = (lambda: _peek(kb_target, "SELECT count(*) FROM requests")) if is_postgres(str(kb_target)) else \
        (lambda: _peek(Path(kb_target) / "audit.sqlite3", "SELECT count(*) FROM requests"))
    _wait_until(proc, lambda: count() >= 30)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    with AuditLog.beside(kb_target) as log:
        written = len(log)
        assert written >= 30 and log.verify() == []
        for record in log.last(written):  # every record is whole: no request without its sources
            assert len(record.sources) == 40 and len(record.verdicts) == 40
        log.write(make_record("after-the-kill"))
        assert log.verify() == [] and len(log) == written + 1


def test_two_processes_write_one_kb_and_one_log_at_once(kb_target, tmp_path):
    here = Path(__file__).parent
    n, batch = 300, 25
    caches = [{"CITEBOUND_CACHE": str(tmp_path / f"machine-{i}")} for i in (1, 2)]  # PostgreSQL: 2 machines
    writers = [_child(CHILD_INGEST, kb_target, p, n, batch, env=c) for p, c in zip("ab", caches)]
    for proc in writers:
        _finish(proc)
    loggers = [_child(CHILD_AUDIT, kb_target, p, here, 25) for p in ("p", "q")]
    for proc in loggers:
        _finish(proc)
    os.environ["CITEBOUND_CACHE"] = caches[0]["CITEBOUND_CACHE"]  # (restored by the autouse fixture)
    with KnowledgeBase.open(kb_target) as kb:
        assert kb.stats()["documents"] == 2 * n and kb.revision == 2 * n // batch
        assert kb.bm25.revision == kb.revision and kb.bm25.num_docs() == 2 * n  # each chunk once
        for doc in ("a17", "b17"):
            assert [kb.get_chunk(c).doc_id for c, _ in kb.bm25.search(f"Document {doc}", limit=1)] == [doc]
    with AuditLog.beside(kb_target) as log:
        assert len(log) == 50 and log.verify() == []


def test_the_audit_log_detects_an_edit_and_a_truncation(kb_target):
    if not is_postgres(str(kb_target)):
        Path(kb_target).mkdir()
    with AuditLog.beside(kb_target) as log:
        first = log.write(make_record("r1"))
        log.write(make_record("r2"))
        assert log.get("r1") == first and log.verify() == [] and log.integrity_check() == "ok"
        log._db.execute("UPDATE requests SET question = 'edited' WHERE id = 'r1'")
        assert any("does not match its hash" in p for p in log.verify())
        log._db.execute("UPDATE requests SET question = ? WHERE id = 'r1'", (first.question,))
        for table in ("sources", "outputs", "verdicts"):
            log._db.execute(f"DELETE FROM {table} WHERE request_id = 'r2'")
        log._db.execute("DELETE FROM requests WHERE id = 'r2'")
        assert any("truncated" in p for p in log.verify())


def test_both_backends_rank_alike(tmp_path, postgres_server):
    """The same documents give the same BM25 and dense rankings, vectors included, in either store."""
    from citebound.retrieval import Retriever

    docs = [RawDocument(f"s{i}", text, f"s{i}") for i, text in enumerate([
        "Owls hunt small mammals at night.", "Bees make honey from nectar.", "Volcanoes erupt molten rock.",
        "Glaciers carve valleys over thousands of years.", "Owls have silent feathers for hunting."])]
    rankings = []
    for target in (tmp_path / "kb", postgres_server.new_database()):
        with KnowledgeBase.open(target, create=True) as kb:
            kb.ingest_documents(docs, progress=False, embed=True)
            rankings.append([sorted((-round(h.scores["fused"], 5), round(h.scores.get("dense", 0.0), 5), h.chunk.doc_id)
                                     for h in Retriever(kb, mode=mode, progress=False).retrieve("how do owls hunt", k=5))
                             for mode in ("bm25", "dense", "hybrid")])  # sorted: tied scores come in any order
    assert rankings[0] == rankings[1] and rankings[0][1][0][2] in ("s0", "s4")


def test_the_drift_report_reads_the_log_of_either_store(kb_target):
    from citebound.evaluate.drift import build_report, load_records

    if not is_postgres(str(kb_target)):
        Path(kb_target).mkdir()
    with AuditLog.beside(kb_target) as log:
        for i in range(3):
            log.write(make_record(f"d{i}"))
    records, _ = load_records(str(kb_target) if is_postgres(str(kb_target)) else Path(kb_target))
    assert sorted(r.id for r in records) == ["d0", "d1", "d2"]
    assert build_report(records, by="day").periods[-1].requests == 3
