"""Sentence-aware chunking with character offsets into the document version's normalized text.

Sentences (from `citebound.text.sentences.sentence_spans`) are packed greedily into chunks of at most
`size` characters; the next chunk starts with the last sentences of the previous one, up to `overlap`
characters, so a fact that straddles a boundary is whole in at least one chunk. A sentence longer than
`size` is cut at whitespace. Every chunk is `text[start:end]` exactly.

Defaults: size 1200 characters (about 250 WordPiece tokens, under the 256-token window of the
MiniLM embedder), overlap 200 characters.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from citebound.errors import InputError
from citebound.text.sentences import sentence_spans

DEFAULT_CHUNK_SIZE = 1200
DEFAULT_OVERLAP = 200
# Bump when chunk boundaries change for the same text and parameters (keys the eval KB cache).
CHUNKER_VERSION = 3


class ChunkSettingsError(InputError, ValueError):
    """A chunk size or overlap that cannot work (size < 1, overlap < 0 or >= size). An InputError, so
    the CLI prints one line; also a ValueError, as it was before."""


@dataclass(frozen=True, slots=True)
class ChunkSpan:
    start: int
    end: int


def content_digest(text: str) -> bytes:
    """The sha256 of a text, as the 32 bytes the store keeps (migration m009)."""
    return hashlib.sha256(text.encode("utf-8")).digest()


def content_hash(text: str) -> str:
    """`content_digest` in hexadecimal: what the store hands out, keying versions and embeddings."""
    return content_digest(text).hex()


def chunk_id(doc_id: str, start: int, end: int, text: str) -> str:
    """Stable chunk id: a hash of the document id, the offsets and the chunk's text (not of insertion order)."""
    h = hashlib.sha256(f"{doc_id}\x00{start}\x00{end}\x00{text}".encode("utf-8")).hexdigest()
    return "c" + h[:24]


def _split_long(text: str, start: int, end: int, size: int) -> list[tuple[int, int]]:
    """Cut text[start:end] into pieces of at most `size` characters, at whitespace where possible."""
    pieces = []
    while end - start > size:
        cut = text.rfind(" ", start + size // 2, start + size)
        if cut <= start:
            cut = start + size
        stop = cut
        while stop > start and text[stop - 1].isspace():
            stop -= 1
        if stop > start:
            pieces.append((start, stop))
        start = cut
        while start < end and text[start].isspace():
            start += 1
    if end > start:
        pieces.append((start, end))
    return pieces


def check_settings(size: object, overlap: object) -> None:
    """ChunkSettingsError unless `size` >= 1 and 0 <= `overlap` < `size` (both integers)."""
    if isinstance(size, bool) or not isinstance(size, int) or isinstance(overlap, bool) or not isinstance(overlap, int):
        raise ChunkSettingsError(f"chunk size and overlap must be integers, got {size!r} and {overlap!r}")
    if size < 1:
        raise ChunkSettingsError(f"chunk size must be at least 1 character, got {size}")
    if not 0 <= overlap < size:
        raise ChunkSettingsError(f"chunk overlap must be at least 0 and less than the chunk size ({size}), got {overlap}")


def chunk_spans(text: str, size: int = DEFAULT_CHUNK_SIZE, overlap: int = DEFAULT_OVERLAP) -> list[ChunkSpan]:
    """Offsets of the chunks of `text` (see module docstring)."""
    check_settings(size, overlap)
    stripped = text.strip()
    if not stripped:
        return []
    if len(text) <= size and stripped == text:
        return [ChunkSpan(0, len(text))]  # fits whole: the same span sentence packing would give, faster
    units: list[tuple[int, int]] = []
    for s, e in sentence_spans(text):
        units.extend(_split_long(text, s, e, size))
    chunks: list[ChunkSpan] = []
    i = 0
    while i < len(units):
        j = i
        while j + 1 < len(units) and units[j + 1][1] - units[i][0] <= size:
            j += 1
        chunks.append(ChunkSpan(units[i][0], units[j][1]))
        if j + 1 >= len(units):
            break
        # step back over trailing sentences that fit in the overlap, but always move forward, and only
        # as far as still leaves room for the next unit: else the next chunk could end where this one
        # does and merely repeat its tail
        nxt = j + 1
        while (
            nxt - 1 > i
            and units[j][1] - units[nxt - 1][0] <= overlap
            and units[j + 1][1] - units[nxt - 1][0] <= size
        ):
            nxt -= 1
        i = nxt
    return chunks
