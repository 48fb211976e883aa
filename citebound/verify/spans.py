"""Locate quoted text in a passage, and pick the passage window that best supports a claim.

`find_span(passage, quote)` returns character offsets into the *original* passage (end exclusive):
first an exact match; failing that, a match under the declared normalisation `normalize_for_match`
(case-folded, with every character that is not a letter or digit removed — whitespace, punctuation,
quotes, dashes). Either way `normalize_for_match(passage[start:end]) == normalize_for_match(quote)`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from collections.abc import Set as AbstractSet

_NOT_ASCII_ALNUM = re.compile(r"[^0-9a-z]+")


def _fold(char: str) -> str:
    return "".join(c for c in char.casefold() if c.isalnum())


def normalize_for_match(text: str) -> str:
    """The declared normalisation of find_span: case-folded letters and digits only."""
    return "".join(_fold(ch) for ch in text)


def _normalised_with_offsets(text: str) -> tuple[str, list[int], list[bool], list[bool]]:
    """Normalised text, the original offset of each normalised char, and whether each normalised
    char opens / closes the expansion of its original char (casefold can turn one char into two)."""
    out: list[str] = []
    origin: list[int] = []
    opens: list[bool] = []
    closes: list[bool] = []
    for i, ch in enumerate(text):
        folded = _fold(ch)
        for k, c in enumerate(folded):
            out.append(c)
            origin.append(i)
            opens.append(k == 0)
            closes.append(k == len(folded) - 1)
    return "".join(out), origin, opens, closes


def find_span(passage: str, quote: str) -> tuple[int, int] | None:
    """(start, end) of the first occurrence of `quote` in `passage`, or None.

    Exact match first; then insensitive to case, whitespace and punctuation. Offsets always index
    the original passage.
    """
    if not quote or not passage:
        return None
    exact = passage.find(quote)
    if exact >= 0:
        return exact, exact + len(quote)
    needle = normalize_for_match(quote)
    if not needle:
        return None
    if passage.isascii() and needle not in _NOT_ASCII_ALNUM.sub("", passage.lower()):
        return None  # the same normalisation for ASCII text, without building the offset tables
    hay, origin, opens, closes = _normalised_with_offsets(passage)
    pos = hay.find(needle)
    while pos >= 0:
        last = pos + len(needle) - 1
        if opens[pos] and closes[last]:  # never cut one original character's expansion in half
            return origin[pos], origin[last] + 1
        pos = hay.find(needle, pos + 1)
    return None


_SENTENCE_END = re.compile(r"[.!?;](?:\s|$)")


def rest_of_sentence(text: str) -> str:
    """`text` up to the end of its sentence (".", "!", "?" or ";" before a space or the end), without the
    spaces and commas around it: what a source goes on to say right after a span found in it."""
    stop = _SENTENCE_END.search(text)
    return text[: stop.start() if stop else len(text)].strip(" ,")


def headed_quote(source: str, claim: str, min_words: int = 4) -> tuple[int, int] | None:
    """(start, end) in `source` of a claim written "HEAD: SENTENCE" where the source states HEAD and then,
    after it, SENTENCE word for word: how the extractive backend puts a definition's signature or a
    section heading before the sentence under it ("Queue.put(item, block=True, timeout=None): If optional
    args block is true ..."). Neither half alone is the claim, and the model scored such joins under the
    threshold now and then; word for word in that order they are the source's own. SENTENCE needs
    `min_words` words (a one-word tail would make anything a quote)."""
    head, sep, body = claim.partition(": ")
    if not sep or not head.strip() or len(body.split()) < min_words:
        return None
    first = find_span(source, head)
    if first is None:
        return None
    rest = find_span(source[first[1] :], body.rstrip().rstrip("."))
    return None if rest is None else (first[0], first[1] + rest[1])


def _found_in(terms: Collection[str], wanted: frozenset[str]) -> AbstractSet[str]:
    """The wanted terms among `terms`. A dict (the lexical check's cached sets, see checks/lexical.py)
    is probed with the few wanted terms instead of being walked."""
    if isinstance(terms, dict):
        return terms.keys() & wanted
    return wanted.intersection(terms)


def best_window(
    sentences: Sequence[tuple[int, int]],
    sentence_terms: Sequence[Collection[str]],
    claim_terms: Collection[str],
    *,
    max_sentences: int = 2,
) -> tuple[float, int, int]:
    """The window of 1..max_sentences consecutive sentences covering the largest share of `claim_terms`.

    `sentences` are (start, end) offsets (e.g. from `sentence_spans`), `sentence_terms` the terms of
    each. Returns (share, start, end); ties go to the shorter, then the earlier, window.
    """
    if not sentences:
        return 0.0, 0, 0
    if not claim_terms:
        return 0.0, sentences[0][0], sentences[0][1]
    wanted = frozenset(claim_terms)
    found = [_found_in(t, wanted) for t in sentence_terms]
    sizes = [len(f) for f in found]
    best = (-1, 0, 0)  # (terms covered, start, end): counts compare as the shares they divide into
    for length in range(1, max_sentences + 1):  # shorter windows first: a tie keeps the shorter one
        for i in range(len(sentences) - length + 1):
            if sum(sizes[i : i + length]) <= best[0]:
                continue  # cannot cover more than the best so far: skip building the union
            covered = sizes[i] if length == 1 else len(set().union(*found[i : i + length]))
            if covered > best[0]:
                best = (covered, sentences[i][0], sentences[i + length - 1][1])
        if best[0] == len(wanted):
            break
    return best[0] / len(wanted), best[1], best[2]
