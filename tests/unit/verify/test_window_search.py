"""A long source's evidence windows search for the claim's words instead of tabling every sentence's
terms (checks/lexical.py `claim_sentence_terms`): the two must agree on every term a window can see.
Here every source takes the search path (the length cut-off is set to 0), on text built to trip the
tokeniser's edges: apostrophes inside and around words, underscores, characters that change length
when case-folded, numbers in digits and words."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citebound.verify.checks import lexical
from citebound.verify.checks.lexical import claim_sentence_terms, stemmed_profile, stemmed_terms


@pytest.fixture(autouse=True)
def search_every_source(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    stemmed_profile.cache_clear()
    monkeypatch.setattr(lexical, "TABLE_SENTENCES_UP_TO", 0)
    yield
    stemmed_profile.cache_clear()  # later tests get profiles built the usual way


def _seen_by_window(per_sentence: tuple, terms: frozenset[str]) -> list[frozenset[str]]:
    return [frozenset(t) & terms for t in per_sentence]


PIECES = st.sampled_from(
    [" ", "\n\n", ". ", "? ", "Dr. ", "don't", "don", "t", "O'Neil", "neil", "Neil's", "'s", "''", "'", "’",
     "x'", "_", "a_b", "Months", "month", "refund", "Refunds", "Straße", "ÉCOLE", "école", "5", "five",
     "4.990", "1990s", "COVID-19", "-", "(", ")"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=40).map("".join), st.lists(PIECES, max_size=10).map("".join))
def test_search_finds_what_the_sentence_table_holds(source: str, claim: str) -> None:
    profile, terms = stemmed_profile(source), stemmed_terms(claim)
    searched = claim_sentence_terms(profile, terms)  # the first claim on a source searches
    table = profile.sentence_terms if lexical._may_name_a_number(terms) else profile.sentence_words
    assert _seen_by_window(searched, terms.terms) == _seen_by_window(table, terms.terms)


def test_search_locates_whole_tokens_only() -> None:
    source = "Don't blame O'Neil. Neil's don came. The don left!"
    terms = stemmed_terms("Neil and the don")
    searched = claim_sentence_terms(stemmed_profile(source), terms)
    assert _seen_by_window(searched, terms.terms) == [frozenset(), frozenset({"neil", "don"}), frozenset({"don"})]
