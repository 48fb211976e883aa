"""The lexical check: what share of the claim's content terms does the source contain?

Two term extractors:

- `stemmed_terms` (the cascade's): content words (stop words and number words removed), stemmed with
  Snowball English so `months` matches `month`, plus the normalised value of every unhedged number
  (`ten` and `10` are the same term `10`).
- `plain_terms` (the seed's plain checker, kept as the measured baseline `lexical`): lower-cased word
  tokens minus stop words. No stemming, no number normalisation (`4 990` is the two tokens `4`, `990`).

support fraction = |claim terms found in the source| / |claim terms|.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from citebound.text.numbers import (
    _NUMBER_WORDS,
    ORDINALS,
    TENS,
    UNITS,
    NumberMention,
    canonical,
    extract_numbers,
    source_numbers,
)
from citebound.text.sentences import sentence_spans
from citebound.text.stem import STOP_WORDS, stem
from citebound.text.tokenize import strip_citation_markers, tokens


@dataclass(frozen=True, slots=True)
class Terms:
    """The terms of a text, and for each term the word as first written (for readable reasons)."""

    terms: frozenset[str]
    surface: dict[str, str]


TermExtractor = Callable[[str], Terms]


@lru_cache(maxsize=8192)
def claim_numbers(text: str) -> tuple[NumberMention, ...]:
    """The numbers a claim states (strictly read: lone "one"/"first" are not numbers), cached."""
    return tuple(extract_numbers(text, ambiguous_words=False))


@lru_cache(maxsize=8192)
def stemmed_terms(text: str) -> Terms:
    """Stemmed content words plus normalised numbers."""
    surface: dict[str, str] = {}
    for tok in tokens(strip_citation_markers(text)):
        if tok in STOP_WORDS or tok in _NUMBER_WORDS or tok.isdigit():
            continue
        surface.setdefault(stem(_not(tok)), tok)
    for mention in claim_numbers(text):
        if not mention.hedge:
            surface.setdefault(canonical(mention.value), mention.text)
    return Terms(frozenset(surface), surface)


@dataclass(frozen=True, slots=True)
class SourceProfile:
    """What the checks need of one source, computed once per text: its terms and its numbers."""

    terms: frozenset[str]
    number_keys: frozenset[str]
    number_values: tuple[float, ...]
    pairs: frozenset[tuple[str, str]]
    word_stems: dict[str, str]  # each content word of the source -> its stem (reused by windows)


def _not(tok: str) -> str:
    """Contracted negations count as the word "not" (`doesn't`, `can't`, `cannot`)."""
    return "not" if tok.endswith("n't") or tok == "cannot" else tok


_ORDINAL_DIGITS = re.compile(r"(\d+)(?:st|nd|rd|th)")
_WORD_VALUES = {w: canonical(v) for w, v in {**UNITS, **TENS, **ORDINALS}.items()}


def _pair_unit(tok: str) -> str:
    """How a token enters a word pair: numbers as digits (`five` = `5`, `3rd` = `3`), else its stem."""
    if tok in _WORD_VALUES:
        return _WORD_VALUES[tok]
    m = _ORDINAL_DIGITS.fullmatch(tok)
    return m.group(1) if m else stem(_not(tok))


def _stems(toks: list[str]) -> dict[str, str]:
    """Each distinct non-stop token -> its pair unit (computed once, however often it occurs)."""
    return {t: _pair_unit(t) for t in set(toks) - STOP_WORDS}


def _pairs(toks: list[str], stems: dict[str, str] | None = None) -> frozenset[tuple[str, str]]:
    """Adjacent content-word stems once stop words are dropped ("refund within 30 days" -> (refund, 30),
    (30, day)): word order and phrase evidence that a bag of words cannot see."""
    stems = _stems(toks) if stems is None else stems
    seq = [stems[t] for t in toks if t in stems]
    return frozenset(zip(seq, seq[1:]))


@lru_cache(maxsize=4096)
def stemmed_profile(text: str) -> SourceProfile:
    """A source read leniently: stemmed content words plus every reading of every number."""
    mentions = source_numbers(text)
    keys = frozenset(k for n in mentions for k in n.keys)
    toks = tokens(text)
    stems = _stems(toks)
    word_stems = {tok: stem(_not(tok)) for tok in stems if tok not in _NUMBER_WORDS}
    values = tuple(v for n in mentions for v in n.values)
    return SourceProfile(frozenset(word_stems.values()) | keys, keys, values, _pairs(toks, stems), word_stems)


@lru_cache(maxsize=8192)
def claim_pairs(text: str) -> frozenset[tuple[str, str]]:
    """The claim's adjacent content-stem pairs (see `_pairs`)."""
    return _pairs(tokens(strip_citation_markers(text)))


def pair_share(claim: frozenset[tuple[str, str]], source: frozenset[tuple[str, str]]) -> tuple[int, int]:
    """(claim pairs found in the source, claim pairs)."""
    return len(claim & source), len(claim)


def source_stemmed_terms(text: str) -> frozenset[str]:
    return stemmed_profile(text).terms


@lru_cache(maxsize=1024)
def sentence_terms(text: str, stemming: bool = True) -> tuple[tuple[tuple[int, int], ...], tuple[frozenset[str], ...]]:
    """The sentences of `text` (offsets) and the terms of each, cached: evidence windows are built
    from these, and a source is usually checked against several claims."""
    spans = tuple(sentence_spans(text)) or ((0, len(text)),)
    if len(spans) == 1:  # one sentence: its terms are the text's
        return spans, (stemmed_profile(text).terms if stemming else plain_terms(text).terms,)
    if not stemming:
        return spans, tuple(frozenset(set(tokens(text[s:e])) - STOP_WORDS) for s, e in spans)
    mentions = source_numbers(text)
    starts = [n.start for n in mentions]
    word_stems = stemmed_profile(text).word_stems
    per_sentence = []
    for s, e in spans:
        words = set(tokens(text[s:e])) - STOP_WORDS - _NUMBER_WORDS
        terms = {word_stems.get(w) or stem(_not(w)) for w in words}
        terms.update(k for n in mentions[bisect_left(starts, s) : bisect_left(starts, e)] for k in n.keys)
        per_sentence.append(frozenset(terms))
    return spans, tuple(per_sentence)


@lru_cache(maxsize=8192)
def plain_terms(text: str) -> Terms:
    """The seed's plain terms: lower-cased tokens that are not stop words, unstemmed."""
    surface = {t: t for t in tokens(strip_citation_markers(text)) if t not in STOP_WORDS}
    return Terms(frozenset(surface), surface)


def source_plain_terms(text: str) -> frozenset[str]:
    return plain_terms(text).terms


def support_fraction(claim: Terms, source_terms: frozenset[str]) -> tuple[float, list[str]]:
    """(share of claim terms in the source, the missing terms as written). No terms -> (0.0, [])."""
    if not claim.terms:
        return 0.0, []
    missing = [claim.surface[t] for t in claim.surface if t not in source_terms]
    return 1.0 - len(missing) / len(claim.terms), missing
