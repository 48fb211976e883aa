"""find_span: exact first, then case/whitespace/punctuation-insensitive, always original offsets."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from citebound.verify.spans import find_span, normalize_for_match


def test_exact_match_returns_the_first_occurrence():
    assert find_span("a b a b", "a b") == (0, 3)
    assert find_span("xx abc abc", "abc") == (3, 6)


def test_insensitive_to_case_whitespace_and_punctuation():
    passage = "Refunds are processed\nwithin FIVE business-days, usually."
    start, end = find_span(passage, "within five business days")
    assert passage[start:end] == "within FIVE business-days"


def test_none_when_absent_or_empty():
    assert find_span("abc", "xyz") is None
    assert find_span("abc", "") is None
    assert find_span("", "abc") is None
    assert find_span("abc", "...") is None  # nothing left after normalisation, and no exact match


def test_expanding_case_folds_are_never_cut_in_half():
    assert find_span("Straße", "STRASSE") == (0, 6)
    assert find_span("ß", "s") is None


@settings(max_examples=300, deadline=None)
@given(st.text(), st.text())
def test_never_raises_and_a_found_span_matches_under_the_declared_normalisation(passage, quote):
    span = find_span(passage, quote)
    if span is not None:
        start, end = span
        assert 0 <= start < end <= len(passage)
        assert normalize_for_match(passage[start:end]) == normalize_for_match(quote)


@settings(max_examples=300, deadline=None)
@given(st.text(), st.text(min_size=1), st.text())
def test_a_quote_inside_the_passage_is_always_found(before, quote, after):
    passage = before + quote + after
    start, end = find_span(passage, quote)
    assert passage[start:end] == quote


@settings(max_examples=200, deadline=None)
@given(st.text(), st.text(min_size=1), st.text())
def test_a_reformatted_quote_is_found(before, quote, after):
    assume(normalize_for_match(quote))
    passage = before + " " + quote + " " + after
    reformatted = " ".join(quote.upper().split())
    assume(normalize_for_match(reformatted) == normalize_for_match(quote))
    assert find_span(passage, reformatted) is not None


@settings(max_examples=300)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=60),
       st.text(alphabet=st.characters(max_codepoint=127), min_size=1, max_size=12))  # fmt: skip
def test_the_ascii_shortcut_answers_as_the_full_normalisation_does(passage, quote):
    from citebound.verify.spans import _normalised_with_offsets

    hay = _normalised_with_offsets(passage)[0]
    needle = normalize_for_match(quote)
    assume(needle and quote not in passage)
    assert (find_span(passage, quote) is not None) == (needle in hay)
