"""JSON lines in the BEIR corpus format: one `{"_id", "title", "text"}` object per line.

Each line is a document whose id is `_id`; its text is the title, a blank line, then the text (as
Pyserini's "flat" BEIR indexes do). A line that is not such an object is reported, not fatal: malformed
JSON, JSON nested too deeply, an `_id` that is not a non-empty string or integer (`null` would become
a document named "None"), an integer `_id` too long to convert, a title or text that is not a string,
text with a lone surrogate escape (`"\\ud800"`: not encodable, so not storable), bytes that are not
UTF-8. Each line is decoded on its own, so one bad line never costs the lines after it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from citebound.text.unicode import lone_surrogate


def _row(line: bytes, lineno: int) -> tuple[str, str] | tuple[None, str]:
    try:
        decoded = line.decode("utf-8-sig" if lineno == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text (bad byte at offset {exc.start})"
    try:
        row = json.loads(decoded)
    except json.JSONDecodeError as exc:
        return None, f"malformed JSON ({exc.msg})"
    except RecursionError:
        return None, "malformed JSON (nested too deeply)"
    except ValueError as exc:  # an integer of more than 4,300 digits
        return None, f"malformed JSON ({str(exc).split(':')[0]})"
    if not isinstance(row, dict) or "_id" not in row or not isinstance(row.get("text"), str):
        return None, "not a BEIR corpus row (needs _id and text)"
    raw_id, title = row["_id"], row.get("title") or ""
    if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)):
        return None, f"_id must be a string or an integer, not {'null' if raw_id is None else type(raw_id).__name__}"
    try:
        doc_id = str(raw_id)
    except ValueError:
        return None, "_id is an integer too long to use as an id"
    if not doc_id.strip():
        return None, "_id is empty"
    if not isinstance(title, str):
        return None, f"title must be a string, not {type(title).__name__}"
    text = f"{title.strip()}\n\n{row['text']}" if title.strip() else row["text"]
    for what, value in (("_id", doc_id), ("text", text)):
        at = lone_surrogate(value)
        if at is not None:
            return None, f"{what} is not valid Unicode (a lone surrogate U+{ord(value[at]):04X})"
    return doc_id, text


def read_beir(path: Path) -> Iterator[tuple[str, str] | tuple[None, str]]:
    """Yield (doc_id, text) per good line, or (None, reason) per bad line."""
    with path.open("rb") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            doc_id, text = _row(line, lineno)
            if doc_id is None:
                yield None, f"{path}:{lineno}: {text}"
            else:
                yield doc_id, text
