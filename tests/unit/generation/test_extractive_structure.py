"""The extractive backend on structured documents (Markdown and HTML, ingested into a real KB): it never
answers with a heading alone, a sentence that introduces a list or table comes with its items, and
every cited span is exact offsets into the document version's text."""


import pytest

from citebound.generation import GenerationRequest, get_backend
from citebound.kb import KnowledgeBase
from citebound.pipeline import ask
from citebound.retrieval import Retriever
from citebound.text.structure import STRUCTURAL, lines
from citebound.verify import verify_answer
from citebound.verify.schema import parse_reply

STORAGE_MD = """# Datatypes In SQLite

## Storage Classes and Datatypes

Each value stored in an SQLite database has one of the following storage classes:

- NULL. The value is a NULL value.
- INTEGER. The value is a signed integer.
- REAL. The value is a floating point value.
- TEXT. The value is a text string.
- BLOB. The value is a blob of data.

Maximum Number Of Columns In A Table

The maximum number of columns in a table is 2000 by default.
"""

LIMITS_HTML = """<html><body><h1>Limits In SQLite</h1>
<h2>Maximum Length Of A String Or BLOB</h2>
<p>The maximum number of bytes in a string or BLOB is defined by the macro SQLITE_MAX_LENGTH.</p>
<p>The journal modes are:</p>
<ul><li>DELETE, the default journal mode</li><li>TRUNCATE journal mode</li><li>WAL, write-ahead logging</li></ul>
<h2>Default Limits Of SQLite Databases</h2>
<p>The default limits are the following:</p>
<table><tr><th>Limit</th><th>Default</th></tr><tr><td>SQLITE_MAX_LENGTH</td><td>1000000000</td></tr>
<tr><td>SQLITE_MAX_COLUMN</td><td>2000</td></tr></table>
</body></html>"""

ALWAYS = {"threshold": 0.0}  # answer every question: which sentences are picked is what is tested


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    folder = tmp_path_factory.mktemp("structure")
    docs = folder / "docs"
    docs.mkdir()
    (docs / "storage.md").write_text(STORAGE_MD)
    (docs / "limits.html").write_text(LIMITS_HTML)
    kb = KnowledgeBase.open(folder / "kb", create=True)
    kb.ingest([docs], progress=False)
    yield kb
    kb.close()


@pytest.fixture(scope="module")
def retriever(kb):
    return Retriever(kb, mode="bm25", progress=False)


def on_structural_lines_only(text, start, end):
    covered = [ln for ln in lines(text) if ln.end > start and ln.start < end and ln.kind != "blank"]
    return bool(covered) and all(ln.kind in STRUCTURAL for ln in covered)


QUESTIONS = [
    ("Which storage classes does SQLite have?", "storage.md", ["NULL", "INTEGER", "REAL", "TEXT", "BLOB"]),
    ("Which journal modes are there?", "limits.html", ["DELETE", "TRUNCATE", "WAL"]),
    ("What are the default limits?", "limits.html", ["SQLITE_MAX_LENGTH", "1000000000", "SQLITE_MAX_COLUMN"]),
    ("What is the maximum number of columns in a table?", "storage.md", ["2000"]),
]


@pytest.mark.parametrize(("question", "doc", "wanted"), QUESTIONS)
def test_answers_carry_the_list_never_a_heading_and_offsets_are_exact(kb, retriever, question, doc, wanted):
    # The extractive backend's own checker (deterministic): the list is in the answer; the cited span is
    # the verifier's evidence window (at most two sentences of the source), exact but not the whole list.
    result = ask(question, kb, retriever=retriever, audit=False, backend="extractive", backend_options=ALWAYS)
    assert not result.abstained, (result.abstain_reason, result.removed)
    assert not result.removed, result.removed
    assert all(w in result.answer for w in wanted), result.answer
    for c in result.citations:
        text = kb.document_text(c.doc_id, c.version)
        assert text[c.start:c.end] == c.quote
        assert not on_structural_lines_only(text, c.start, c.end), c.quote


