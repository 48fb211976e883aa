"""KBs built from labelled data sets (for evaluation and calibration), cached between runs.

The cache lives under `citebound.paths.cache_root()` (`$CITEBOUND_CACHE`, default `~/.cache/citebound`), one KB folder per corpus under
`kb/<name>-<key>`, where the key hashes the corpus file's bytes, the chunking parameters and the chunker's version: the same
data is never ingested or embedded twice, and changed data gets a fresh KB.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Sequence
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
    kb = _open_cached(name, file_hash(corpus), chunk_size, overlap)
    if kb.get_setting("build_complete") != "1":  # first build, or an interrupted one: ingest resumes
        kb.ingest([corpus], progress=progress)
        _built(kb, str(corpus.resolve()))
    return kb


def cached_files_kb(root: Path, pages: Sequence[str], name: str, progress: bool = True):
    """A KB of the files `pages` (paths relative to `root`), ingested as `citebound ingest` ingests a
    folder called `name` that holds them: document ids `name/<page>`. Cached like `cached_kb`, keyed by
    every page's path and bytes."""
    h = hashlib.sha256()
    for page in pages:
        h.update(f"{page}\0{file_hash(Path(root) / page)}\0".encode())
    kb = _open_cached(name, h.hexdigest(), None, None)
    if kb.get_setting("build_complete") != "1":
        with tempfile.TemporaryDirectory() as tmp:  # only the listed pages, under the folder name
            folder = Path(tmp) / name
            for page in pages:
                (folder / page).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(root) / page, folder / page)
            kb.ingest([folder], progress=progress)
        _built(kb, str(Path(root).resolve()))
    return kb


def _open_cached(name: str, content_key: str, chunk_size: int | None, overlap: int | None):
    from citebound.kb.chunk import CHUNKER_VERSION, DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP
    from citebound.kb.store import KnowledgeBase

    size = chunk_size or DEFAULT_CHUNK_SIZE
    lap = DEFAULT_OVERLAP if overlap is None else overlap
    key = hashlib.sha256(f"{content_key}:{size}:{lap}:{CHUNKER_VERSION}".encode()).hexdigest()[:16]
    return KnowledgeBase.open(cache_root() / "kb" / f"{name}-{key}", create=True, chunk_size=size, overlap=lap)


def _built(kb, source: str) -> None:
    kb.set_setting("built_from", source)
    kb.set_setting("build_complete", "1")
