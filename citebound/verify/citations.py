"""Inline citations and the claims they close.

Both styles are read: numeric `[1]`, `[1][3]`, `[1, 3]` and labelled `[S1]`, `[S1][S3]`, `[S1, S2]`
(a semicolon works as a separator too). Markers belong to the sentence they close, whether they stand
before or after its full stop (`days [1].` and `days. [1]`), so each sentence of an answer becomes one
claim with the ids it cites.

An answer that consists only of configured abstention sentences is a valid, uncited answer
(`citebound.text.citations.ABSTENTION_SENTENCES`, shared with the generator).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from citebound.text.citations import ABSTENTION_SENTENCES, MARKER, remove_markers
from citebound.text.sentences import sentence_spans
from citebound.text.tokenize import tokens

DEFAULT_MIN_WORDS = 5  # an uncited sentence longer than this many words is reported as uncited

_ID_SPLIT = re.compile(r"\s*[,;]\s*")
_SPACES = re.compile(r"\s+")
_LIST_ITEM = re.compile(r"^(?:\(?\d{1,3}[.)]|[-*•–])\s+")  # "1. ", "2) ", "(3) ", "- ", "• "


@dataclass(frozen=True, slots=True)
class Marker:
    """One bracketed citation marker and the ids inside it, as written (`"1"`, `"S3"`)."""

    start: int
    end: int
    ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Claim:
    """A sentence of an answer: its text without markers, its offsets, and the ids it cites."""

    text: str
    start: int
    end: int
    cited_ids: tuple[str, ...]

    @property
    def n_words(self) -> int:
        return len(tokens(self.text))


def parse_markers(text: str) -> list[Marker]:
    """Every citation marker in `text`, in order. Ids are upper-cased (`s1` -> `S1`) and kept as written."""
    markers = []
    for m in MARKER.finditer(text):
        ids = tuple(i.upper() for i in _ID_SPLIT.split(m.group(1).strip()) if i)
        markers.append(Marker(m.start(), m.end(), ids))
    return markers


def cited_ids(text: str) -> tuple[str, ...]:
    """The distinct ids cited in `text`, in order of first appearance."""
    seen: dict[str, None] = {}
    for marker in parse_markers(text):
        for i in marker.ids:
            seen.setdefault(i, None)
    return tuple(seen)


def _normalise_sentence(text: str) -> str:
    return _SPACES.sub(" ", text).strip().casefold()


def is_abstention_sentence(sentence: str, abstentions: Iterable[str] = ABSTENTION_SENTENCES) -> bool:
    """True when `sentence` is one of the abstention sentences (ignoring case and spacing)."""
    target = _normalise_sentence(sentence)
    return any(target == _normalise_sentence(a) for a in abstentions)


def split_claims(answer: str, abstentions: Iterable[str] = ABSTENTION_SENTENCES) -> tuple[list[Claim], bool]:
    """Split an answer into claims (one a sentence). Returns (claims, abstained).

    Abstention sentences are not claims. `abstained` is True when the answer holds abstention
    sentences and nothing else.
    """
    abstentions = tuple(abstentions)
    claims: list[Claim] = []
    n_abstentions = 0
    for start, end in sentence_spans(answer):
        sentence = answer[start:end]
        text = _LIST_ITEM.sub("", remove_markers(sentence), count=1)  # a list bullet is not part of the claim
        if not text and claims:
            # A sentence that is only markers (`... [1]\n[2]`) closes the previous claim.
            prev = claims[-1]
            ids = _merge(prev.cited_ids, cited_ids(sentence))
            claims[-1] = Claim(prev.text, prev.start, end, ids)
            continue
        if is_abstention_sentence(text, abstentions):
            n_abstentions += 1
            continue
        if not text:
            continue
        claims.append(Claim(text, start, end, cited_ids(sentence)))
    return claims, n_abstentions > 0 and not claims


def _merge(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*a, *b)))


def resolve_id(cited: str, sources: Mapping[str, str]) -> str | None:
    """The key in `sources` that a cited id names, or None.

    `[1]` finds source "1" or "S1"; `[S1]` finds "S1" or "1", so either labelling works on either side.
    """
    if cited in sources:
        return cited
    if cited[:1] in ("S", "s"):
        bare = cited[1:]
        return bare if bare in sources else None
    labelled = "S" + cited
    return labelled if labelled in sources else None
