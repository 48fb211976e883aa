"""Text that can be stored and printed: a Python `str` may hold lone surrogates (`"\\ud800"`, from JSON
escapes or `surrogateescape` decoding), which UTF-8 cannot encode. SQLite, tantivy, hashing and
printing would then fail with a UnicodeEncodeError far from where the text came in; callers check
at the edge instead and refuse such text with a one-line InputError.
"""

from __future__ import annotations

import re

from citebound.errors import InputError

_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(text: str) -> int | None:
    """Offset of the first surrogate code point in `text` (never valid in UTF-8), or None."""
    m = _SURROGATE.search(text)
    return None if m is None else m.start()


def require_unicode(text: str, what: str) -> str:
    """`text` unchanged, or InputError when it holds a lone surrogate (not encodable as UTF-8)."""
    at = lone_surrogate(text)
    if at is not None:
        raise InputError(f"{what} is not valid Unicode text (a lone surrogate U+{ord(text[at]):04X} at "
                         f"character {at})")
    return text