@pytest.mark.parametrize(("question", "doc", "wanted"), QUESTIONS)
def test_with_the_quote_stage_the_citation_spans_the_whole_list(kb, retriever, question, doc, wanted):
    # `full` settles a word-for-word copy at its quote stage (no model call), with the whole copy as its
    # evidence span, so the resolved citation is the introducer and all its items.
    result = ask(question, kb, retriever=retriever, audit=False, backend="extractive", backend_options=ALWAYS,
                 checker="full")
    assert not result.abstained, (result.abstain_reason, result.removed)
    assert not result.removed, result.removed
    assert all(w in result.answer for w in wanted), result.answer
    for c in result.citations:
        text = kb.document_text(c.doc_id, c.version)
        assert text[c.start:c.end] == c.quote
        assert not on_structural_lines_only(text, c.start, c.end), c.quote
    assert any(c.doc_id.endswith(doc) and all(w in c.quote for w in wanted) for c in result.citations)


def test_headings_are_never_candidates():
    backend = get_backend("extractive", **ALWAYS)
    text = STORAGE_MD
    scored = backend.score("What is the maximum number of columns in a table?", {"S1": text})
    assert scored and all(not on_structural_lines_only(text, c.start, c.end) for c in scored)
    assert "Maximum Number Of Columns In A Table" not in [c.text for c in scored]
    # before the structure rules this four-word-plus heading was a candidate sentence of its own
    assert scored[0].text == "The maximum number of columns in a table is 2000 by default."


def test_the_reply_quotes_the_list_verbatim_and_the_claim_is_one_sentence():
    backend = get_backend("extractive", **ALWAYS)
    sources = {"S1": STORAGE_MD}
    reply = parse_reply(backend.generate(GenerationRequest("Which storage classes does SQLite have?", sources)).text)
    quote = reply.citations[0].quote
    assert quote in STORAGE_MD and quote.startswith("Each value stored") and quote.endswith("blob of data.")
    assert "\n" not in reply.answer and reply.answer.count("[S1]") == 1
    for checker in ("deterministic", "full"):
        report = verify_answer(reply, sources, checker=checker)
        assert len(report.claims) == 1 and report.claims[0].label == "supported", (checker, report.to_dict())


def test_a_long_list_is_a_word_for_word_quote_for_the_full_checker():
    # Long items spread the claim's words over more than the deterministic cascade's two-sentence window;
    # the `full` checker's quote stage recognises the word-for-word copy and supports it without a model.
    items = "\n".join(f"- {name}. The value is stored as a {name.lower()} with its own rules for comparison, "
                      f"sorting and conversion between affinities." for name in ("INTEGER", "REAL", "TEXT", "BLOB"))
    source = f"Each value has one of the following storage classes:\n\n{items}\n\nNext paragraph here."
    backend = get_backend("extractive", **ALWAYS)
    reply = parse_reply(backend.generate(GenerationRequest("Which storage classes are there?", {"S1": source})).text)
    assert reply.citations[0].quote.endswith("between affinities.") and reply.citations[0].quote in source
    report = verify_answer(reply, {"S1": source}, checker="full")
    verdict = report.claims[0]
    assert verdict.label == "supported" and verdict.stage == "quote", report.to_dict()


def test_a_colon_sentence_without_what_it_announces():
    backend = get_backend("extractive", **ALWAYS)
    question = "When does a place where the value appears count?"
    cut = "Numbers are checked with what they count.\n\nA place where the value appears counts only when:\n\n1."
    whole = "A place where the value appears counts only when:\n\n1. *unit*: the source gives the same unit.\n"
    texts = [c.text for c in backend.score(question, {"S1": cut})]
    assert "A place where the value appears counts only when:" not in texts  # the chunk cut its list off
    scored = backend.score(question, {"S1": cut[cut.index("A place"):-4], "S2": whole})
    assert [c.source_id for c in scored if "counts only when" in c.text] == ["S2"]  # the one with its items
    # the last sentence of a source, with nothing after it, may be all there is (SQuAD cut such lists)
    last = "The Scottish Parliament meets weekly. The four general questions available to leaders are:"
    assert any(c.text.endswith("leaders are:") for c in backend.score("How many general questions?", {"S1": last}))
