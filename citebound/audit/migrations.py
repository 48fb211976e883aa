"""Schema of the audit log, as ordered migrations.

Each migration is a function registered with `@migration` (a `citebound.db.Migrations`); its name (zero-padded, unique) is recorded in
`_citebound_migrations` once applied, so `migrate()` is idempotent and an old log is brought up to date
when it is opened. Never edit a released migration: add a new one.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from citebound.db import Migrations, execute_script

migration = Migrations("_citebound_migrations")
MIGRATIONS = migration.steps


def migrate(db: Any) -> list[str]:
    """Apply every migration not yet applied, each in its own transaction. Returns the names applied.

    `db` must be in autocommit mode (`isolation_level=None`); transactions are explicit here.
    """
    return migration.apply(db)


@migration
def m001_requests(db: Any) -> None:
    execute_script(
        db,
        """
        CREATE TABLE requests (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,   -- write order, for listing and the hash chain
            id TEXT NOT NULL UNIQUE,                 -- request id (uuid4 hex)
            created_at TEXT NOT NULL,                -- ISO 8601, UTC
            question TEXT NOT NULL,
            kb_path TEXT,
            kb_revision TEXT,                        -- the KB's revision when the request ran
            backend TEXT NOT NULL,                   -- JSON: {name, options} (secrets masked)
            prompt TEXT,                             -- the prompt of the first call, rendered
            status TEXT NOT NULL,                    -- answered | abstained | error
            abstained INTEGER NOT NULL,
            abstain_reason TEXT,
            answer TEXT,                             -- the final answer text shown to the user
            result TEXT NOT NULL,                    -- JSON: the full final result (kept/removed claims)
            timings TEXT NOT NULL,                   -- JSON: seconds per stage
            prev_hash TEXT,                          -- hash chain (NULL when hashing is off)
            hash TEXT
        ) STRICT;
        CREATE TABLE sources (
            request_id TEXT NOT NULL REFERENCES requests(id),
            label TEXT NOT NULL,                     -- S1…Sk, stable for the request
            chunk_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            start INTEGER NOT NULL,                  -- chunk offsets into that document version
            "end" INTEGER NOT NULL,
            text_hash TEXT NOT NULL,                 -- sha256 of the chunk text shown to the model
            scores TEXT NOT NULL,                    -- JSON: bm25 / dense / fused …
            PRIMARY KEY (request_id, label)
        ) STRICT;
        CREATE TABLE outputs (
            request_id TEXT NOT NULL REFERENCES requests(id),
            attempt INTEGER NOT NULL,                -- 0, 1, … in call order
            kind TEXT NOT NULL,                      -- initial | retry | regenerate
            raw TEXT NOT NULL,                       -- the model's reply, unchanged
            parse_error TEXT,                        -- NULL when it matched the schema
            PRIMARY KEY (request_id, attempt)
        ) STRICT;
        CREATE TABLE verdicts (
            request_id TEXT NOT NULL REFERENCES requests(id),
            attempt INTEGER NOT NULL,                -- which output the claim came from
            idx INTEGER NOT NULL,
            claim TEXT NOT NULL,
            cited TEXT NOT NULL,                     -- JSON list of cited ids as written
            label TEXT NOT NULL,                     -- supported | partial | unsupported | uncited
            reason TEXT NOT NULL,
            source_id TEXT,
            span_start INTEGER,
            span_end INTEGER,
            score REAL,
            kept INTEGER NOT NULL,
            PRIMARY KEY (request_id, attempt, idx)
        ) STRICT;
        CREATE TABLE flags (
            request_id TEXT NOT NULL REFERENCES requests(id),
            source_id TEXT NOT NULL,
            pattern TEXT NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            excerpt TEXT NOT NULL
        ) STRICT;
        CREATE INDEX flags_request ON flags(request_id);
        """,
    )


@migration
def m002_chain_head(db: Any) -> None:
    """PostgreSQL only: the chain head as a row written in each record's transaction (SQLite keeps it in
    a file beside the log; a file is not shared between the machines of a PostgreSQL deployment)."""
    if getattr(db, "dialect", "sqlite") != "postgresql":
        return
    execute_script(db, "CREATE TABLE chain_head (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, "
                       "hash TEXT NOT NULL);")


def schema_sql() -> str:
    """The schema a fresh log ends up with, as SQL (what docs/audit-schema.md shows)."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    migrate(db)
    rows = db.execute(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
    ).fetchall()
    db.close()
    return ";\n\n".join(row[0].strip().replace("\n        ", "\n") for row in rows) + ";\n"


if __name__ == "__main__":  # python -m citebound.audit.migrations  -> the schema for docs/audit-schema.md
    print(schema_sql(), end="")
