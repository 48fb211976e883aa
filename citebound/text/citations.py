"""Citation markers and abstention sentences: the two conventions every stage shares.

One regex reads a citation marker, wherever one is read or stripped (the verifier, the number reader,
the tokenizer, the extractive backend): numeric `[1]`, `[1][3]`, `[1, 3]` and labelled `[S1]`,
`[S1, S2]` (a semicolon separates too). Ids are kept as strings of any length, so `[S12345678901]` is
a citation (of an id that does not exist), never plain text; only `[0]` on its own is read as text (an
index, as in `heap[0]`).

The abstention sentences are fixed and detectable: the generator emits them, the verifier accepts an
answer made only of them as a valid, uncited abstention.
"""

from __future__ import annotations

import re

ABSTENTION_SENTENCES: tuple[str, ...] = (
    "That does not appear from the material.",
    "I could not find this in the knowledge base.",
)
# What citebound itself says when it abstains (the second sentence above).
ABSTENTION_SENTENCE = ABSTENTION_SENTENCES[1]

# `[0]` alone is an index (`sys.argv[0]`, `heap[0]` in technical documentation), never a citation: ids
# are counted from 1.
MARKER = re.compile(r"\[\s*(?!0+\s*\])([Ss]?\d+\s*(?:[,;]\s*[Ss]?\d+\s*)*)\]")
_SPACES = re.compile(r"\s+")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?])")


def strip_markers(text: str, replacement: str = " ") -> str:
    """`text` with every citation marker replaced by `replacement` (offsets move; nothing else changes)."""
    return MARKER.sub(replacement, text)


def remove_markers(text: str) -> str:
    """`text` without its citation markers, whitespace tidied (`days [1].` -> `days.`)."""
    cleaned = _SPACE_BEFORE_PUNCT.sub(r"\1", MARKER.sub("", text))
    return _SPACES.sub(" ", cleaned).strip()
