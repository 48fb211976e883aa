"""Locate quoted text in a passage, and pick the passage window that best supports a claim.

`find_span(passage, quote)` returns character offsets into the *original* passage (end exclusive):
first an exact match; failing that, a match under the declared normalisation `normalize_for_match`
(case-folded, with every character that is not a letter or digit removed — whitespace, punctuation,
quotes, dashes). Either way `normalize_for_match(passage[start:end]) == normalize_for_match(quote)`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from citebound.text.sentences import sentence_spans


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
    hay, origin, opens, closes = _normalised_with_offsets(passage)
    pos = hay.find(needle)
    while pos >= 0:
        last = pos + len(needle) - 1
        if opens[pos] and closes[last]:  # never cut one original character's expansion in half
            return origin[pos], origin[last] + 1
        pos = hay.find(needle, pos + 1)
    return None


def best_window(
    passage: str,
    claim_terms: Collection[str],
    terms_between: Callable[[int, int], Collection[str]],
    *,
    max_sentences: int = 2,
) -> tuple[float, int, int]:
    """The window of 1..max_sentences consecutive sentences of `passage` covering the largest share of
    `claim_terms`; `terms_between(start, end)` gives the terms of passage[start:end]. Returns
    (share, start, end); ties go to the shorter, then the earlier, window."""
    spans = sentence_spans(passage) or [(0, len(passage))]
    if not claim_terms:
        return 0.0, spans[0][0], spans[0][1]
    wanted = set(claim_terms)
    sentence_terms = [wanted.intersection(terms_between(s, e)) for s, e in spans]
    best = (-1.0, 0, 0)
    for length in range(1, max_sentences + 1):  # shorter windows first: a tie keeps the shorter one
        for i in range(len(spans) - length + 1):
            covered = set().union(*sentence_terms[i : i + length])
            share = len(covered) / len(wanted)
            if share > best[0]:
                best = (share, spans[i][0], spans[i + length - 1][1])
        if best[0] == 1.0:
            break
    return best
