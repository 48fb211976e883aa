"""Schema of the knowledge-base database, as an ordered list of migrations.

Each migration is a function registered with `@migration` (a `citebound.db.Migrations`, the runner the
audit log uses too); the names already applied are recorded in `_migrations`, so `migrate(db)` is
idempotent and runs on every `KnowledgeBase.open`. A migration and its record are applied in one
transaction. Add new schema changes as new functions at the end; never edit one that has shipped.
"""

from __future__ import annotations

import sqlite3

from citebound.db import Migrations, execute_script

migration = Migrations("_migrations")
MIGRATIONS = migration.steps


@migration
def m001_initial(db: sqlite3.Connection) -> None:
    execute_script(db, """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        -- one row per document; status 'active' or 'removed'; current_version points into versions
        CREATE TABLE documents (
            doc_id TEXT PRIMARY KEY,
            current_version INTEGER NOT NULL,
            status TEXT NOT NULL DEFAULT 'active',
            source TEXT,
            updated_revision INTEGER NOT NULL
        );
        -- every version ever ingested stays here, so old citations still resolve
        CREATE TABLE versions (
            doc_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            text TEXT NOT NULL,
            source TEXT,
            ingested_at REAL NOT NULL,
            revision INTEGER NOT NULL,
            PRIMARY KEY (doc_id, version)
        );
        -- chunk ids hash doc id + offsets + text: a chunk unchanged between versions keeps its id
        CREATE TABLE chunks (
            chunk_id TEXT PRIMARY KEY,
            doc_id TEXT NOT NULL,
            start INTEGER NOT NULL,
            end INTEGER NOT NULL,
            text TEXT NOT NULL,
            content_hash TEXT NOT NULL
        );
        CREATE TABLE version_chunks (
            doc_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            ord INTEGER NOT NULL,
            chunk_id TEXT NOT NULL REFERENCES chunks(chunk_id),
            PRIMARY KEY (doc_id, version, ord)
        );
        CREATE INDEX version_chunks_chunk ON version_chunks(chunk_id);
        CREATE INDEX chunks_hash ON chunks(content_hash);
        -- embeddings keyed by the hash of the embedded text: the same text is never embedded twice
        CREATE TABLE vectors (
            content_hash TEXT NOT NULL,
            model TEXT NOT NULL,
            vec BLOB NOT NULL,
            PRIMARY KEY (content_hash, model)
        );
    """)


@migration
def m002_api_keys(db: sqlite3.Connection) -> None:
    """API keys of the HTTP service (citebound.kb.keys): only the sha256 of each key is stored."""
    execute_script(db, """
        CREATE TABLE api_keys (
            key_id TEXT PRIMARY KEY,
            key_hash TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL DEFAULT '',
            scopes TEXT NOT NULL,
            created_at TEXT NOT NULL,
            revoked_at TEXT
        );
    """)


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply every migration not applied yet, each in its own transaction; return the names applied."""
    return migration.apply(db)

