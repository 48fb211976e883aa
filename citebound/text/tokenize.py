"""Word tokens: the unit every lexical check counts.

A token is a run of letters and digits, optionally joined by an apostrophe (`don't`, `O'Neil`).
Hyphens, slashes and other punctuation separate tokens, so `twelve-month` gives `twelve`, `month`.
Tokens are case-folded so `Refund` and `refund` are the same word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citebound.text.citations import strip_markers

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
# A contracted negation, with any clitic after it ("isn't", "isn't's", "shouldn't've"), either apostrophe.
_CONTRACTED_NEGATION = re.compile(r"(?:[^\W_]+['’])*[^\W_]*n['’]t(?:['’][^\W_]+)*")


_CLAUSE_TOKEN = re.compile(_WORD.pattern + r"|[.,;:!?()\[\]\"“”]")


def clause_tokens(text: str) -> list[str]:
    """Case-folded words (curly apostrophes read as ') and the punctuation that ends a clause, in order:
    what the negation and comparison rules read a scope or a side from."""
    return [t.casefold().replace("’", "'") for t in _CLAUSE_TOKEN.findall(text)]


def is_contracted_negation(tok: str) -> bool:
    """Whether a case-folded token is a contracted negation that reads as "not": `cannot`, a word
    ending in n't (`doesn't`), or one with a possessive or other clitic after the n't (`isn't's`,
    `shouldn't've`), with a straight or a curly apostrophe."""
    return tok == "cannot" or _CONTRACTED_NEGATION.fullmatch(tok) is not None


def tokens(text: str) -> list[str]:
    """Case-folded word tokens of `text`, in order."""
    return _WORD.findall(text.casefold().replace("’", "'"))


def tokens_in_spans(text: str, spans: Sequence[tuple[int, int]]) -> list[list[str]]:
    """`[tokens(text[s:e]) for s, e in spans]`, for spans cut at whitespace (e.g. sentences).

    Folds the text once and reads each span in place rather than slicing and folding it again.
    Offsets carry over only when folding maps every character to one (`ß` becomes `ss`), else slices.
    """
    folded = text.casefold().replace("’", "'")
    if len(folded) != len(text):
        return [tokens(text[s:e]) for s, e in spans]
    findall = _WORD.findall  # the pattern has no lookaround, so pos/endpos read as a slice would
    return [findall(folded, s, e) for s, e in spans]


def token_spans(text: str) -> list[tuple[str, int, int]]:
    """Like `tokens` (lower-cased rather than case-folded), with the (start, end) offsets of each token."""
    lowered = text.lower()
    if len(lowered) == len(text):  # true for all but a few characters (İ): offsets carry over
        return [(m.group(0).replace("’", "'"), m.start(), m.end()) for m in _WORD.finditer(lowered)]
    return [(m.group(0).lower().replace("’", "'"), m.start(), m.end()) for m in _WORD.finditer(text)]


def strip_citation_markers(text: str) -> str:
    """`text` with inline citation markers (`[1]`, `[S1, S3]`) replaced by a space, so their numbers
    are never read as part of a claim."""
    return strip_markers(text)
