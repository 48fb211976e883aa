"""Reading what a user hands the verifier: answer and source files, defensively.

Every problem a user can cause (missing file, binary or non-UTF-8 bytes, an oversized answer, malformed
JSON, JSON nested too deeply or with an integer too long to read, a source id that is not a string or an
integer, text with a lone surrogate (a `\\ud800` escape, not encodable as UTF-8), a structured citation
naming an unknown source) raises InputError with a one-line message.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from citebound.errors import InputError
from citebound.text.unicode import require_unicode
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


def loads(text: str, where: str) -> object:
    """`json.loads`, with every way it can fail on user input turned into one InputError: malformed JSON,
    nesting deeper than the parser's recursion allows (`[` x 100,000), an integer of more than 4,300
    digits (Python's int-from-string limit), a `\\ud800` escape that leaves a lone surrogate."""
    try:
        value = json.loads(text)
        if "\\ud" in text or "\\uD" in text:  # an escape may decode to a lone surrogate, never storable
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        return value
    except UnicodeEncodeError as exc:
        raise InputError(f"{where}: JSON text holds a lone surrogate escape (U+{ord(exc.object[exc.start]):04X}), "
                         "not valid Unicode") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply") from None
    except ValueError as exc:  # e.g. "Exceeds the limit (4300 digits) for integer string conversion"
        raise InputError(f"{where}: JSON value cannot be read ({str(exc).split(':')[0]})") from None


def json_lines(text: str, where: str) -> Iterator[tuple[int, object]]:
    """(line number, parsed value) for each non-blank line; a malformed line raises InputError."""
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        yield n, loads(line, f"{where}:{n}")


def source_id(value: object, where: str) -> str:
    """A source id as text: a string, or an integer (`1` -> "1"); anything else (null, a list, a
    boolean) is an InputError rather than an id such as "None"."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(f"{where}: a source id must be a string or an integer, not {_json_type(value)}")
    if isinstance(value, int):
        try:
            value = str(value)
        except ValueError:  # more digits than Python converts
            raise InputError(f"{where}: source id is an integer too long to use as an id") from None
    if not value.strip():
        raise InputError(f"{where}: a source id must not be empty")
    return require_unicode(value, f"{where}: source id")


def _json_type(value: object) -> str:
    return {type(None): "null", bool: "a boolean", list: "a list", dict: "an object", float: "a number"}.get(
        type(value), type(value).__name__)


def parse_sources(text: str, where: str = "sources") -> dict[str, str]:
    """Sources as a JSON object {id: text} or as JSON lines {"id": ..., "text": ...}."""
    stripped = text.strip()
    if not stripped:
        raise InputError(f"{where} is empty")
    if stripped.startswith("{"):
        try:
            obj = loads(stripped, where)
        except InputError:
            obj = None  # perhaps JSON lines: each line an object (a real error shows again per line)
        if isinstance(obj, dict) and not {"id", "text"} & obj.keys():  # else: one JSON-lines row
            return _check_mapping(obj, where)
    sources: dict[str, str] = {}
    for n, row in json_lines(text, where):
        if not isinstance(row, dict) or "id" not in row or not isinstance(row.get("text"), str):
            raise InputError(f'{where}:{n}: expected {{"id": ..., "text": "..."}}')
        sid = source_id(row["id"], f"{where}:{n}")
        if sid in sources:
            raise InputError(f"{where}:{n}: duplicate source id {sid!r}")
        sources[sid] = require_unicode(row["text"], f"{where}:{n}: source {sid}")
    return _check_mapping(sources, where)


def _check_mapping(obj: Mapping[object, object], where: str) -> dict[str, str]:
    if not obj:
        raise InputError(f"{where} holds no sources")
    out: dict[str, str] = {}
    for key, value in obj.items():
        sid = source_id(key, where)
        if not isinstance(value, str):
            raise InputError(f"{where}: source {sid} must be a string of text")
        out[sid] = require_unicode(value, f"{where}: source {sid}")
    return out


def parse_answer(text: str) -> str | GroundedAnswer:
    """A GroundedAnswer when the text is a JSON object, else plain text with inline citations."""
    if not text.strip():
        raise InputError("the answer is empty")
    require_unicode(text, "the answer")
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
