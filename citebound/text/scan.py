"""Run a slow-to-scan regex over long text only where it can match.

Python's regex engine skips ahead fast only when a pattern opens with a literal or a character class.
A pattern that opens with a lookbehind, a word boundary or a case-insensitive word is instead tried at
every position, which dominates the cost of reading a long source. `finditer_at` keeps the readable
pattern as the definition and lets a cheap, skippable `starts` pattern pick the positions to try.
"""

from __future__ import annotations

import re
from collections.abc import Iterator


def finditer_at(pattern: re.Pattern[str], starts: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """The same matches as `pattern.finditer(text)`, trying `pattern` only where `starts` matches.

    Contract: `starts` must match at every position where `pattern` can match (it may match at more),
    and `pattern` never matches the empty string. Lookbehinds and `\\b` see the text before the
    position they are tried at (`match(text, pos)` reads the whole string), so results are identical.
    """
    search, match = starts.search, pattern.match
    pos = 0
    while (candidate := search(text, pos)) is not None:
        start = candidate.start()
        found = match(text, start)
        if found is None:
            pos = start + 1
        else:
            yield found
            pos = found.end()
