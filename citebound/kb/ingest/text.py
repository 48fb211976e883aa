"""Plain text and Markdown: decoded as UTF-8 (cp1252 as a fallback for clearly-text files), kept as written.

Binary content is refused rather than decoded into noise. A file is binary when it has a NUL byte in its
first 8 KB, or when more than 1 % of its bytes are control characters other than tab, line ends, form
feed and escape (text has almost none; compressed or executable data has about 10 %). Bytes that are
not UTF-8 are read as cp1252 only when they still look like Western text: at most 30 % of the bytes
above 0x7F (random data has half), and no byte cp1252 leaves undefined.
"""

from __future__ import annotations

from pathlib import Path

from citebound.errors import InputError

BINARY_SNIFF = 8192
MAX_CONTROL_SHARE = 0.01  # of all bytes: C0 controls (but \t \n \v \f \r ESC) and DEL
MAX_HIGH_SHARE_CP1252 = 0.30  # of all bytes, for the cp1252 fallback: bytes >= 0x80

_CONTROL = bytes(b for b in range(32) if b not in b"\t\n\x0b\x0c\r\x1b") + b"\x7f"
_NOT_CONTROL = bytes(b for b in range(256) if b not in _CONTROL)
_LOW = bytes(range(128))


def _share(data: bytes, keep_deleting: bytes) -> float:
    """Share of `data`'s bytes that are not in `keep_deleting`."""
    return len(data.translate(None, keep_deleting)) / max(1, len(data))


def looks_binary(data: bytes) -> str | None:
    """Why `data` is binary rather than text, or None."""
    if b"\x00" in data[:BINARY_SNIFF]:
        return "binary file (NUL bytes), not text"
    control = _share(data, _NOT_CONTROL)
    if control > MAX_CONTROL_SHARE:
        return f"binary file ({control:.0%} of its bytes are control characters), not text"
    return None


def decode_text(data: bytes, name: str) -> str:
    """Decode bytes of a text file; binary content is an InputError (see the module docstring)."""
    why = looks_binary(data)
    if why is not None:
        raise InputError(f"{name}: {why}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        high = _share(data, _LOW)
        if high > MAX_HIGH_SHARE_CP1252:
            raise InputError(f"{name}: not UTF-8 text (bad byte at offset {exc.start}) and {high:.0%} of its "
                             "bytes are above 0x7F: binary, or an unsupported encoding") from None
        try:
            return data.decode("cp1252")
        except UnicodeDecodeError as exc2:
            raise InputError(f"{name}: not UTF-8 or cp1252 text (bad byte at offset {exc2.start})") from None


def read_text(path: Path) -> str:
    return decode_text(path.read_bytes(), str(path))
