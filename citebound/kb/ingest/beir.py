"""JSON lines in the BEIR corpus format: one `{"_id", "title", "text"}` object per line.

Each line is a document whose id is `_id`; its text is the title, a blank line, then the text (as
Pyserini's "flat" BEIR indexes do). A line that is not such an object is reported, not fatal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator


def read_beir(path: Path) -> Iterator[tuple[str, str] | tuple[None, str]]:
    """Yield (doc_id, text) per good line, or (None, reason) per bad line."""
    with path.open("r", encoding="utf-8-sig", errors="strict") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                yield None, f"{path}:{lineno}: malformed JSON ({exc.msg})"
                continue
            if not isinstance(row, dict) or "_id" not in row or not isinstance(row.get("text"), str):
                yield None, f"{path}:{lineno}: not a BEIR corpus row (needs _id and text)"
                continue
            title = row.get("title") or ""
            text = f"{title.strip()}\n\n{row['text']}" if title.strip() else row["text"]
            yield str(row["_id"]), text
