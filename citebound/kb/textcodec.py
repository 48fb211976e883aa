"""How a version's text is stored (`versions.body`, migration m008), and the small cache of decoded texts.

A body is one codec byte, then its payload:

- 0x01, a text of at most `BLOCK` characters: its UTF-8, deflated (the standard library's zlib, level 6,
  raw: no zlib header or checksum, 6 bytes less per version and a little less time per read).
- 0x02, a longer text: cut into blocks of `BLOCK` characters, each compressed alone, so that a chunk
  (a slice of at most a few blocks) is read without decompressing the whole document; decompressing a
  100k-character text took 1 ms here, a block about 40 µs. Payload: the block size and block count
  (little-endian uint32 each), each block's compressed length (uint32), then the blocks.

- 0x03 and 0x04: the same two layouts compressed with zstd and a dictionary the KB trained on its own
  texts (`Dictionaries`, kept in the KB's meta table): the codec byte, the dictionary's id (uint32), then
  as above (one frame, or the block header and the frames). Short texts compress badly alone because
  each starts from nothing; a dictionary gives each the vocabulary of the whole KB. On the 100k-chunk
  corpus: 0.43 of the bytes (zlib 0.56), decompressing 10 retrieved texts 22 µs (zlib 62 µs).

On the 100k-chunk corpus zlib keeps 56 % of the bytes; cutting the long texts into blocks costs 2 % of
that (docs/benchmarks.md). A new codec gets a new byte; old bodies stay readable. Decoded text is the
exact string that was ingested; chunks are [start, end) slices of it, in characters.
"""

from __future__ import annotations

import struct
import threading
import zlib
from collections import OrderedDict
from typing import Callable, Sequence

import zstandard

WHOLE = 1
BLOCKS = 2
ZSTD_WHOLE = 3
ZSTD_BLOCKS = 4
BLOCK = 4096  # characters per block of a long text (a default chunk of 1,200 spans at most two)
LEVEL = 6
ZSTD_LEVEL = 9  # with a dictionary, level 19 saves 4 % more and compresses several times slower
DICT_BYTES = 64 * 1024  # a dictionary's size at most (112 kB saved 2 % more on the 100k corpus)
DICT_MIN_TEXTS = 32  # fewer pieces of text than this teach a dictionary too little: the batch stays on zlib
DICT_SAMPLE_TEXTS = 4000  # pieces (evenly spread over the batch) a dictionary is trained on


class Dictionaries:
    """The zstd dictionaries of one KB, by id, and the one new texts are packed with (`current`).

    `load(id)` fetches a dictionary another process stored (bodies name theirs, so a reader never
    needs more than that). zstandard's (de)compressors are not safe to share between threads: each
    thread decompresses with its own, and compressing holds the lock."""

    def __init__(self, load: Callable[[int], bytes | None] = lambda _id: None) -> None:
        self._load = load
        self._data: dict[int, zstandard.ZstdCompressionDict] = {}
        self._local = threading.local()  # .decompressors: {dictionary id: ZstdDecompressor} of one thread
        self._compressor: zstandard.ZstdCompressor | None = None
        self.current: int | None = None
        self._lock = threading.Lock()

    def add(self, data: bytes, current: bool = False) -> int:
        """Register a dictionary (its bytes as `train` made them); return its id."""
        d = zstandard.ZstdCompressionDict(data)
        with self._lock:
            self._data[d.dict_id()] = d
            if current:
                self.current = d.dict_id()
                self._compressor = zstandard.ZstdCompressor(
                    level=ZSTD_LEVEL, dict_data=d, write_checksum=False, write_content_size=True,
                    write_dict_id=False)
        return d.dict_id()

    def forget(self, dict_id: int) -> None:
        """Drop a dictionary that was never committed (its transaction rolled back)."""
        with self._lock:
            self._data.pop(dict_id, None)
            self._local = threading.local()
            if self.current == dict_id:
                self.current, self._compressor = None, None

    def compress(self, parts: Sequence[bytes]) -> tuple[int, list[bytes]]:
        """The current dictionary's id and each part compressed with it, read together under the lock:
        a body never names one dictionary while packed with another that became current meanwhile."""
        with self._lock:
            assert self._compressor is not None and self.current is not None
            return self.current, [self._compressor.compress(p) for p in parts]

    def decompress(self, dict_id: int, frame: bytes | memoryview) -> bytes:
        mine = getattr(self._local, "decompressors", None)
        if mine is None:
            mine = self._local.decompressors = {}
        dec = mine.get(dict_id)
        if dec is None:
            with self._lock:
                d = self._data.get(dict_id)
            if d is None:
                raw = self._load(dict_id)
                if raw is None:
                    raise ValueError(f"a version text packed with dictionary {dict_id}, which this KB lacks")
                d = zstandard.ZstdCompressionDict(raw)
                with self._lock:
                    self._data[dict_id] = d
            dec = mine[dict_id] = zstandard.ZstdDecompressor(dict_data=d)
        return dec.decompress(frame)


