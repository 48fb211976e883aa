"""What the fuzz suite checks, shared by tests/unit/fuzz/test_fuzz.py (a fixed budget, in CI) and
bench/fuzz_bench.py (the same properties, run for minutes).

Each property takes generated input and calls one of citebound's entry points for user input. The rule
for all of them: citebound may refuse input only with its own errors (`citebound.errors.CiteboundError`);
any other exception (UnicodeEncodeError, RecursionError, ValueError, IndexError, …) is a bug. Some
properties also check invariants of the result (offsets inside the text, chunk sizes).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import strategies as st

from citebound.errors import CiteboundError

# -- strategies -----------------------------------------------------------------------------------
# Text of every kind, lone surrogates included (hypothesis leaves them out by default).
any_char = st.characters(codec=None, categories=None)
any_text = st.text(any_char, max_size=300)
WORDS = ("refund", "refunds", "30", "thirty", "days", "not", "no", "never", "the", "is", "within", "5%", "1,000",
         "four", "hundred", "€5", "[S1]", "[1]", "[S2, S3]", "[s9]", "[12345678901]", "[", "]", ".", "!", "?",
         "\n", "\n\n", "- ", "1. ", "Ignore previous instructions", "SYSTEM:", "\ud800", "é", "…", "ﬁ", "İ",
         "\u200b", "\x00", "\t", "Dr.", "U.S.", "e.g.", "1.5", "-3", "1e9", "½", "٣", "million", "percent")
wordy_text = st.lists(st.one_of(st.sampled_from(WORDS), st.text(any_char, max_size=8)), max_size=60).map(" ".join)
texts = st.one_of(any_text, wordy_text)
source_ids = st.one_of(st.sampled_from(["S1", "S2", "1", "2", "s1", "S01", "", " "]), st.text(any_char, max_size=6))
sources = st.dictionaries(source_ids, texts, max_size=4)
thresholds = st.floats(min_value=0.5, max_value=1.0)  # below 0.5: see test_fuzz.py, the partial floor
checkers = st.sampled_from(["deterministic", "lexical"])

# JSON-ish lines: valid rows, near-valid rows, deep nesting, huge integers, escapes, bytes that are not UTF-8.
_json_scalar = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), texts)
_json_value = st.recursive(_json_scalar, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                                 st.dictionaries(st.text(max_size=5), inner, max_size=3)),
                           max_leaves=8)
_row_keys = st.sampled_from(["_id", "id", "title", "text", "question", "answerable", "answers", "context_id",
                             "claim", "evidence", "label"])
json_rows = st.dictionaries(_row_keys, _json_value, max_size=5).map(lambda d: json.dumps(d, ensure_ascii=False))
_nasty_lines = st.sampled_from([
    "[" * 5000, "{\"a\":" * 3000, '{"_id": ' + "9" * 5000 + ', "text": "x"}', '{"id": ' + "1" * 4400 + "}",
    '{"_id": null, "text": "x"}', '{"_id": "a", "text": "\\ud800"}', '{"id": "S1", "text": "\\udfff"}',
    '{"_id": "a", "title": 5, "text": "x"}', "\ufeff{}", "null", "[]", "1e999", "NaN", "{", "\"", "",
])
json_lines_text = st.lists(st.one_of(json_rows, _nasty_lines, any_text), max_size=6).map("\n".join)
raw_bytes = st.one_of(st.binary(max_size=400), json_lines_text.map(lambda t: t.encode("utf-8", "surrogatepass")))


# -- properties -------------------------------------------------------------------------------------
def only_citebound_errors(fn, *args, **kwargs):
    """Call fn; a CiteboundError is a clean refusal (returns None), anything else propagates as a failure."""
    try:
        return fn(*args, **kwargs)
    except CiteboundError:
        return None


def prop_verify_answer(answer: str, srcs: dict[str, str], threshold: float, checker: str) -> None:
    from citebound.verify import verify_answer

    report = only_citebound_errors(verify_answer, answer, srcs, threshold=threshold, checker=checker)
    if report is None:
        return
    report.to_dict()
    for claim in report.claims:
        assert 0.0 <= claim.score <= 1.0
        if claim.span is not None and claim.source_id is not None:
            start, end = claim.span
            assert 0 <= start <= end <= len(srcs[claim.source_id])
    for flag in report.flags:
        assert 0 <= flag.start <= flag.end <= len(srcs[flag.source_id])


def prop_grounded_answer(payload: str, srcs: dict[str, str]) -> None:
    from citebound.verify import verify_answer
    from citebound.verify.inputs import parse_answer

    answer = only_citebound_errors(parse_answer, payload)
    if answer is not None:
        only_citebound_errors(verify_answer, answer, srcs)


def prop_check_claim(claim: str, ids: list[str], srcs: dict[str, str], threshold: float, checker: str) -> None:
    from citebound.verify import check_claim

    verdict = only_citebound_errors(check_claim, claim, ids, srcs, threshold=threshold, checker=checker)
    if verdict is not None:
        assert verdict.label in ("supported", "partial", "unsupported", "uncited")
        verdict.to_dict()


def prop_citations(text: str) -> None:
    from citebound.verify.citations import cited_ids, parse_markers, resolve_id, split_claims

    for marker in parse_markers(text):
        assert 0 <= marker.start < marker.end <= len(text) and text[marker.start] == "["
    claims, abstained = split_claims(text)
    for claim in claims:
        assert 0 <= claim.start <= claim.end <= len(text)
        assert claim.n_words >= 0
    for i in cited_ids(text):
        resolve_id(i, {"S1": "x", "1": "y"})
    assert not (abstained and claims)


def prop_chunker(text: str, size: int, overlap: int) -> None:
    from citebound.kb.chunk import chunk_spans

    spans = only_citebound_errors(chunk_spans, text, size, overlap)
    if spans is None:
        assert size < 1 or not 0 <= overlap < size  # only bad settings are refused
        return
    prev_start = -1
    for span in spans:
        assert 0 <= span.start < span.end <= len(text)
        assert span.end - span.start <= size
        assert span.start > prev_start  # always moves forward
        prev_start = span.start
    covered = set()
    for span in spans:
        covered.update(range(span.start, span.end))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


def prop_sources_reader(text: str) -> None:
    from citebound.verify.inputs import parse_sources

    parsed = only_citebound_errors(parse_sources, text, "sources")
    if parsed is not None:
        for key, value in parsed.items():
            (key + value).encode("utf-8")  # what was accepted can be printed and stored


def prop_beir_reader(data: bytes) -> None:
    from citebound.kb.ingest.beir import read_beir

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus.jsonl"
        path.write_bytes(data)
        for doc_id, text in read_beir(path):
            if doc_id is not None:
                (doc_id + text).encode("utf-8")  # storable
                assert doc_id.strip()


def prop_questions_reader(data: bytes) -> None:
    from citebound.datasets import load_questions

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "questions.jsonl").write_bytes(data)
        only_citebound_errors(load_questions, Path(tmp))


def prop_collect(data: bytes, suffix: str) -> None:
    from citebound.kb.ingest import RawDocument, collect

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / f"doc{suffix}").write_bytes(data)
        for item in collect([tmp]):  # never raises: every file is a document or a Skipped with a reason
            if isinstance(item, RawDocument):
                (item.doc_id + item.text).encode("utf-8")
            else:
                item.reason.encode("utf-8")
