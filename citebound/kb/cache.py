"""KBs built from labelled data sets (for evaluation and calibration), cached between runs.

The cache lives under `citebound.paths.cache_root()` (`$CITEBOUND_CACHE`, default `~/.cache/citebound`), one KB folder per corpus under
`kb/<name>-<key>`, where the key hashes the corpus file's bytes, the chunking parameters and the chunker's version: the same
data is never ingested or embedded twice, and changed data gets a fresh KB.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from citebound.paths import cache_root




def file_hash(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cached_kb(corpus: Path, name: str, chunk_size: int | None = None, overlap: int | None = None, progress: bool = True):
    """A KB of `corpus` (a BEIR-style corpus.jsonl) in the cache, built on first use and reused after."""
    from citebound.kb.chunk import CHUNKER_VERSION, DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP
    from citebound.kb.store import KnowledgeBase

    size = chunk_size or DEFAULT_CHUNK_SIZE
    lap = DEFAULT_OVERLAP if overlap is None else overlap
    key = hashlib.sha256(f"{file_hash(corpus)}:{size}:{lap}:{CHUNKER_VERSION}".encode()).hexdigest()[:16]
    folder = cache_root() / "kb" / f"{name}-{key}"
    kb = KnowledgeBase.open(folder, create=True, chunk_size=size, overlap=lap)
    if kb.get_setting("build_complete") != "1":  # first build, or an interrupted one: ingest resumes
        kb.ingest([corpus], progress=progress)
        kb.set_setting("built_from", str(corpus.resolve()))
        kb.set_setting("build_complete", "1")
    return kb
