"""Tokens, stems and stop words: the units the lexical check counts."""

from __future__ import annotations

import pytest

from citebound.text.stem import STOP_WORDS, content_stems, states_past, stem
from citebound.text.tokenize import (
    is_contracted_negation,
    strip_citation_markers,
    token_spans,
    tokens,
)


def test_tokens_are_case_folded_words_and_split_on_hyphens():
    assert tokens("The twelve-month Warranty, isn't it?") == ["the", "twelve", "month", "warranty", "isn't", "it"]


def test_contracted_negations_with_or_without_a_clitic_are_negations():
    for tok in ["isn't", "can't", "cannot", "isn't's", "isn’t’s", "isn’t", "shouldn't've"]:
        assert is_contracted_negation(tok), tok
    for tok in ["not", "it's", "o'neil", "rock'n'roll", "isn'tnot", "can"]:
        assert not is_contracted_negation(tok), tok


def test_token_spans_index_the_original():
    text = "Ünïcode  words—and 4.5 things"
    for tok, start, end in token_spans(text):
        assert text[start:end].lower() == tok


def test_snowball_stems_merge_inflections():
    assert stem("months") == stem("month") == "month"
    assert stem("refunds") == stem("refund")
    assert stem("processed") == stem("processing")


def test_negations_are_not_stop_words():
    assert {"not", "no", "never"}.isdisjoint(STOP_WORDS)


def test_content_stems_drop_stop_words_and_bare_numbers():
    assert content_stems("The refunds are paid within 30 days") == ["refund", "paid", "day"]


def test_citation_markers_are_stripped():
    assert tokens(strip_citation_markers("Paid in 30 days [1][S2, S3].")) == ["paid", "in", "30", "days"]


@pytest.mark.parametrize(
    "text, past",
    [("The factory employed 500 people.", True), ("The driver drew criticism.", True), ("Ms Lee was a nurse.", True),
     ("Refunds are issued within 5 days.", False), ("The bus runs every 20 minutes.", False),
     ("Dogs are allowed on the terrace.", False), ("The fee is $45 and a permit is required.", False)],
)  # fmt: skip
def test_a_text_in_the_past_is_told_from_one_in_the_present(text, past):
    assert states_past(text) is past
