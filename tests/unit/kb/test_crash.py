"""A real `kill -9` in the middle of an ingest, and an index left behind SQLite, must both leave a KB
that opens, answers, and finishes the ingest when it is run again."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citebound.kb import KnowledgeBase

BATCH = 200
N_DOCS = 30_000

CHILD = """
import sys
from citebound.kb import KnowledgeBase
kb = KnowledgeBase.open(sys.argv[1], create=True)
kb.ingest([sys.argv[2]], progress=False, batch_docs=int(sys.argv[3]))
print("finished", flush=True)
"""


def _write_corpus(path: Path, n: int) -> None:
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda".split()
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            text = f"Document {i} talks about {words[i % 11]} and {words[(i * 7) % 11]}. It is number {i}."
            fh.write(json.dumps({"_id": f"doc{i}", "title": f"Title {i}", "text": text}) + "\n")


def _revision(db_path: Path) -> int:
    try:
        con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=1)
        try:
            row = con.execute("SELECT value FROM meta WHERE key = 'revision'").fetchone()
            return int(row[0]) if row else 0
        finally:
            con.close()
    except sqlite3.Error:
        return 0


@pytest.mark.slow
def test_kill_9_mid_ingest_leaves_a_usable_kb_and_ingest_resumes(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    _write_corpus(corpus, N_DOCS)
    kb_dir = tmp_path / "kb"
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(kb_dir), str(corpus), str(BATCH)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while _revision(kb_dir / "kb.sqlite3") < 3:
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL

    with KnowledgeBase.open(kb_dir) as kb:
        revision = kb.revision
        n_docs = kb.stats()["documents"]
        assert 3 <= revision < N_DOCS // BATCH, "the child was not killed mid-ingest"
        assert n_docs == revision * BATCH  # whole batches only: the one being written was rolled back
        assert kb.bm25.revision == revision  # the index was re-synced if it lagged
        assert kb.bm25.num_docs() == n_docs
        hit = kb.bm25.search("number 17")[0][0]
        assert kb.get_chunk(hit).doc_id == "doc17"
        report = kb.ingest([corpus], progress=False, batch_docs=5000)
        assert len(report.unchanged) == n_docs and len(report.added) == N_DOCS - n_docs
        assert kb.bm25.num_docs() == N_DOCS


def test_an_index_behind_sqlite_is_detected_and_resynced_on_open(tmp_path):
    kb_dir = tmp_path / "kb"
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("Owls hunt at night.", encoding="utf-8")
    b.write_text("Bees make honey in hives.", encoding="utf-8")
    with KnowledgeBase.open(kb_dir, create=True) as kb:
        kb.ingest([a], progress=False)
    stale = tmp_path / "bm25-at-revision-1"
    shutil.copytree(kb_dir / "bm25", stale)
    with KnowledgeBase.open(kb_dir) as kb:
        kb.ingest([b], progress=False)
        kb.remove("a.txt")
        assert kb.revision == 3
    # the state a crash between the SQLite commit and the index commit leaves behind
    shutil.rmtree(kb_dir / "bm25")
    shutil.copytree(stale, kb_dir / "bm25")
    with KnowledgeBase.open(kb_dir) as kb:
        assert kb.bm25.revision == 3
        assert [kb.get_chunk(c).doc_id for c, _ in kb.bm25.search("honey bees")] == ["b.txt"]
        assert kb.bm25.search("owls night") == []


def test_a_missing_or_corrupt_index_is_rebuilt(tmp_path):
    kb_dir = tmp_path / "kb"
    doc = tmp_path / "a.txt"
    doc.write_text("Glaciers carve valleys over thousands of years.", encoding="utf-8")
    with KnowledgeBase.open(kb_dir, create=True) as kb:
        kb.ingest([doc], progress=False)
    shutil.rmtree(kb_dir / "bm25")
    (kb_dir / "bm25").mkdir()
    (kb_dir / "bm25" / "meta.json").write_text("{ not json")
    with KnowledgeBase.open(kb_dir) as kb:
        assert kb.bm25.search("glaciers valleys")


def test_a_second_process_opening_during_a_write_does_not_fight_for_the_index(tmp_path):
    kb_dir = tmp_path / "kb"
    doc = tmp_path / "a.txt"
    doc.write_text("Volcanoes erupt molten rock.", encoding="utf-8")
    with KnowledgeBase.open(kb_dir, create=True) as kb:
        kb.ingest([doc], progress=False)
        kb.db.execute("UPDATE meta SET value = '9' WHERE key = 'revision'")  # SQLite ahead of the index
        writer = kb.bm25._index.writer()  # the index is held by a writer, as during an ingest elsewhere
        try:
            with KnowledgeBase.open(kb_dir) as other:  # must open and answer from the last commit
                assert other.bm25.search("volcanoes")
        finally:
            writer.rollback()
            del writer
