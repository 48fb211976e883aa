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
from citebound.kb.textcodec import pack

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


@migration
def m008_compact_store(db: Any) -> None:
    """Less disk and one cheap read per retrieved chunk (issue 13, docs/scaling.md):

    - a version's text is stored compressed (`versions.body`, `citebound.kb.textcodec`), with its length
      in characters (`versions.chars`); chunks are still [start, end) of it, sliced in Python now;
    - each chunk records the latest version that contains it (`chunks.version`), which a retrieved
      chunk is cited from: no per-chunk MAX over `version_chunks` at query time, and that table's
      index by chunk id goes; so does the index of chunks by content hash (nothing looks chunks up
      by it: vectors are joined from the chunk side);
    - SQLite: documents, chunks and version_chunks are WITHOUT ROWID, so each key is stored once instead
      of in the table and again in its primary-key index (versions keeps its rowid: rows over about
      1 kB, common here, spill out of a WITHOUT ROWID page and left a quarter of its pages empty). The
      store runs VACUUM once this migration has run (`store._connect`), so an existing file shrinks too.

    Nothing is dropped before its data is copied, all in the one transaction of this migration: a
    process killed halfway leaves the old schema as it was. A database whose versions already have a
    `body` is left as it is (working copies of this change ran it as `m006_compact_store` before m007
    shipped)."""
    if _has_column(db, "versions", "body"):
        return
    if getattr(db, "dialect", "sqlite") == "postgresql":
        execute_script(db, """
            ALTER TABLE versions ADD COLUMN body BLOB;
            ALTER TABLE versions ADD COLUMN chars INTEGER;
        """)
        for rows in _version_pages(db):
            db.executemany("UPDATE versions SET body = ?, chars = ? WHERE doc_id = ? AND version = ?",
                           [(pack(text), len(text), doc_id, version) for doc_id, version, text in rows])
        execute_script(db, f"""
            ALTER TABLE versions ALTER COLUMN body SET NOT NULL;
            ALTER TABLE versions ALTER COLUMN chars SET NOT NULL;
            ALTER TABLE versions DROP COLUMN text;
            ALTER TABLE chunks ADD COLUMN version INTEGER;
            UPDATE chunks c SET version = {_LATEST_VERSION};
            ALTER TABLE chunks ALTER COLUMN version SET NOT NULL;
            DROP INDEX chunks_hash;
            DROP INDEX version_chunks_chunk;
        """)
        return
    db.execute("PRAGMA defer_foreign_keys = ON")  # chunks are copied before the rows that refer to them
    execute_script(db, f"""
        CREATE TABLE documents_new (
            doc_id TEXT PRIMARY KEY,
            current_version INTEGER NOT NULL,
            status TEXT NOT NULL DEFAULT 'active',
            source TEXT,
            updated_revision INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE versions_new (
            doc_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            body BLOB NOT NULL,
            chars INTEGER NOT NULL,
            source TEXT,
            ingested_at REAL NOT NULL,
            revision INTEGER NOT NULL,
            PRIMARY KEY (doc_id, version)
        );
        CREATE TABLE chunks_new (
            chunk_id TEXT PRIMARY KEY,
            doc_id TEXT NOT NULL,
            start INTEGER NOT NULL,
            end INTEGER NOT NULL,
            version INTEGER NOT NULL,
            content_hash TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE version_chunks_new (
            doc_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            ord INTEGER NOT NULL,
            chunk_id TEXT NOT NULL REFERENCES chunks_new(chunk_id),
            PRIMARY KEY (doc_id, version, ord)
        ) WITHOUT ROWID;
        INSERT INTO documents_new (doc_id, current_version, status, source, updated_revision)
            SELECT doc_id, current_version, status, source, updated_revision FROM documents ORDER BY doc_id;
        INSERT INTO chunks_new (chunk_id, doc_id, start, "end", version, content_hash)
            SELECT c.chunk_id, c.doc_id, c.start, c."end", {_LATEST_VERSION}, c.content_hash
            FROM chunks c ORDER BY c.chunk_id;
        INSERT INTO version_chunks_new (doc_id, version, ord, chunk_id)
            SELECT doc_id, version, ord, chunk_id FROM version_chunks ORDER BY doc_id, version, ord;
    """)
    for rows in _version_pages(db):
        db.executemany(
            "INSERT INTO versions_new (doc_id, version, content_hash, body, chars, source, ingested_at, revision) "
            "SELECT doc_id, version, content_hash, ?, ?, source, ingested_at, revision FROM versions "
            "WHERE doc_id = ? AND version = ?", [(pack(text), len(text), doc_id, version) for doc_id, version, text in rows])
    execute_script(db, """
        DROP TABLE version_chunks;
        DROP TABLE chunks;
        DROP TABLE versions;
        DROP TABLE documents;
        ALTER TABLE documents_new RENAME TO documents;
        ALTER TABLE versions_new RENAME TO versions;
        ALTER TABLE chunks_new RENAME TO chunks;
        ALTER TABLE version_chunks_new RENAME TO version_chunks;
        CREATE INDEX documents_revision ON documents(updated_revision);
    """)


