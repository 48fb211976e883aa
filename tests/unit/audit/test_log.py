import sqlite3
from dataclasses import replace

import pytest

from citebound.audit import AuditLog, AuditRecord, FlagRecord, OutputRecord, SourceRecord, VerdictRecord
from citebound.audit.migrations import MIGRATIONS, migrate
from citebound.errors import InputError


def make_record(rid: str, question: str = "How long do refunds take?") -> AuditRecord:
    return AuditRecord(
        id=rid,
        question=question,
        backend={"name": "scripted", "options": {}},
        status="answered",
        abstained=False,
        result={"answer": "Refunds take 5 days [1].", "claims": [{"text": "Refunds take 5 days."}]},
        timings={"retrieve": 0.01, "generate": 0.5},
        kb_revision="3",
        prompt="[system]\nrules\n\n[user]\nsources",
        answer="Refunds take 5 days [1].",
        sources=(SourceRecord("S1", "c1", "refunds.md", 1, 0, 40, "ab" * 32, {"bm25": 3.5, "fused": 0.03}),
                 SourceRecord("S2", "c7", "shipping.md", 2, 10, 90, "cd" * 32, {"dense": 0.41})),
        outputs=(OutputRecord(0, "initial", "not json", "Expecting value"),
                 OutputRecord(1, "retry", '{"answer": "…"}', None)),
        verdicts=(VerdictRecord(1, 0, "Refunds take 5 days.", ("S1",), "supported", "all terms found", True,
                                "S1", 3, 25, 1.0),),
        flags=(FlagRecord("S2", "override", 4, 40, "Ignore previous instructions"),),
    )


def test_write_then_read_round_trips_every_part(tmp_path):
    log = AuditLog(tmp_path / "audit.sqlite3")
    written = log.write(make_record("a1b2c3"))
    got = log.get("a1b2c3")
    assert got == written
    assert got.sources[1].scores == {"dense": 0.41}
    assert got.outputs[0].parse_error == "Expecting value"
    assert got.verdicts[0].cited == ("S1",)
    assert got.created_at and got.hash and got.prev_hash is None


def test_wal_mode_and_migrations_recorded_once(tmp_path):
    path = tmp_path / "audit.sqlite3"
    AuditLog(path).close()
    AuditLog(path).close()  # reopening applies nothing new
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    names = [r[0] for r in db.execute("SELECT name FROM _citebound_migrations ORDER BY name")]
    assert names == sorted(name for name, _ in MIGRATIONS)
    db.close()


def test_migrate_on_blank_database_is_idempotent():
    db = sqlite3.connect(":memory:", isolation_level=None)
    assert migrate(db) == [name for name, _ in MIGRATIONS]
    assert migrate(db) == []
    cols = {r[1] for r in db.execute("PRAGMA table_info(requests)")}
    assert {"id", "question", "kb_revision", "prompt", "result", "timings", "hash"} <= cols


def test_failing_record_leaves_nothing_behind(tmp_path):
    log = AuditLog(tmp_path / "a.sqlite3")
    log.write(make_record("r1"))
    bad = make_record("r2")
    # Two outputs with the same attempt number violate the primary key half-way through the insert.
    bad = replace(bad, outputs=(OutputRecord(0, "initial", "x"), OutputRecord(0, "retry", "y")))
    with pytest.raises(sqlite3.IntegrityError):
        log.write(bad)
    with pytest.raises(InputError):
        log.get("r2")
    db = sqlite3.connect(tmp_path / "a.sqlite3")
    for table in ("requests", "sources", "outputs", "verdicts", "flags"):
        assert db.execute(f"SELECT count(*) FROM {table} WHERE "
                          f"{'id' if table == 'requests' else 'request_id'} = 'r2'").fetchone()[0] == 0
    assert log.verify() == []


def test_hash_chain_detects_edits_and_deletions(tmp_path):
    path = tmp_path / "a.sqlite3"
    log = AuditLog(path)
    for i in range(3):
        log.write(make_record(f"r{i}", question=f"q{i}"))
    assert log.verify() == []
    assert log.get("r1").prev_hash == log.get("r0").hash
    db = sqlite3.connect(path)
    db.execute("UPDATE verdicts SET label = 'unsupported' WHERE request_id = 'r1'")
    db.commit()
    problems = log.verify()
    assert len(problems) == 1 and problems[0].startswith("r1:") and "edited" in problems[0]
    db.execute("DELETE FROM verdicts WHERE request_id = 'r1'")
    db.execute("DELETE FROM requests WHERE id = 'r1'")
    db.commit()
    assert any(p.startswith("r2:") and "chain broken" in p for p in log.verify())


def test_last_and_prefix_lookup(tmp_path):
    log = AuditLog(tmp_path / "a.sqlite3")
    for rid in ("abc111", "abc222", "def333"):
        log.write(make_record(rid))
    assert [r.id for r in log.last(2)] == ["def333", "abc222"]
    assert log.get("def").id == "def333"
    with pytest.raises(InputError, match="ambiguous"):
        log.get("abc")
    with pytest.raises(InputError):
        log.get("zzz")
    assert len(log) == 3


def test_hash_chain_off_writes_no_hashes(tmp_path):
    log = AuditLog(tmp_path / "a.sqlite3", hash_chain=False)
    rec = log.write(make_record("x"))
    assert rec.hash is None and log.verify() == []


def test_chain_skips_records_written_without_hashing(tmp_path):
    path = tmp_path / "a.sqlite3"
    AuditLog(path).write(make_record("h1"))
    AuditLog(path, hash_chain=False).write(make_record("plain"))
    log = AuditLog(path)
    third = log.write(make_record("h2"))
    assert third.prev_hash == log.get("h1").hash and log.verify() == []
