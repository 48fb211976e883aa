"""Walk the paths given to ingest and read each file with the reader for its format."""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from citebound.errors import InputError
from citebound.text.unicode import lone_surrogate

MAX_FILE_BYTES = 100 * 1024 * 1024  # larger single-document files are skipped: almost surely not a document

TEXT_SUFFIXES = {".txt", ".text", ".md", ".markdown", ".rst"}
HTML_SUFFIXES = {".html", ".htm", ".xhtml"}
PDF_SUFFIXES = {".pdf"}
JSONL_SUFFIXES = {".jsonl"}
SUPPORTED = TEXT_SUFFIXES | HTML_SUFFIXES | PDF_SUFFIXES | JSONL_SUFFIXES


@dataclass(frozen=True, slots=True)
class RawDocument:
    doc_id: str
    text: str  # already normalized
    source: str


@dataclass(frozen=True, slots=True)
class Skipped:
    source: str
    reason: str


def shown(path: str | os.PathLike[str]) -> str:
    """A path as printable text: a file name that is not valid UTF-8 (Python keeps its bytes as lone
    surrogates) is shown with backslash escapes instead of failing to print or store."""
    text = os.fspath(path)
    if lone_surrogate(text) is None:
        return text
    return os.fsencode(text).decode("utf-8", "backslashreplace")


_BLANK_RUNS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")
_SURROGATES = re.compile("[\ud800-\udfff]")
_TRAILING_SPACE = re.compile(r"[ \t]+\n")


def normalize_text(text: str) -> str:
    """NFC, `\\n` line ends, no trailing spaces, at most one blank line in a row, stripped.

    Offsets of chunks and citations refer to this normalized text, which is what the KB stores. A lone
    surrogate (a broken PDF text layer can produce one) becomes U+FFFD: it cannot be stored as UTF-8.
    """
    text = _SURROGATES.sub("\ufffd", text)
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\x00", "").replace("\u00a0", " ")
    text = _TRAILING_SPACE.sub("\n", text)
    text = _BLANK_RUNS.sub("\n\n", text)
    return text.strip()


def _reader(suffix: str) -> Callable[[Path], str] | None:
    if suffix in TEXT_SUFFIXES:
        from citebound.kb.ingest.text import read_text

        return read_text
    if suffix in HTML_SUFFIXES:
        from citebound.kb.ingest.html import read_html

        return read_html
    if suffix in PDF_SUFFIXES:
        from citebound.kb.ingest.pdf import read_pdf

        return read_pdf
    return None


def _files(root: Path) -> Iterator[tuple[Path, str] | Skipped]:
    """Files under `root` with their document ids; symlinks resolving outside `root` are refused."""
    real_root = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        for d in list(dirnames):
            p = here / d
            if p.is_symlink():
                dirnames.remove(d)
                target = p.resolve()
                if target != real_root and real_root not in target.parents:
                    yield Skipped(str(p), "symlink leaves the folder being ingested; not followed")
                else:
                    yield Skipped(str(p), "symlinked folder inside the corpus; not followed (no duplicates)")
        dirnames.sort()
        for name in sorted(filenames):
            p = here / name
            if name.startswith("."):
                continue
            if p.is_symlink():
                target = p.resolve()
                if real_root not in target.parents:
                    yield Skipped(str(p), "symlink leaves the folder being ingested; not followed")
                    continue
            rel = p.relative_to(root).as_posix()
            doc_id = f"{root.resolve().name}/{rel}"
            if lone_surrogate(doc_id) is not None:
                yield Skipped(shown(p), "file name is not valid UTF-8; cannot be a document id")
                continue
            yield p, doc_id


def _read_file(path: Path, doc_id: str) -> Iterator[RawDocument | Skipped]:
    """The documents in one file, or a Skipped record saying why not. Never raises for a bad file: one
    bad document never aborts an ingest."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED:
        yield Skipped(shown(path), f"unsupported file type {shown(suffix) or '(none)'!r}")
        return
    if lone_surrogate(doc_id) is not None or lone_surrogate(str(path)) is not None:
        yield Skipped(shown(path), "file name is not valid UTF-8; cannot be a document id")
        return
    try:
        size = path.stat().st_size
        if size == 0:
            yield Skipped(str(path), "empty file")
            return
        if size > MAX_FILE_BYTES and suffix not in JSONL_SUFFIXES:  # JSONL is streamed, one document a line
            yield Skipped(str(path), f"file larger than {MAX_FILE_BYTES // 2**20} MB")
            return
        if suffix in JSONL_SUFFIXES:
            from citebound.kb.ingest.beir import read_beir

            for row_id, text in read_beir(path):
                if row_id is None:
                    yield Skipped(str(path), text)
                    continue
                norm = normalize_text(text)
                if norm:
                    yield RawDocument(row_id, norm, f"{path}#{row_id}")
                else:
                    yield Skipped(f"{path}#{row_id}", "empty document")
            return
        reader = _reader(suffix)
        assert reader is not None
        text = normalize_text(reader(path))
    except InputError as exc:
        yield Skipped(str(path), str(exc).removeprefix(f"{path}: "))
        return
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        yield Skipped(str(path), f"unreadable: {exc}")
        return
    except (RecursionError, MemoryError) as exc:
        yield Skipped(str(path), f"unreadable: {type(exc).__name__}")
        return
    except Exception as exc:  # noqa: BLE001 - a reader's unexpected failure costs this file only
        yield Skipped(str(path), f"unreadable: {type(exc).__name__}: {exc}")
        return
    if not text:
        yield Skipped(str(path), "no text in file")
        return
    yield RawDocument(doc_id, text, str(path))


def collect(paths: Iterable[str | os.PathLike[str]]) -> Iterator[RawDocument | Skipped]:
    """Documents from files and folders, with a Skipped record for everything not taken."""
    for given in paths:
        path = Path(given)
        if not path.exists():
            yield Skipped(shown(path), "no such file or folder")
        elif path.is_dir():
            for item in _files(path):
                if isinstance(item, Skipped):
                    yield item
                else:
                    yield from _read_file(*item)
        else:
            yield from _read_file(path, path.name)