@migration
def m009_compact_catalogue(db: Any) -> None:
    """Less disk for the catalogue (issue 13, docs/scaling.md): on 100k chunks it was 39 MB of the KB's
    54 MB before any text.

    - Content hashes (`versions.content_hash`, `chunks.content_hash`, `vectors.content_hash`) are the 32
      bytes of the sha256, not its 64 hexadecimal characters (`citebound.kb.chunk.content_digest`); what
      the store hands out (`active_chunks`, `missing_vectors`, the HTTP API) is still hexadecimal.
    - A document's source is stored once, with the version that came from it: `documents.source` is
      NULL when it equals its current version's (read as `COALESCE(d.source, v.source)`), and holds a
      source only when the document was brought back from another path without a new version.

    SQLite: the values are converted where they are (a column's declared type does not bind what it
    holds; a blob is stored as a blob) and the store runs VACUUM once this migration has run
    (`store._connect`). PostgreSQL: the columns become BYTEA. One transaction, like every migration: a
    process killed halfway leaves the KB as it was, and the next open migrates it."""
    if getattr(db, "dialect", "sqlite") == "postgresql":
        execute_script(db, """
            ALTER TABLE versions ALTER COLUMN content_hash TYPE BYTEA USING {_PG_DIGEST};
            ALTER TABLE chunks ALTER COLUMN content_hash TYPE BYTEA USING {_PG_DIGEST};
            ALTER TABLE vectors ALTER COLUMN content_hash TYPE BYTEA USING {_PG_DIGEST};
        """.format(_PG_DIGEST=_PG_DIGEST))
    else:
        db.create_function("cb_digest", 1, _digest, deterministic=True)
        execute_script(db, """
            UPDATE versions SET content_hash = cb_digest(content_hash) WHERE typeof(content_hash) = 'text';
            UPDATE chunks SET content_hash = cb_digest(content_hash) WHERE typeof(content_hash) = 'text';
            UPDATE vectors SET content_hash = cb_digest(content_hash) WHERE typeof(content_hash) = 'text';
        """)
    db.execute("UPDATE documents SET source = NULL WHERE source = (SELECT v.source FROM versions v "
               "WHERE v.doc_id = documents.doc_id AND v.version = documents.current_version)")


@migration
def m010_source_prefixes(db: Any) -> None:
    """A version's source is stored as a shared prefix + its document id when it is one (issue 13, disk):
    a file ingested from a folder has the source `<folder path>/<name>` and the id `<folder>/<name>`, a
    JSONL row `<file>#<id>` and the id `<id>`, so each version repeated the folder or file path (40 of
    its ~110 bytes on the 100k-chunk KB). `source_prefixes` holds each prefix once; `versions.source_prefix`
    names it and `versions.source` is then NULL; a source that does not end with its document id is kept
    whole, as before. Read as `COALESCE(v.source, p.prefix || v.doc_id)` (`store._VERSION_SOURCE`)."""
    execute_script(db, """
        CREATE TABLE source_prefixes (id INTEGER PRIMARY KEY AUTOINCREMENT, prefix TEXT NOT NULL UNIQUE);
        ALTER TABLE versions ADD COLUMN source_prefix INTEGER REFERENCES source_prefixes(id);
    """)
    ends_with_id = ("source IS NOT NULL AND length(source) >= length(doc_id) "
                    "AND substr(source, length(source) - length(doc_id) + 1) = doc_id")
    prefix = "substr(source, 1, length(source) - length(doc_id))"
    db.execute(f"INSERT INTO source_prefixes (prefix) SELECT DISTINCT {prefix} FROM versions WHERE {ends_with_id} "
               "ON CONFLICT (prefix) DO NOTHING")
    db.execute(f"UPDATE versions SET source_prefix = (SELECT p.id FROM source_prefixes p WHERE p.prefix = {prefix}), "
               f"source = NULL WHERE {ends_with_id}")


