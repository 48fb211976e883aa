"""Reading what a user hands the verifier: answer and source files, defensively.

Every problem a user can cause (missing file, binary or non-UTF-8 bytes, an oversized answer, malformed
JSON, a structured citation naming an unknown source) raises InputError with a one-line message.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from citebound.errors import InputError
from citebound.verify.citations import resolve_id
from citebound.verify.schema import GroundedAnswer, parse_grounded_answer

MAX_ANSWER_BYTES = 1_000_000  # an answer is a few paragraphs; megabytes mean the wrong file
MAX_SOURCES_BYTES = 200_000_000


def _read_at_most(stream, max_bytes: int | None) -> bytes:
    return stream.read() if max_bytes is None else stream.read(max_bytes + 1)


def read_text(path: str | Path, *, max_bytes: int | None, what: str) -> str:
    """Read UTF-8 text from `path` ("-" = standard input), refusing binary, non-UTF-8 and oversize."""
    try:
        if str(path) == "-":
            data = _read_at_most(sys.stdin.buffer, max_bytes)
        else:
            p = Path(path)
            if not p.exists():
                raise InputError(f"{what} {str(path)!r} does not exist")
            if p.is_dir():
                raise InputError(f"{what} {str(path)!r} is a folder, not a file")
            # read at most max_bytes + 1 rather than trusting stat(): pipes such as `<(cmd)` have no size
            with p.open("rb") as fh:
                data = _read_at_most(fh, max_bytes)
    except OSError as exc:
        raise InputError(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}") from None
    if max_bytes is not None and len(data) > max_bytes:
        raise InputError(f"{what} is larger than {max_bytes:,} bytes")
    if b"\x00" in data[:65536]:
        raise InputError(f"{what} {str(path)!r} looks binary (it contains NUL bytes)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} {str(path)!r} is not UTF-8 text (bad byte at offset {exc.start})") from None


def json_lines(text: str, where: str) -> Iterator[tuple[int, object]]:
    """(line number, parsed value) for each non-blank line; a malformed line raises InputError."""
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield n, json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}:{n}: not valid JSON ({exc.msg})") from None


def parse_sources(text: str, where: str = "sources") -> dict[str, str]:
    """Sources as a JSON object {id: text} or as JSON lines {"id": ..., "text": ...}."""
    stripped = text.strip()
    if not stripped:
        raise InputError(f"{where} is empty")
    if stripped.startswith("{"):
        try:
            obj = json.loads(stripped)
        except json.JSONDecodeError:
            obj = None  # perhaps JSON lines: each line an object
        if isinstance(obj, dict) and not {"id", "text"} & obj.keys():  # else: one JSON-lines row
            return _check_mapping(obj, where)
    sources: dict[str, str] = {}
    for n, row in json_lines(text, where):
        if not isinstance(row, dict) or "id" not in row or not isinstance(row.get("text"), str):
            raise InputError(f'{where}:{n}: expected {{"id": ..., "text": "..."}}')
        sid = str(row["id"])
        if sid in sources:
            raise InputError(f"{where}:{n}: duplicate source id {sid!r}")
        sources[sid] = row["text"]
    return _check_mapping(sources, where)


def _check_mapping(obj: Mapping[object, object], where: str) -> dict[str, str]:
    if not obj:
        raise InputError(f"{where} holds no sources")
    out: dict[str, str] = {}
    for key, value in obj.items():
        if not isinstance(value, str):
            raise InputError(f"{where}: source {key!s} must be a string of text")
        out[str(key)] = value
    return out


def parse_answer(text: str) -> str | GroundedAnswer:
    """A GroundedAnswer when the text is a JSON object, else plain text with inline citations."""
    if not text.strip():
        raise InputError("the answer is empty")
    if text.lstrip().startswith("{"):
        return parse_grounded_answer(text.strip())
    return text


def check_known_sources(answer: str | GroundedAnswer, sources: Mapping[str, str]) -> None:
    """A structured citation must name a given source (inline markers are reported, not refused)."""
    if isinstance(answer, GroundedAnswer):
        unknown = [c.source_id for c in answer.citations if resolve_id(c.source_id, sources) is None]
        if unknown:
            raise InputError(
                f"the answer cites unknown source id(s) {', '.join(unknown)}; known: {', '.join(sources)}"
            )


def load_inputs(answer_path: str, sources_path: str) -> tuple[str | GroundedAnswer, dict[str, str]]:
    """Read and validate an answer file and a sources file for `citebound verify`."""
    answer = parse_answer(read_text(answer_path, max_bytes=MAX_ANSWER_BYTES, what="answer"))
    sources = parse_sources(read_text(sources_path, max_bytes=MAX_SOURCES_BYTES, what="sources"), sources_path)
    check_known_sources(answer, sources)
    return answer, sources
