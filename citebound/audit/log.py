"""The audit log: every `ask` request, written to SQLite beside the knowledge base.

- WAL mode, migrations applied when the log is opened (`AuditLog(path)`), never from the CLI.
- Each request is written in ONE transaction (`BEGIN IMMEDIATE` … `COMMIT`): a process killed at any
  point leaves either the whole record or none of it.
- Optional hash chain: each record's hash covers its content and the previous record's hash, so
  `verify()` detects an edited, removed or reordered record.
- The chain's head (the write order `seq` and hash of the newest record) is also kept outside the log's
  rows, in a small file beside it (`audit.sqlite3.head`, replaced atomically after each commit), so
  `verify()` also detects truncation: deleting the newest records leaves a chain that is intact in
  itself but ends before the recorded head. The head file is written after the commit, so a process
  killed in between leaves it one record behind, never ahead; a head behind the log is not a problem.
- In PostgreSQL (`AuditLog("postgresql://…")`, the log of a KB kept there), the same tables and
  migrations; writers on any machine serialise on the log's advisory lock (`citebound.db.postgres`), so
  the chain stays one chain, and the head is a row of table `chain_head` written in the record's own
  transaction (no file is shared between machines).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citebound.audit.migrations import migrate
from citebound.db import is_postgres, open_sqlite, run_write
from citebound.errors import InputError, KnowledgeBaseError

AUDIT_FILENAME = "audit.sqlite3"
HEAD_SUFFIX = ".head"

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SourceRecord:
    label: str
    chunk_id: str
    doc_id: str
    version: int
    start: int
    end: int
    text_hash: str
    scores: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class OutputRecord:
    attempt: int
    kind: str  # initial | retry | regenerate
    raw: str
    parse_error: str | None = None


@dataclass(frozen=True, slots=True)
class VerdictRecord:
    attempt: int
    idx: int
    claim: str
    cited: tuple[str, ...]
    label: str
    reason: str
    kept: bool
    source_id: str | None = None
    span_start: int | None = None
    span_end: int | None = None
    score: float | None = None


@dataclass(frozen=True, slots=True)
class FlagRecord:
    source_id: str
    pattern: str
    start: int
    end: int
    excerpt: str


@dataclass(frozen=True, slots=True)
class AuditRecord:
    id: str
    question: str
    backend: dict[str, Any]
    status: str  # answered | abstained | error
    abstained: bool
    result: dict[str, Any]
    timings: dict[str, float]
    created_at: str = ""
    kb_path: str | None = None
    kb_revision: str | None = None
    prompt: str | None = None
    abstain_reason: str | None = None
    answer: str | None = None
    sources: tuple[SourceRecord, ...] = ()
    outputs: tuple[OutputRecord, ...] = ()
    verdicts: tuple[VerdictRecord, ...] = ()
    flags: tuple[FlagRecord, ...] = ()
    prev_hash: str | None = None
    hash: str | None = None

    def content_hash(self, prev_hash: str | None) -> str:
        """sha256 of the record's content (everything but the hashes) chained to `prev_hash`."""
        body = asdict(self)
        body.pop("hash")
        body["prev_hash"] = prev_hash
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=list)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class AuditLog:
    """Append-only request log. `AuditLog.beside(kb_dir)` opens the log that lives in a KB folder."""

    def __init__(self, path: str | Path, *, hash_chain: bool = True) -> None:
        self.hash_chain = hash_chain
        self.shared = is_postgres(str(path))
        if self.shared:
            from citebound.db.postgres import open_postgres

            self.path: Path | str = str(path)
            self._db = open_postgres(self.path, lock="audit")
            self.location = self._db.location
        else:
            self.path = Path(path)
            self.location = str(self.path)
        try:
            if not self.shared:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                # Autocommit mode: every transaction below is explicit, so a record is all-or-nothing.
                self._db = open_sqlite(self.path)  # WAL + synchronous=NORMAL: a crash never corrupts
            migrate(self._db)
        except sqlite3.DatabaseError as exc:
            if self.shared:
                self._db.close()
            raise KnowledgeBaseError(f"cannot open audit log {self.location}: {exc}") from None

    @classmethod
    def beside(cls, kb_dir: str | Path, **kwargs: Any) -> AuditLog:
        """The log of the KB at `kb_dir`: `audit.sqlite3` in its folder, or the same PostgreSQL database."""
        if is_postgres(str(kb_dir)):
            return cls(str(kb_dir), **kwargs)
        return cls(Path(kb_dir) / AUDIT_FILENAME, **kwargs)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> AuditLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing ---------------------------------------------------------------------------------
    def write(self, record: AuditRecord) -> AuditRecord:
        """Store `record` in one transaction; return it with its timestamp and hashes filled in."""
        if not record.created_at:
            record = replace(record, created_at=now_iso())
        # the write lock is taken first, so the chain's previous hash cannot change before COMMIT. A lost
        # PostgreSQL connection: the record is written again, from the chain's head as it is then, only
        # when the first attempt is known not to be stored (run_write; a record's id is looked up when
        # the connection dropped during COMMIT), so a retry neither duplicates nor loses a record.
        unsent = record

        def write(db: Any) -> AuditRecord:
            prev_hash = None
            rec = unsent
            if self.hash_chain:
                row = db.execute(
                    "SELECT hash FROM requests WHERE hash IS NOT NULL ORDER BY seq DESC LIMIT 1"
                ).fetchone()
                prev_hash = row[0] if row else None
                rec = replace(rec, prev_hash=prev_hash, hash=rec.content_hash(prev_hash))
            else:
                rec = replace(rec, prev_hash=None, hash=None)
            self._insert(rec)
            if self.hash_chain and self.shared:  # the head row commits with the record
                seq = db.execute("SELECT seq FROM requests WHERE id = ?", (rec.id,)).fetchone()[0]
                db.execute("INSERT INTO chain_head (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE "
                           "SET seq = excluded.seq, hash = excluded.hash", (seq, rec.hash))
            return rec

        def stored(db: Any) -> bool:
            return db.execute("SELECT 1 FROM requests WHERE id = ?", (unsent.id,)).fetchone() is not None

        record = run_write(self._db, write, committed=stored)
        if self.hash_chain and not self.shared:
            self._write_head()
        return record

    # -- the chain head, kept outside the log's rows ------------------------------------------------
    @property
    def head_path(self) -> Path:
        if self.shared:
            raise InputError("a log in PostgreSQL keeps its chain head in table chain_head, not in a file")
        return self.path.with_name(self.path.name + HEAD_SUFFIX)

    def _tail(self) -> tuple[int, str] | None:
        row = self._db.execute("SELECT seq, hash FROM requests WHERE hash IS NOT NULL ORDER BY seq DESC LIMIT 1").fetchone()
        return None if row is None else (int(row[0]), row[1])

    def read_head(self) -> dict[str, Any] | None:
        """The recorded chain head {"seq", "hash"}, or None when there is no head file. InputError when
        the file exists but cannot be read as a head. (PostgreSQL: the `chain_head` row.)"""
        if self.shared:
            row = self._db.execute("SELECT seq, hash FROM chain_head WHERE id = 1").fetchone()
            return None if row is None else {"seq": int(row[0]), "hash": row[1]}
        try:
            raw = self.head_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise InputError(f"cannot read the audit log's head file {self.head_path}: {exc}") from None
        try:
            head = json.loads(raw)
            if not isinstance(head, dict) or not isinstance(head.get("seq"), int) or not isinstance(head.get("hash"), str):
                raise ValueError("not a head")
        except ValueError:
            raise InputError(f"the audit log's head file {self.head_path} is not a chain head") from None
        return head

    def _write_head(self) -> None:
        """Record the newest hashed record as the chain head (after commit; never moves the head back)."""
        tail = self._tail()
        if tail is None:
            return
        try:
            current = self.read_head()
        except InputError:
            current = None
        if current is not None and current["seq"] >= tail[0]:
            return  # another writer already recorded this record or a newer one
        tmp = self.head_path.with_name(f"{self.head_path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps({"seq": tail[0], "hash": tail[1]}) + "\n", encoding="utf-8")
            os.replace(tmp, self.head_path)
        except OSError as exc:  # the record itself is committed; the head only strengthens verify()
            log.warning("could not write the audit log's head file %s: %s", self.head_path, exc)

    def _insert(self, r: AuditRecord) -> None:
        db = self._db
        db.execute(
            "INSERT INTO requests (id, created_at, question, kb_path, kb_revision, backend, prompt, status,"
            " abstained, abstain_reason, answer, result, timings, prev_hash, hash)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (r.id, r.created_at, r.question, r.kb_path, r.kb_revision, _dumps(r.backend), r.prompt, r.status,
             int(r.abstained), r.abstain_reason, r.answer, _dumps(r.result), _dumps(r.timings), r.prev_hash,
             r.hash),
        )
        db.executemany(
            'INSERT INTO sources (request_id, label, chunk_id, doc_id, version, start, "end", text_hash, scores)'
            " VALUES (?,?,?,?,?,?,?,?,?)",
            [(r.id, s.label, s.chunk_id, s.doc_id, s.version, s.start, s.end, s.text_hash, _dumps(s.scores))
             for s in r.sources],
        )
        db.executemany(
            "INSERT INTO outputs (request_id, attempt, kind, raw, parse_error) VALUES (?,?,?,?,?)",
            [(r.id, o.attempt, o.kind, o.raw, o.parse_error) for o in r.outputs],
        )
        db.executemany(
            "INSERT INTO verdicts (request_id, attempt, idx, claim, cited, label, reason, source_id,"
            " span_start, span_end, score, kept) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            [(r.id, v.attempt, v.idx, v.claim, _dumps(list(v.cited)), v.label, v.reason, v.source_id,
              v.span_start, v.span_end, v.score, int(v.kept)) for v in r.verdicts],
        )
        db.executemany(
            'INSERT INTO flags (request_id, source_id, pattern, start, "end", excerpt) VALUES (?,?,?,?,?,?)',
            [(r.id, f.source_id, f.pattern, f.start, f.end, f.excerpt) for f in r.flags],
        )

    # -- reading ---------------------------------------------------------------------------------
    def get(self, request_id: str) -> AuditRecord:
        """The record with this id, or with this unique id prefix (as `git` does)."""
        rows = self._db.execute(
            "SELECT * FROM requests WHERE id = ? OR id LIKE ? ESCAPE '\\' ORDER BY seq LIMIT 3",
            (request_id, _like_prefix(request_id)),
        ).fetchall()
        exact = [r for r in rows if r[1] == request_id]
        if exact:
            rows = exact
        if not rows or not request_id:
            raise InputError(f"no request {request_id!r} in the audit log {self.location}")
        if len(rows) > 1:
            raise InputError(f"request id prefix {request_id!r} is ambiguous; give more characters")
        return self._record(rows[0])

    def last(self, n: int = 10) -> list[AuditRecord]:
        """The `n` most recent records, newest first."""
        rows = self._db.execute("SELECT * FROM requests ORDER BY seq DESC LIMIT ?", (max(0, n),)).fetchall()
        return [self._record(row) for row in rows]

    def __len__(self) -> int:
        return self._db.execute("SELECT count(*) FROM requests").fetchone()[0]

    def _record(self, row: tuple) -> AuditRecord:
        (_seq, rid, created_at, question, kb_path, kb_revision, backend, prompt, status, abstained,
         abstain_reason, answer, result, timings, prev_hash, hash_) = row
        db = self._db
        sources = tuple(sorted(
            (SourceRecord(label, chunk_id, doc_id, version, start, end, th, json.loads(scores))
             for label, chunk_id, doc_id, version, start, end, th, scores in db.execute(
                'SELECT label, chunk_id, doc_id, version, start, "end", text_hash, scores FROM sources'
                " WHERE request_id = ?", (rid,))),
            key=lambda s: (_label_number(s.label), s.label),
        ))
        outputs = tuple(
            OutputRecord(*row) for row in db.execute(
                "SELECT attempt, kind, raw, parse_error FROM outputs WHERE request_id = ? ORDER BY attempt",
                (rid,))
        )
        verdicts = tuple(
            VerdictRecord(attempt=a, idx=i, claim=c, cited=tuple(json.loads(cited)), label=lab, reason=why,
                          kept=bool(kept), source_id=sid, span_start=ss, span_end=se, score=score)
            for a, i, c, cited, lab, why, sid, ss, se, score, kept in db.execute(
                "SELECT attempt, idx, claim, cited, label, reason, source_id, span_start, span_end, score, kept"
                " FROM verdicts WHERE request_id = ? ORDER BY attempt, idx", (rid,))
        )
        flags = tuple(
            FlagRecord(*row) for row in db.execute(
                'SELECT source_id, pattern, start, "end", excerpt FROM flags WHERE request_id = ?'
                f" ORDER BY {db.rowid}", (rid,))
        )
        return AuditRecord(
            id=rid, question=question, backend=json.loads(backend), status=status, abstained=bool(abstained),
            result=json.loads(result), timings=json.loads(timings), created_at=created_at, kb_path=kb_path,
            kb_revision=kb_revision, prompt=prompt, abstain_reason=abstain_reason, answer=answer,
            sources=sources, outputs=outputs, verdicts=verdicts, flags=flags, prev_hash=prev_hash, hash=hash_,
        )

    # -- integrity -------------------------------------------------------------------------------
    def verify(self) -> list[str]:
        """Problems found by recomputing every hash in write order; an empty list means intact.

        Records written with hashing off (hash NULL) are reported only if they break an existing chain.
        The chain must also reach the head recorded outside the log (`head_path`): a log that ends
        before it was truncated (its newest records deleted).
        """
        problems: list[str] = []
        prev: str | None = None
        hashes: dict[int, str] = {}
        for row in self._db.execute("SELECT * FROM requests ORDER BY seq").fetchall():
            record = self._record(row)
            if record.hash is None:
                continue
            hashes[int(row[0])] = record.hash
            if record.prev_hash != prev:
                problems.append(f"{record.id}: chain broken (previous hash {record.prev_hash} != {prev})")
            if record.content_hash(record.prev_hash) != record.hash:
                problems.append(f"{record.id}: content does not match its hash (edited?)")
            prev = record.hash
        try:
            head = self.read_head()
        except InputError as exc:
            return [*problems, str(exc)]
        if head is None:
            if hashes:
                where = "row in table chain_head" if self.shared else f"file {self.head_path.name} beside the log"
                problems.append(f"no chain head {where}: truncation cannot be "
                                "ruled out (the head is written with every record)")
        elif head["seq"] not in hashes:
            last = max(hashes, default=0)
            problems.append(f"log truncated: the chain head (record #{head['seq']}, hash {head['hash'][:12]}) is "
                            f"missing; the log ends at record #{last}")
        elif hashes[head["seq"]] != head["hash"]:
            problems.append(f"record #{head['seq']} does not match the recorded chain head (replaced?)")
        return problems

    def integrity_check(self) -> str:
        """SQLite's own structural check ("ok" when the file is sound). PostgreSQL checks its own
        storage (checksums, WAL); a log there answers "ok" once it can be read."""
        if self.shared:
            self._db.execute("SELECT count(*) FROM requests").fetchone()
            return "ok"
        return self._db.execute("PRAGMA integrity_check").fetchone()[0]


def _label_number(label: str) -> int:
    """The number in a source label (S12 -> 12; what SQLite's CAST(substr(label, 2) AS INTEGER) gave)."""
    digits = ""
    for ch in label[1:]:
        if not ch.isdigit():
            break
        digits += ch
    return int(digits) if digits else 0


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _like_prefix(prefix: str) -> str:
    return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