def train(texts: Sequence[str]) -> bytes | None:
    """A dictionary for texts like `texts`, or None when they are too few or too small to teach one.
    It learns from what gets compressed: texts cut into `BLOCK`-character pieces (so ten long PDFs
    teach as well as a thousand short notes), at most DICT_SAMPLE_TEXTS pieces, evenly spread."""
    pieces = [t[i : i + BLOCK] for t in texts for i in range(0, len(t), BLOCK)]
    if len(pieces) < DICT_MIN_TEXTS:
        return None
    step = max(1, len(pieces) // DICT_SAMPLE_TEXTS)
    samples = [p.encode("utf-8") for p in pieces[::step]]
    total = sum(map(len, samples))
    size = min(DICT_BYTES, total // 10)  # zstd wants about 10x (better 100x) the dictionary in samples
    if size < 4096:
        return None
    try:
        return zstandard.train_dictionary(size, samples, level=ZSTD_LEVEL).as_bytes()
    except zstandard.ZstdError:  # e.g. texts too alike or too short to find anything to share
        return None


def pack(text: str, dictionaries: Dictionaries | None = None) -> bytes:
    """The stored body of `text` (with the KB's current dictionary, when it has one)."""
    if dictionaries is not None and dictionaries.current is not None:
        if len(text) <= BLOCK:
            did, (frame,) = dictionaries.compress([text.encode("utf-8")])
            return struct.pack("<BI", ZSTD_WHOLE, did) + frame
        did, blocks = dictionaries.compress([text[i : i + BLOCK].encode("utf-8") for i in range(0, len(text), BLOCK)])
        header = struct.pack(f"<BIII{len(blocks)}I", ZSTD_BLOCKS, did, BLOCK, len(blocks), *map(len, blocks))
        return header + b"".join(blocks)
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
    """(block size, [(offset, length)] of each block in `body`) of a BLOCKS or ZSTD_BLOCKS body."""
    head = 1 if body[0] == BLOCKS else 5  # ZSTD_BLOCKS: the dictionary id comes first
    size, n = struct.unpack_from("<II", body, head)
    lengths = struct.unpack_from(f"<{n}I", body, head + 8)
    spans, at = [], head + 8 + 4 * n
    for length in lengths:
        spans.append((at, length))
        at += length
    return size, spans


def _decoder(body: memoryview, dictionaries: Dictionaries | None) -> Callable[[memoryview], str]:
    """How to decode one compressed part (a whole text or a block) of `body`."""
    if body[0] in (WHOLE, BLOCKS):
        return _inflate
    if dictionaries is None:
        raise ValueError("a version text packed with a dictionary: read it through its knowledge base")
    (did,) = struct.unpack_from("<I", body, 1)

    def unzstd(frame: memoryview) -> str:
        try:
            return dictionaries.decompress(did, frame).decode("utf-8")
        except (zstandard.ZstdError, UnicodeDecodeError) as exc:
            raise ValueError(f"a corrupt version text ({exc})") from None

    return unzstd


def unpack(body: bytes | memoryview, dictionaries: Dictionaries | None = None) -> str:
    """The whole text of a stored body; ValueError for a body no codec here can read."""
    codec = body[0] if len(body) else None
    if codec == ZSTD_WHOLE and dictionaries is not None:  # the common case, kept short: one frame
        try:
            return dictionaries.decompress(int.from_bytes(body[1:5], "little"), body[5:]).decode("utf-8")
        except (zstandard.ZstdError, UnicodeDecodeError) as exc:
            raise ValueError(f"a corrupt version text ({exc})") from None
    body = memoryview(body)
    if codec in (WHOLE, ZSTD_WHOLE):
        return _decoder(body, dictionaries)(body[1 if codec == WHOLE else 5 :])
    if codec in (BLOCKS, ZSTD_BLOCKS):
        decode = _decoder(body, dictionaries)
        _, spans = _layout(body)
        return "".join(decode(body[at : at + n]) for at, n in spans)
    raise ValueError(f"a version text in an unknown format (codec byte {codec})")


class TextCache:
    """Decoded version texts, or blocks of them, by (doc_id, version[, block]); least recently used
    dropped first once the texts held exceed `max_chars`. A version's text never changes once
    committed, so entries never go stale; the store clears the cache when a write rolls back (a version
    read inside it may never have existed)."""

    def __init__(self, max_chars: int = 4_000_000, dictionaries: Dictionaries | None = None) -> None:
        self.max_chars = max_chars
        self.dictionaries = dictionaries
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
            text = unpack(body, self.dictionaries)
            self.put(key, text)
        return text

    def cached_slices(self, wanted: Sequence[tuple[tuple[str, int], int, int]]) -> list[str | None]:
        """For each (version key, start, end): text[start:end] of that version when the cache holds it
        (the whole text, or the blocks of `BLOCK` characters it spans), else None: a reader that asks
        first need not fetch the body. One lock for all."""
        out: list[str | None] = []
        with self._lock:
            texts = self._texts
            for key, start, end in wanted:
                whole = texts.get(key)
                if whole is not None:
                    texts.move_to_end(key)
                    out.append(whole[start:end])
                    continue
                first, last = start // BLOCK, max(start, end - 1) // BLOCK
                parts = [texts.get((*key, BLOCK, i)) for i in range(first, last + 1)]
                if None in parts:
                    out.append(None)
                    continue
                for i in range(first, last + 1):
                    texts.move_to_end((*key, BLOCK, i))
                out.append("".join(parts)[start - first * BLOCK : end - first * BLOCK])  # type: ignore[arg-type]
        return out

    def slice(self, key: tuple[str, int], body: bytes | memoryview, start: int, end: int) -> str:
        """text[start:end] of version `key` whose stored body is `body`: only the blocks it needs are
        decompressed (and kept, by (*key, block size, block number))."""
        whole = self.get(key)
        if whole is not None:
            return whole[start:end]
        if not body or body[0] not in (BLOCKS, ZSTD_BLOCKS):
            whole = unpack(body, self.dictionaries)
            self.put(key, whole)
            return whole[start:end]
        body = memoryview(body)
        decode = _decoder(body, self.dictionaries)
        size, spans = _layout(body)
        first, last = start // size, max(start, end - 1) // size
        parts = []
        for i in range(first, min(last, len(spans) - 1) + 1):
            part = self.get((*key, size, i))
            if part is None:
                at, n = spans[i]
                part = decode(body[at : at + n])
                self.put((*key, size, i), part)
            parts.append(part)
        return "".join(parts)[start - first * size : end - first * size]
