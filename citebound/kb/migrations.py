"""Schema of the knowledge-base database, as an ordered list of migrations.

Each migration is a function registered with `@migration` (a `citebound.db.Migrations`, the runner the
audit log uses too); the names already applied are recorded in `_migrations`, so `migrate(db)` is
idempotent and runs on every `KnowledgeBase.open`. A migration and its record are applied in one
transaction. Add new schema changes as new functions at the end; never edit one that has shipped. The same migrations
build a PostgreSQL database: each statement is SQLite DDL that the connection rewrites (`db.ddl`).
"""

from __future__ import annotations

from typing import Any

from citebound.db import Migrations, execute_script

migration = Migrations("_migrations")
MIGRATIONS = migration.steps


@migration
def m001_initial(db: Any) -> None:
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
def m002_api_keys(db: Any) -> None:
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


@migration
def m003_documents_by_revision(db: Any) -> None:
    """The documents changed after a revision, found without a scan: how a BM25 index that is behind
    the KB catches up (`KnowledgeBase.sync_index`)."""
    execute_script(db, "CREATE INDEX documents_revision ON documents(updated_revision);")


@migration
def m004_postgres_vectors(db: Any) -> None:
    """PostgreSQL only: vectors are pgvector `vector` values (the table is new with the database, so
    nothing is converted). SQLite keeps float32 bytes."""
    if getattr(db, "dialect", "sqlite") != "postgresql":
        return
    execute_script(db, """
        CREATE EXTENSION IF NOT EXISTS vector;
        ALTER TABLE vectors DROP COLUMN vec;
        ALTER TABLE vectors ADD COLUMN vec vector NOT NULL;
    """)


@migration
def m005_chunk_text_once(db: Any) -> None:
    """A chunk's text is the slice [start, end) of its version's text (`store.CHUNK_TEXT`), no longer a
    second copy: on 100k chunks the copy was a third of the KB's disk. SQLite frees the pages for reuse;
    the file shrinks only with `VACUUM` (`sqlite3 kb.sqlite3 VACUUM`, with no other process using it)."""
    execute_script(db, "ALTER TABLE chunks DROP COLUMN text;")


@migration
def m007_postgres_vector_index(db: Any) -> None:
    """PostgreSQL only: dense search runs in the database (`citebound.kb.dense_db`), so the vectors get a
    pgvector HNSW index (cosine distance), and the chunks an index by content hash (the nearest vectors
    are joined back to the chunks that have their text). The `vec` column has no fixed dimension, so the
    index is on `vec::vector(384)` for the bundled embedder's rows only (a partial index; another model's
    vectors are searched exactly until a migration gives them an index of their own). pgvector's
    defaults: m = 16, ef_construction = 64. SQLite keeps searching in the process."""
    if getattr(db, "dialect", "sqlite") != "postgresql":
        return
    # literals, not the embedder's constants: what this migration creates must not change with the code
    db.execute("CREATE INDEX IF NOT EXISTS vectors_hnsw_minilm ON vectors USING hnsw "
               "((vec::vector(384)) vector_cosine_ops) WHERE model = 'all-MiniLM-L6-v2-int8'")
    db.execute("CREATE INDEX IF NOT EXISTS chunks_by_hash ON chunks(content_hash)")


def migrate(db: Any) -> list[str]:
    """Apply every migration not applied yet, each in its own transaction; return the names applied."""
    return migration.apply(db)

