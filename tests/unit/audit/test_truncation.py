"""The audit log detects truncation: its chain head is also kept outside its own rows (issue 11)."""

from __future__ import annotations

import json
import sqlite3

from citebound.audit import AuditLog

from test_log import make_record  # noqa: E402 - the same record builder as the log's own tests


def _delete_newest(path, n: int) -> None:
    db = sqlite3.connect(path)
    ids = [r[0] for r in db.execute("SELECT id FROM requests ORDER BY seq DESC LIMIT ?", (n,))]
    for table in ("sources", "outputs", "verdicts", "flags"):
        db.executemany(f"DELETE FROM {table} WHERE request_id = ?", [(i,) for i in ids])
    db.executemany("DELETE FROM requests WHERE id = ?", [(i,) for i in ids])
    db.commit()
    db.close()


def test_deleting_the_newest_records_is_detected(tmp_path):
    path = tmp_path / "audit.sqlite3"
    with AuditLog(path) as log:
        for i in range(5):
            log.write(make_record(f"r{i}"))
        assert log.verify() == []
        head = json.loads(log.head_path.read_text())
        assert head["seq"] == 5 and head["hash"] == log.get("r4").hash
    _delete_newest(path, 2)
    with AuditLog(path) as log:
        assert len(log) == 3
        problems = log.verify()
    assert len(problems) == 1 and "log truncated" in problems[0] and "ends at record #3" in problems[0]


def test_a_head_behind_the_log_is_fine_and_the_next_write_moves_it(tmp_path):
    # A process killed between COMMIT and writing the head leaves the head one record behind: not a problem.
    path = tmp_path / "audit.sqlite3"
    with AuditLog(path) as log:
        log.write(make_record("a"))
        old_head = log.head_path.read_text()
        log.write(make_record("b"))
        log.head_path.write_text(old_head)
        assert log.verify() == []
        log.write(make_record("c"))
        assert json.loads(log.head_path.read_text())["seq"] == 3 and log.verify() == []


def test_replacing_the_newest_record_and_its_hash_is_detected(tmp_path):
    path = tmp_path / "audit.sqlite3"
    with AuditLog(path) as log:
        log.write(make_record("a"))
        log.write(make_record("b"))
    db = sqlite3.connect(path)
    db.execute("UPDATE requests SET hash = ? WHERE id = 'b'", ("0" * 64,))
    db.commit()
    db.close()
    with AuditLog(path) as log:
        problems = log.verify()
    assert any("does not match the recorded chain head" in p for p in problems)


def test_a_missing_or_garbled_head_file_is_reported(tmp_path):
    path = tmp_path / "audit.sqlite3"
    with AuditLog(path) as log:
        log.write(make_record("a"))
        log.head_path.unlink()
        assert any("no chain head file" in p for p in log.verify())
        log.head_path.write_text("not json")
        assert any("is not a chain head" in p for p in log.verify())


def test_an_empty_log_and_a_log_without_hashing_need_no_head(tmp_path):
    with AuditLog(tmp_path / "empty.sqlite3") as log:
        assert log.verify() == [] and not log.head_path.exists()
    with AuditLog(tmp_path / "plain.sqlite3", hash_chain=False) as log:
        log.write(make_record("a"))
        assert log.verify() == [] and not log.head_path.exists()
