"""replay() against a real KB whose documents change or disappear after the request was logged."""

import pytest
from helpers.scripted import ScriptedBackend

from citebound.audit import AuditLog
from citebound.audit.replay import replay
from citebound.kb import KnowledgeBase
from citebound.pipeline import ask
from citebound.retrieval import Retriever


@pytest.fixture
def setup(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "refunds.txt").write_text("Refunds are processed within five business days.\n\n"
                                      "Gift cards cannot be returned.")
    (docs / "shipping.txt").write_text("Express delivery costs 12 euros and arrives the next business day.")
    kb = KnowledgeBase.open(tmp_path / "kb", create=True)
    kb.ingest([docs], progress=False)
    log = AuditLog(tmp_path / "audit.sqlite3")
    yield docs, kb, log
    log.close()
    kb.close()


def logged_answer(kb, log, question, sentence, doc_suffix):
    retriever = Retriever(kb, mode="bm25", progress=False)
    label = next(h.source_id for h in retriever.retrieve(question, 5) if h.chunk.doc_id.endswith(doc_suffix))
    backend = ScriptedBackend().enqueue({"answer": f"{sentence} [{label}].",
                                         "citations": [{"source_id": label, "quote": sentence}]})
    result = ask(question, kb, backend=backend, retriever=retriever, audit=log)
    assert not result.abstained
    return log.get(result.request_id)


def test_unchanged_kb_replays_identically(setup):
    _, kb, log = setup
    record = logged_answer(kb, log, "How much is express delivery?", "Express delivery costs 12 euros", "shipping.txt")
    report = replay(record, kb)
    assert not report.changed and report.claims[0].label_now == "supported"
    assert {s.status for s in report.sources} == {"current"}


def test_removed_document_makes_the_claim_unsupported(setup):
    _, kb, log = setup
    record = logged_answer(kb, log, "How much is express delivery?", "Express delivery costs 12 euros", "shipping.txt")
    (doc_id,) = [s.doc_id for s in record.sources if s.doc_id.endswith("shipping.txt")]
    kb.remove(doc_id)
    report = replay(record, kb)
    (status,) = [s for s in report.sources if s.doc_id == doc_id]
    assert status.status == "removed" and report.changed
    assert report.claims[0].label_then == "supported" and report.claims[0].label_now == "unsupported"


def test_an_edit_elsewhere_in_the_kb_leaves_the_citation_current(setup):
    docs, kb, log = setup
    record = logged_answer(kb, log, "How long do refunds take?", "Refunds are processed within five business days",
                           "refunds.txt")
    (docs / "shipping.txt").write_text("Express delivery now costs 15 euros.")
    kb.ingest([docs], progress=False)
    report = replay(record, kb)
    refunds = [s for s in report.sources if s.doc_id.endswith("refunds.txt")]
    assert refunds[0].status == "current" and report.claims[0].label_now == "supported"
    assert report.kb_revision_now != report.kb_revision_then


def test_abstained_request_has_nothing_to_reverify(setup):
    _, kb, log = setup
    backend = ScriptedBackend().enqueue("no json", "still no json")
    result = ask("How long do refunds take?", kb, backend=backend,
                 retriever=Retriever(kb, mode="bm25", progress=False), audit=log)
    report = replay(log.get(result.request_id), kb)
    assert report.claims == () and "abstained" in report.note


def test_replay_rechecks_with_the_recorded_threshold_and_reports_no_change(setup):
    # "It is not possible to return gift cards" scores about 0.66 with the deterministic checker:
    # supported at the threshold 0.6 the request used, partial at the default 0.8. Re-checking with the
    # default (the old behaviour) would report a change that no KB edit caused.
    _, kb, log = setup
    retriever = Retriever(kb, mode="bm25", progress=False)
    question = "Can gift cards be returned?"
    label = next(h.source_id for h in retriever.retrieve(question, 5) if h.chunk.doc_id.endswith("refunds.txt"))
    backend = ScriptedBackend().enqueue({"answer": f"It is not possible to return gift cards [{label}].",
                                         "citations": [{"source_id": label, "quote": "Gift cards cannot be returned."}]})
    result = ask(question, kb, backend=backend, retriever=retriever, audit=log, checker="deterministic",
                 threshold=0.6)
    assert not result.abstained and result.verifier["threshold"] == 0.6
    report = replay(log.get(result.request_id), kb)
    assert report.checker["checker"] == "deterministic" and report.checker["threshold"] == 0.6
    assert report.checker["as_recorded"] and not report.changed
    assert report.claims[0].label_then == report.claims[0].label_now == "supported"
    overridden = replay(log.get(result.request_id), kb, threshold=0.8)  # an explicit override is said so
    assert not overridden.checker["as_recorded"] and overridden.claims[0].label_now == "partial"


def test_replay_of_an_answer_checked_with_full_uses_full(setup):
    _, kb, log = setup
    retriever = Retriever(kb, mode="bm25", progress=False)
    question = "How much is express delivery?"
    label = next(h.source_id for h in retriever.retrieve(question, 5) if h.chunk.doc_id.endswith("shipping.txt"))
    sentence = "Express delivery costs 12 euros and arrives the next business day"
    backend = ScriptedBackend().enqueue({"answer": f"{sentence} [{label}].",
                                         "citations": [{"source_id": label, "quote": sentence}]})
    result = ask(question, kb, backend=backend, retriever=retriever, audit=log, checker="full")
    assert result.verifier["checker"] == "full" and result.verifier["model"]
    report = replay(log.get(result.request_id), kb)
    assert report.checker["checker"] == "full" and report.checker["model"] == result.verifier["model"]
    assert not report.changed and report.note == ""
