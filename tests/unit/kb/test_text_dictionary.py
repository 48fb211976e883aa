"""Version texts packed with a zstd dictionary the KB trains on its own first large batch (textcodec
ZSTD_WHOLE / ZSTD_BLOCKS), on both backends: texts and chunks read back exactly, in this process and in a
fresh one; the dictionary is stored with the KB; a batch that rolls back leaves no dictionary behind."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from citebound.db import is_postgres
from citebound.kb import KnowledgeBase
from citebound.kb.chunk import chunk_spans
from citebound.kb.ingest import RawDocument
from citebound.kb.store import DICTIONARY_KEY
from citebound.kb.textcodec import (
    BLOCK,
    BLOCKS,
    DICT_MIN_TEXTS,
    WHOLE,
    ZSTD_BLOCKS,
    ZSTD_WHOLE,
    Dictionaries,
    TextCache,
    pack,
    train,
    unpack,
)

ZLIB, ZSTD = {WHOLE, BLOCKS}, {ZSTD_WHOLE, ZSTD_BLOCKS}
DOCS = Path(__file__).resolve().parents[3] / "docs"


def _paragraphs() -> list[str]:
    """Real prose: the paragraphs of citebound's own documentation (hundreds of them)."""
    out = []
    for path in sorted(DOCS.rglob("*.md")):
        out += [p.strip() for p in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")) if len(p.strip()) > 80]
    return out


PARAS = _paragraphs()


def _docs(n: int, prefix: str = "p") -> list[RawDocument]:
    return [RawDocument(f"{prefix}{i:04d}", text, f"{prefix}{i}.md") for i, text in enumerate(PARAS[:n])]


def _codecs(kb: KnowledgeBase) -> set[int]:
    return {bytes(body)[0] for (body,) in kb.db.execute("SELECT body FROM versions").fetchall()}


def test_the_docs_give_enough_text_to_train_on():
    assert len(PARAS) > 2 * DICT_MIN_TEXTS


def test_a_large_first_batch_trains_a_dictionary_and_texts_read_back(kb_target):
    long_text = " ".join(PARAS[:60])  # several blocks: the ZSTD_BLOCKS layout
    assert len(long_text) > 3 * BLOCK
    docs = _docs(300) + [RawDocument("long", long_text, "long.md")]
    with KnowledgeBase.open(kb_target, create=True, chunk_size=400, overlap=80) as kb:
        kb.ingest_documents(docs, progress=False, embed=False)
        assert _codecs(kb) == {ZSTD_WHOLE, ZSTD_BLOCKS}
        stored = kb.get_setting(DICTIONARY_KEY)
        assert stored is not None and kb.get_setting(f"{DICTIONARY_KEY}.{stored}")
        for doc in docs[::25] + docs[-1:]:
            assert kb.document_text(doc.doc_id) == doc.text
        # smaller than zlib text by text (the point of the dictionary)
        bodies = kb.db.execute("SELECT SUM(LENGTH(body)) FROM versions WHERE doc_id != 'long'").fetchone()[0]
        assert bodies < 0.9 * sum(len(pack(d.text)) for d in docs[:-1])
    # a fresh KnowledgeBase (what another process sees): chunks sliced from dictionary-packed texts
    with KnowledgeBase.open(kb_target) as kb:
        kb._texts.clear()
        ids = kb.chunk_ids("long")
        got = kb.get_chunks(ids)
        assert [c.text for c in got] == [long_text[s.start : s.end] for s in chunk_spans(long_text, 400, 80)]
        hit = kb.get_chunks([c for c, _ in kb.bm25.search("abstention threshold", 1)])[0]
        assert hit.text == kb.document_text(hit.doc_id)[hit.start : hit.end]
        # later batches, however small, use the stored dictionary
        kb.ingest_documents([RawDocument("late", PARAS[301], "late.md")], progress=False, embed=False)
        body = kb.db.execute("SELECT body FROM versions WHERE doc_id = 'late'").fetchone()[0]
        assert bytes(body)[0] == ZSTD_WHOLE and kb.document_text("late") == PARAS[301]


def test_a_small_first_batch_stays_on_zlib_until_a_large_one_comes(tmp_path):
    with KnowledgeBase.open(tmp_path / "kb", create=True) as kb:
        kb.ingest_documents(_docs(20), progress=False, embed=False)
        assert _codecs(kb) <= ZLIB and kb.get_setting(DICTIONARY_KEY) is None
        kb.ingest_documents(_docs(200, prefix="q"), progress=False, embed=False)
        assert _codecs(kb) & ZLIB and _codecs(kb) & ZSTD
        for doc in _docs(20) + _docs(200, prefix="q"):
            assert kb.document_text(doc.doc_id) == doc.text


def test_a_batch_that_rolls_back_leaves_no_dictionary(tmp_path, monkeypatch):
    kb = KnowledgeBase.open(tmp_path / "kb", create=True)
    calls = {"n": 0}
    real = kb._ingest_one

    def disk_full_on_the_fifth(doc, revision, now):  # a database error aborts the whole batch
        calls["n"] += 1
        if calls["n"] == 5:
            raise sqlite3.OperationalError("database or disk is full")
        return real(doc, revision, now)

    monkeypatch.setattr(kb, "_ingest_one", disk_full_on_the_fifth)
    with pytest.raises(sqlite3.OperationalError):
        kb.ingest_documents(_docs(200), progress=False, embed=False)
    assert kb.get_setting(DICTIONARY_KEY) is None and kb._codec.current is None
    assert kb.db.execute("SELECT COUNT(*) FROM versions").fetchone()[0] == 0
    monkeypatch.undo()
    kb.ingest_documents(_docs(200), progress=False, embed=False)  # trains again, and commits it
    assert kb.get_setting(DICTIONARY_KEY) is not None and _codecs(kb) <= ZSTD
    kb.close()
    with KnowledgeBase.open(tmp_path / "kb") as again:
        assert again.document_text("p0007") == PARAS[7]


def test_codec_round_trip_with_a_dictionary():
    data = train(PARAS[:300])
    assert data is not None
    dicts = Dictionaries()
    did = dicts.add(data, current=True)
    for text in ("", "a", PARAS[0], "é" * BLOCK, "€" * (BLOCK + 1), " ".join(PARAS[:40])):
        body = pack(text, dicts)
        assert body[0] in (ZSTD_WHOLE, ZSTD_BLOCKS)
        assert unpack(body, dicts) == text
        cache = TextCache(max_chars=3 * BLOCK, dictionaries=dicts)
        for start, end in ((0, len(text)), (len(text) // 3, len(text) // 2), (max(0, len(text) - 5), len(text))):
            assert cache.slice(("d", 1), body, start, end) == text[start:end]
    body = pack(PARAS[0], dicts)
    with pytest.raises(ValueError, match="through its knowledge base"):
        unpack(body)  # no dictionaries given
    with pytest.raises(ValueError, match=f"dictionary {did}, which this KB lacks"):
        unpack(body, Dictionaries())  # a KB without that dictionary
    assert train(PARAS[:3]) is None  # too few texts to learn from
    assert train([" ".join(PARAS[i * 40 : (i + 1) * 40]) for i in range(6)]) is not None  # a few long ones


def test_postgres_and_sqlite_store_the_dictionary_as_meta_text(kb_target):
    with KnowledgeBase.open(kb_target, create=True) as kb:
        kb.ingest_documents(_docs(150), progress=False, embed=False)
        keys = [k for (k,) in kb.db.execute("SELECT key FROM meta").fetchall() if k.startswith(DICTIONARY_KEY)]
        assert len(keys) == 2, keys  # the current id, and the dictionary itself
        assert is_postgres(str(kb_target)) == kb.shared


def test_compact_repacks_a_zlib_kb_with_a_dictionary_and_changes_no_text(kb_target):
    docs = _docs(300)
    with KnowledgeBase.open(kb_target, create=True, chunk_size=400, overlap=80) as kb:
        for lo in range(0, len(docs), 20):  # batches too small to train on: zlib throughout
            kb.ingest_documents(docs[lo : lo + 20], progress=False, embed=False)
        assert _codecs(kb) <= ZLIB and kb.get_setting(DICTIONARY_KEY) is None
        chunks_before = {c.id: c for c in kb.get_chunks([cid for cid, _, _ in kb.active_chunks()])}
        revision = kb.revision
        done = kb.compact()
        assert done["trained"] and done["repacked"] == len(docs) and done["bytes_after"] < 0.9 * done["bytes_before"]
        assert _codecs(kb) <= ZSTD and kb.revision == revision
        assert kb.compact()["repacked"] == 0  # nothing left to do
    with KnowledgeBase.open(kb_target) as kb:
        assert all(kb.document_text(d.doc_id) == d.text for d in docs)
        assert {c.id: c for c in kb.get_chunks(list(chunks_before))} == chunks_before


def test_compact_cli_on_a_kb_too_small_to_train_changes_nothing(tmp_path):
    import typer
    from typer.testing import CliRunner

    from citebound.cli import kb as kb_commands

    app = typer.Typer()
    kb_commands.register(app)
    with KnowledgeBase.open(tmp_path / "kb", create=True) as kb:
        kb.ingest_documents(_docs(5), progress=False, embed=False)
    result = CliRunner().invoke(app, ["compact", "--kb", str(tmp_path / "kb")])
    assert result.exit_code == 0 and "nothing changed" in result.output
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        assert _codecs(kb) <= ZLIB and all(kb.document_text(d.doc_id) == d.text for d in _docs(5))
