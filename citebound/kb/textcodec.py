"""How a version's text is stored (`versions.body`, migration m008), and the small cache of decoded texts.

A body is one codec byte, then its payload:

- 0x01, a text of at most `BLOCK` characters: its UTF-8, deflated (the standard library's zlib, level 6,
  raw: no zlib header or checksum, 6 bytes less per version and a little less time per read).
- 0x02, a longer text: cut into blocks of `BLOCK` characters, each compressed alone, so that a chunk
  (a slice of at most a few blocks) is read without decompressing the whole document; decompressing a
  100k-character text took 1 ms here, a block about 40 µs. Payload: the block size and block count
  (little-endian uint32 each), each block's compressed length (uint32), then the blocks.

On the 100k-chunk corpus zlib keeps 56 % of the bytes; cutting the long texts into blocks costs 2 % of
that (docs/benchmarks.md). A new codec gets a new byte; old bodies stay readable. Decoded text is the
exact string that was ingested; chunks are [start, end) slices of it, in characters.
"""

from __future__ import annotations

import struct
import threading
import zlib
from collections import OrderedDict

WHOLE = 1
BLOCKS = 2
BLOCK = 4096  # characters per block of a long text (a default chunk of 1,200 spans at most two)
LEVEL = 6


def pack(text: str) -> bytes:
    """The stored body of `text`."""
    if len(text) <= BLOCK:
        return bytes([WHOLE]) + _deflate(text)
    blocks = [_deflate(text[i : i + BLOCK]) for i in range(0, len(text), BLOCK)]
    header = struct.pack(f"<BII{len(blocks)}I", BLOCKS, BLOCK, len(blocks), *map(len, blocks))
    return header + b"".join(blocks)


def _deflate(text: str) -> bytes:
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
    return packer.compress(text.encode("utf-8")) + packer.flush()


def _inflate(data: bytes | memoryview) -> str:
    try:  # English text deflates to about half: start with room for 4x, zlib grows it if needed
        return zlib.decompress(data, -15, max(256, 4 * len(data))).decode("utf-8")
    except (zlib.error, UnicodeDecodeError) as exc:
        raise ValueError(f"a corrupt version text ({exc})") from None


def _layout(body: bytes | memoryview) -> tuple[int, list[tuple[int, int]]]:
    """(block size, [(offset, length)] of each block in `body`) of a BLOCKS body."""
    size, n = struct.unpack_from("<II", body, 1)
    lengths = struct.unpack_from(f"<{n}I", body, 9)
    spans, at = [], 9 + 4 * n
    for length in lengths:
        spans.append((at, length))
        at += length
    return size, spans


def unpack(body: bytes | memoryview) -> str:
    """The whole text of a stored body; ValueError for a body no codec here can read."""
    body = memoryview(body)
    codec = body[0] if len(body) else None
    if codec == WHOLE:
        return _inflate(body[1:])
    if codec == BLOCKS:
        _, spans = _layout(body)
        return "".join(_inflate(body[at : at + n]) for at, n in spans)
    raise ValueError(f"a version text in an unknown format (codec byte {codec})")


class TextCache:
    """Decoded version texts, or blocks of them, by (doc_id, version[, block]); least recently used
    dropped first once the texts held exceed `max_chars`. A version's text never changes once
    committed, so entries never go stale; the store clears the cache when a write rolls back (a version
    read inside it may never have existed)."""

    def __init__(self, max_chars: int = 4_000_000) -> None:
        self.max_chars = max_chars
        self._texts: OrderedDict[tuple, str] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def get(self, key: tuple) -> str | None:
        with self._lock:
            text = self._texts.get(key)
            if text is not None:
                self._texts.move_to_end(key)
            return text

    def put(self, key: tuple, text: str) -> None:
        if len(text) > self.max_chars:
            return
        with self._lock:
            old = self._texts.pop(key, None)
            if old is not None:
                self._chars -= len(old)
            self._texts[key] = text
            self._chars += len(text)
            while self._chars > self.max_chars:
                _, dropped = self._texts.popitem(last=False)
                self._chars -= len(dropped)

    def clear(self) -> None:
        with self._lock:
            self._texts.clear()
            self._chars = 0

    def text(self, key: tuple[str, int], body: bytes | memoryview) -> str:
        """The whole text of version `key` whose stored body is `body`."""
        text = self.get(key)
        if text is None:
            text = unpack(body)
            self.put(key, text)
        return text

    def slice(self, key: tuple[str, int], body: bytes | memoryview, start: int, end: int) -> str:
        """text[start:end] of version `key` whose stored body is `body`: only the blocks it needs are
        decompressed (and kept)."""
        whole = self.get(key)
        if whole is not None:
            return whole[start:end]
        if not body or body[0] != BLOCKS:
            whole = unpack(body)
            self.put(key, whole)
            return whole[start:end]
        body = memoryview(body)
        size, spans = _layout(body)
        first, last = start // size, max(start, end - 1) // size
        parts = []
        for i in range(first, min(last, len(spans) - 1) + 1):
            part = self.get((*key, i))
            if part is None:
                at, n = spans[i]
                part = _inflate(body[at : at + n])
                self.put((*key, i), part)
            parts.append(part)
        return "".join(parts)[start - first * size : end - first * size]
