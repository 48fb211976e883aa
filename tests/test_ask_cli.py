"""`citebound ask / demo / trace / replay` through the real entry point, on a real KB in a temp folder,
and a process killed in the middle of `ask` (SIGKILL) leaving the audit log and the KB intact."""

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from importlib import resources
from pathlib import Path

import pytest

from citebound.audit import AuditLog
from citebound.kb import KnowledgeBase

HANDBOOK = resources.files("citebound") / "samples" / "handbook"
TESTS = Path(__file__).parent


def cli(*args, check=True, env=None):
    proc = subprocess.run([sys.executable, "-m", "citebound.cli", *args], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "OMP_NUM_THREADS": "1", **(env or {})})
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}")
    return proc


@pytest.fixture(scope="module")
def kb_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    docs = root / "docs"
    shutil.copytree(HANDBOOK, docs)
    with KnowledgeBase.open(root / "kb", create=True) as kb:
        kb.ingest([docs], progress=False)
    return root


def test_ask_json_then_trace_and_list(kb_dir):
    kb = str(kb_dir / "kb")
    out = json.loads(cli("ask", "How much does express delivery cost?", "--kb", kb, "--json").stdout)
    assert not out["abstained"] and "12 euros" in out["answer"]
    cit = out["citations"][0]
    assert cit["number"] == 1 and cit["doc_id"].endswith("shipping.md") and "12 euros" in cit["quote"]

    shown = cli("trace", out["request_id"][:10], "--kb", kb).stdout
    assert out["request_id"] in shown and "sources" in shown and "supported" in shown
    record = json.loads(cli("trace", out["request_id"], "--kb", kb, "--json").stdout)
    assert record["question"] == "How much does express delivery cost?" and record["outputs"]
    listing = cli("trace", "--last", "5", "--kb", kb).stdout
    assert out["request_id"][:12] in listing
    assert "intact" in cli("trace", "--verify-chain", "--kb", kb).stdout


def test_readable_answer_has_numbered_citations_and_quotes(kb_dir):
    text = cli("ask", "How long does it take to process a refund?", "--kb", str(kb_dir / "kb")).stdout
    assert "[1]" in text and "refunds.md" in text and "“Refunds are processed within five business days" in text


def test_bad_input_is_one_line_and_exit_2(kb_dir, tmp_path):
    for args in (["ask", "", "--kb", str(kb_dir / "kb")],
                 ["ask", "q?", "--kb", str(tmp_path / "nope")],
                 ["ask", "q?", "--kb", str(kb_dir / "kb"), "--backend", "nope"],
                 ["ask", "q?", "--kb", str(kb_dir / "kb"), "-o", "max_sentencs=2"],
                 ["trace", "doesnotexist", "--kb", str(kb_dir / "kb")],
                 ["ask"],                                                  # usage errors too
                 ["trace", "a", "b", "--kb", str(kb_dir / "kb")]):
        proc = cli(*args, check=False)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.strip().count("\n") == 0 or "Usage:" in proc.stderr, proc.stderr


def test_openai_backend_unreachable_is_a_clear_error(kb_dir):
    proc = cli("ask", "How long do refunds take?", "--kb", str(kb_dir / "kb"), "--backend", "openai",
               "-o", "base_url=http://127.0.0.1:9/v1", "-o", "model=m", "-o", "retries=0", check=False)
    assert proc.returncode == 2 and "cannot reach" in proc.stderr and "Traceback" not in proc.stderr


def test_replay_reports_a_stale_citation_after_the_document_changes(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(HANDBOOK, docs)
    kb = str(tmp_path / "kb")
    with KnowledgeBase.open(kb, create=True) as store:
        store.ingest([docs], progress=False)
    out = json.loads(cli("ask", "How much does express delivery cost?", "--kb", kb, "--json").stdout)
    same = json.loads(cli("replay", out["request_id"], "--kb", kb, "--json").stdout)
    assert not same["changed"] and all(s["status"] == "current" for s in same["sources"])

    shipping = docs / "shipping.md"
    shipping.write_text(shipping.read_text().replace("costs 12 euros", "costs 15 euros"))
    with KnowledgeBase.open(kb) as store:
        store.ingest([docs], progress=False)
    report = json.loads(cli("replay", out["request_id"], "--kb", kb, "--json").stdout)
    assert report["changed"]
    (stale,) = [s for s in report["sources"] if s["doc_id"].endswith("shipping.md")]
    assert stale["status"] == "stale" and stale["version_then"] == 1 and stale["version_now"] == 2
    (claim,) = report["claims"]
    assert claim["label_then"] == "supported" and claim["label_now"] == "unsupported" and claim["changed"]
    # The old citation still resolves to the text it cited.
    with KnowledgeBase.open(kb) as store:
        cit = out["citations"][0]
        assert store.document_text(cit["doc_id"], cit["version"])[cit["start"] : cit["end"]] == cit["quote"]


def test_demo_answers_two_questions_and_abstains_on_the_third():
    lines = [json.loads(line) for line in cli("demo", "--json").stdout.splitlines()]
    assert len(lines) == 3
    assert [r["abstained"] for r in lines] == [False, False, True]
    for r in lines[:2]:
        assert r["citations"] and all(c["quote"] for c in r["citations"])
    assert lines[2]["answer"] == "I could not find this in the knowledge base."


KILL_SCRIPT = textwrap.dedent("""
    import sys
    sys.path.insert(0, {tests!r})
    from helpers.scripted import ScriptedBackend
    from citebound.kb import KnowledgeBase
    from citebound.pipeline import ask
    from citebound.retrieval import Retriever

    kb = KnowledgeBase.open({kb!r})
    retriever = Retriever(kb, mode="bm25", progress=False)
    backend = ScriptedBackend(sleep=60, signal_file={marker!r})
    backend.enqueue('{{"answer": "never", "citations": [{{"source_id": "S1", "quote": "x"}}]}}')
    ask("How long do refunds take?", kb, backend=backend, retriever=retriever)
""")


def test_sigkill_in_the_middle_of_ask_leaves_log_and_kb_intact(kb_dir, tmp_path):
    kb = str(kb_dir / "kb")
    cli("ask", "How much does express delivery cost?", "--kb", kb)  # at least one complete record before
    with AuditLog.beside(kb) as log:
        before = len(log)
        last_hash = log.last(1)[0].hash
    marker = tmp_path / "generating"
    script = KILL_SCRIPT.format(tests=str(TESTS), kb=kb, marker=str(marker))
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the request never reached the backend"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    # No half record: the log has exactly the records it had, its chain verifies, SQLite says ok.
    with AuditLog.beside(kb) as log:
        assert len(log) == before and log.last(1)[0].hash == last_hash
        assert log.verify() == [] and log.integrity_check() == "ok"
    db = sqlite3.connect(Path(kb) / "audit.sqlite3")
    orphans = db.execute("SELECT count(*) FROM outputs WHERE request_id NOT IN (SELECT id FROM requests)")
    assert orphans.fetchone()[0] == 0
    db.close()
    # The KB opens and answers, and the next request is logged after the kill.
    out = json.loads(cli("ask", "How long does it take to process a refund?", "--kb", kb, "--json").stdout)
    assert not out["abstained"]
    with AuditLog.beside(kb) as log:
        assert len(log) == before + 1 and log.verify() == []
