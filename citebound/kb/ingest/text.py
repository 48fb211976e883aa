"""Plain text and Markdown: decoded as UTF-8 (cp1252 as a fallback), kept as written."""

from __future__ import annotations

from pathlib import Path

from citebound.errors import InputError

BINARY_SNIFF = 8192


def decode_text(data: bytes, name: str) -> str:
    """Decode bytes of a text file; binary content (NUL bytes) is an InputError."""
    if b"\x00" in data[:BINARY_SNIFF]:
        raise InputError(f"{name}: binary file (NUL bytes), not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            return data.decode("cp1252")
        except UnicodeDecodeError as exc:
            raise InputError(f"{name}: not UTF-8 or cp1252 text") from exc


def read_text(path: Path) -> str:
    return decode_text(path.read_bytes(), str(path))