@migration
def m011_narrow_catalogue(db: Any) -> None:
    """Two things the 100k-chunk KB paid 4.1 of its 40.5 MB for and can do without (issue 13, disk):

    - `versions.content_hash` (33 bytes a version): whether a document is unchanged is now its stored
      length (`versions.chars`) and, when that matches, its stored text compared with the new one; the
      HTTP API's version hash (`KnowledgeBase.version_list`) is the sha256 of the stored text, the same
      value as before.
    - the index of documents by revision (m003): an index behind the KB finds the documents changed
      since its revision by reading the documents table through (86k documents: a few ms, against the
      index's 1.35 MB), which happens only when the index is behind (another process wrote the KB, a
      killed writer, the deferred commits of a long ingest).

    One transaction; SQLite rewrites `versions` for the dropped column and the store runs VACUUM once
    this migration has run (`store._connect`)."""
    execute_script(db, """
        DROP INDEX documents_revision;
        ALTER TABLE versions DROP COLUMN content_hash;
    """)


@migration
def m012_chunk_keys(db: Any) -> None:
    """Chunks by integer key, each version's chunk list in its own row (issue 13, disk: 8.2 MB of chunks
    and 4.4 of version_chunks on the 100k-chunk KB, before any text).

    - `chunks` is keyed by `chunk_key`, the first 64 bits of the chunk id as a signed integer (SQLite: the
      rowid itself, the key stored once), with `tail`, the other 32; the 'c' + 24 hex id handed out is
      `bm25_index.chunk_id_of(chunk_key, tail)`, as before. Since f217c32 no two chunks of a KB share a
      key (the BM25 index deletes by it).
    - SQLite: no per-chunk content hash; vectors are matched to chunks by hashing the chunk's text where
      that is needed (`load_vectors`, `missing_vectors`). PostgreSQL keeps it: dense search in the
      database joins the nearest vectors to chunks on it (`dense_db`, m007's index).
    - `version_chunks` goes: `versions.chunk_keys` holds the version's chunk keys in document order, 8
      bytes each (`store.pack_keys`). The chunks of a current version are those whose `chunks.version`
      is it (the latest version that has a chunk: m008).

    One transaction: a process killed inside it leaves the old tables as they were. The store runs
    VACUUM once this migration has run (`store._connect`)."""
    execute_script(db, "ALTER TABLE versions ADD COLUMN chunk_keys BLOB;")
    pages = []
    for rows in _version_chunk_pages(db):
        pages.append([(_pack_keys(keys), doc_id, version) for (doc_id, version), keys in rows])
    if getattr(db, "dialect", "sqlite") == "postgresql":
        for page in pages:
            db.executemany("UPDATE versions SET chunk_keys = ? WHERE doc_id = ? AND version = ?", page)
        execute_script(db, """
            DROP TABLE version_chunks;
            ALTER TABLE chunks ADD COLUMN chunk_key BIGINT;
            ALTER TABLE chunks ADD COLUMN tail BIGINT;
            UPDATE chunks SET chunk_key = ('x' || substr(chunk_id, 2, 16))::bit(64)::bigint,
                              tail = ('x' || '00000000' || substr(chunk_id, 18, 8))::bit(64)::bigint;
            ALTER TABLE chunks DROP COLUMN chunk_id;
            ALTER TABLE chunks ALTER COLUMN chunk_key SET NOT NULL;
            ALTER TABLE chunks ALTER COLUMN tail SET NOT NULL;
            ALTER TABLE chunks ADD PRIMARY KEY (chunk_key);
        """)
        return
    for page in pages:
        db.executemany("UPDATE versions SET chunk_keys = ? WHERE doc_id = ? AND version = ?", page)
    db.create_function("cb_chunk_key", 1, lambda cid: _chunk_key(cid)[0], deterministic=True)
    db.create_function("cb_chunk_tail", 1, lambda cid: _chunk_key(cid)[1], deterministic=True)
    execute_script(db, """
        CREATE TABLE chunks_new (
            chunk_key INTEGER PRIMARY KEY,
            tail INTEGER NOT NULL,
            doc_id TEXT NOT NULL,
            start INTEGER NOT NULL,
            end INTEGER NOT NULL,
            version INTEGER NOT NULL
        );
        INSERT INTO chunks_new (chunk_key, tail, doc_id, start, "end", version)
            SELECT cb_chunk_key(chunk_id), cb_chunk_tail(chunk_id), doc_id, start, "end", version FROM chunks ORDER BY 1;
        DROP TABLE version_chunks;
        DROP TABLE chunks;
        ALTER TABLE chunks_new RENAME TO chunks;
    """)


