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

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from citebound.text.numbers import _NUMBER_WORDS, canonical, extract_numbers
from citebound.text.stem import STOP_WORDS, stem
from citebound.text.tokenize import strip_citation_markers, tokens


@dataclass(frozen=True, slots=True)
class Terms:
    """The terms of a text, and for each term the word as first written (for readable reasons)."""

    terms: frozenset[str]
    surface: dict[str, str]


TermExtractor = Callable[[str], Terms]


@lru_cache(maxsize=8192)
def stemmed_terms(text: str) -> Terms:
    """Stemmed content words plus normalised numbers."""
    surface: dict[str, str] = {}
    for tok in tokens(strip_citation_markers(text)):
        if tok in STOP_WORDS or tok in _NUMBER_WORDS or tok.isdigit():
            continue
        surface.setdefault(stem(tok), tok)
    for mention in extract_numbers(text, ambiguous_words=False):
        if not mention.hedge:
            surface.setdefault(canonical(mention.value), mention.text)
    return Terms(frozenset(surface), surface)


@lru_cache(maxsize=8192)
def source_stemmed_terms(text: str) -> frozenset[str]:
    """A source's terms: as `stemmed_terms`, but every reading of every number (read leniently)."""
    terms = {stem(tok) for tok in tokens(text) if tok not in STOP_WORDS and tok not in _NUMBER_WORDS}
    terms.update(k for n in extract_numbers(text) for k in n.keys)
    return frozenset(terms)


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
