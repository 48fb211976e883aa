"""Ingest answers early: a KB answers from BM25 before its chunks are embedded, hybrid retrieval uses the
vectors there are (and those committed later by another process), and a `citebound embed` killed with
SIGKILL resumes where it stopped."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citebound.kb import KnowledgeBase
from citebound.retrieval import Retriever

TOPICS = [
    ("scurvy", "Scurvy is caused by a lack of vitamin C; sailors on long voyages were given lemon juice."),
    ("bergen", "Bergen is one of the rainiest cities in Europe, with about 2250 millimetres of rain a year."),
    ("eiffel", "The Eiffel Tower in Paris is 330 metres tall and was finished in 1889."),
    ("aspirin", "Aspirin lowers the risk of a heart attack in people who have already had one."),
]


def _write(path: Path, ids: range) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for i in ids:
            name, text = TOPICS[i % len(TOPICS)]
            fh.write(json.dumps({"_id": f"{name}{i}", "title": "", "text": f"{text} This is note number {i}."}) + "\n")


def _vectors(db_path: Path) -> int:
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5)
    try:
        return con.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
    except sqlite3.Error:
        return 0
    finally:
        con.close()


def test_hybrid_answers_with_the_vectors_there_are_and_picks_up_new_ones(tmp_path):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _write(first, range(8))
    _write(second, range(8, 16))
    with KnowledgeBase.open(tmp_path / "kb", create=True) as kb:
        kb.ingest([first], progress=False, embed=True)
        kb.ingest([second], progress=False, embed=False)
        retriever = Retriever(kb, mode="hybrid", progress=False, embed_at_query=0)
        model = retriever.embedder.name
        assert len(kb.missing_vectors(model)) == 8
        hits = retriever.retrieve("How tall is the Eiffel Tower?", k=8)
        assert hits and hits[0].chunk.doc_id.startswith("eiffel")
        assert kb.stats()["vectors"] == 8  # the query embedded nothing
        dense = {h.chunk.doc_id: h.scores["dense"] for h in hits}
        assert all(dense[d] > 0 for d in dense if int(re.sub(r"\D", "", d)) < 8)
        assert all(dense[d] == 0.0 for d in dense if int(re.sub(r"\D", "", d)) >= 8)

        kb.ensure_vectors(retriever.embedder, progress=False)  # as `citebound embed` would, elsewhere
        hits = retriever.retrieve("How tall is the Eiffel Tower?", k=8)
        assert all(h.scores["dense"] > 0 for h in hits)  # the retriever reloaded the new vectors


def test_a_query_embeds_the_few_missing_chunks_itself(tmp_path):
    corpus = tmp_path / "a.jsonl"
    _write(corpus, range(4))
    with KnowledgeBase.open(tmp_path / "kb", create=True) as kb:
        kb.ingest([corpus], progress=False, embed=False)
        hits = Retriever(kb, mode="hybrid", progress=False).retrieve("rain in Bergen", k=2)
        assert hits[0].chunk.doc_id.startswith("bergen")
        assert kb.stats()["vectors"] == 4


@pytest.mark.slow
def test_killed_embed_resumes_where_it_stopped(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    _write(corpus, range(600))
    kb_dir = tmp_path / "kb"
    with KnowledgeBase.open(kb_dir, create=True) as kb:
        kb.ingest([corpus], progress=False, embed=False)
        total = kb.stats()["chunks"]
        assert Retriever(kb, mode="bm25", progress=False).retrieve("lemon juice sailors", k=1)  # answers now
    env = {**os.environ, "CITEBOUND_THREADS": "1"}
    cmd = [sys.executable, "-m", "citebound", "embed", "--kb", str(kb_dir), "--batch", "16"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 600
    try:
        while _vectors(kb_dir / "kb.sqlite3") < 48:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    at_kill = _vectors(kb_dir / "kb.sqlite3")
    assert 48 <= at_kill < total and at_kill % 16 == 0  # whole batches only

    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900, check=True)
    assert f"embedded {total - at_kill} chunks; 0 without a vector" in done.stdout
    with KnowledgeBase.open(kb_dir) as kb:
        assert kb.stats()["vectors"] == total