def _version_chunk_pages(db: Any, page: int = 2000):
    """Lists of ((doc_id, version), [chunk keys in order]) from `version_chunks`, `page` versions at a time."""
    rows = db.execute("SELECT doc_id, version, chunk_id FROM version_chunks ORDER BY doc_id, version, ord").fetchall()
    out: list[tuple[tuple[str, int], list[int]]] = []
    for doc_id, version, cid in rows:
        if not out or out[-1][0] != (doc_id, version):
            if len(out) >= page:
                yield out
                out = []
            out.append(((doc_id, version), []))
        out[-1][1].append(_chunk_key(cid)[0])
    if out:
        yield out


def _chunk_key(cid: str) -> tuple[int, int]:
    from citebound.kb.bm25_index import chunk_key

    return chunk_key(cid)


def _pack_keys(keys: list[int]) -> bytes:
    from citebound.kb.store import pack_keys

    return pack_keys(keys)


_PG_DIGEST = ("CASE WHEN content_hash ~ '^[0-9a-fA-F]{64}$' THEN decode(content_hash, 'hex') "
              "ELSE convert_to(content_hash, 'UTF8') END")


def _digest(value: str) -> bytes:
    """A stored hexadecimal sha256 as its 32 bytes; anything else (never written by the store) as its
    UTF-8, which matches no digest."""
    try:
        return bytes.fromhex(value) if len(value) == 64 else value.encode("utf-8")
    except ValueError:
        return value.encode("utf-8")


# the latest version of its document that has chunk `c` (0 for a chunk in no version: never cited)
_LATEST_VERSION = "COALESCE((SELECT MAX(vc.version) FROM version_chunks vc WHERE vc.chunk_id = c.chunk_id), 0)"


def _has_column(db: Any, table: str, column: str) -> bool:
    if getattr(db, "dialect", "sqlite") == "postgresql":
        return db.execute("SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() "
                          "AND table_name = ? AND column_name = ?", (table, column)).fetchone() is not None
    return any(row[1] == column for row in db.execute(f"PRAGMA table_info({table})"))


def _version_pages(db: Any, page: int = 2000):
    """Lists of (doc_id, version, text) of every stored version, `page` at a time in key order."""
    sql = "SELECT doc_id, version, text FROM versions {} ORDER BY doc_id, version LIMIT ?"
    rows = db.execute(sql.format(""), (page,)).fetchall()
    while rows:
        yield rows
        doc_id, version = rows[-1][0], rows[-1][1]
        rows = db.execute(sql.format("WHERE doc_id > ? OR (doc_id = ? AND version > ?)"),
                          (doc_id, doc_id, version, page)).fetchall()


def migrate(db: Any) -> list[str]:
    """Apply every migration not applied yet, each in its own transaction; return the names applied."""
    return migration.apply(db)

