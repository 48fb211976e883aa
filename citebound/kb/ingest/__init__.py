"""Turn files and folders into documents: one reader per format, a walker that refuses to leave the
folders it was given, and skip records that name every file not taken and why.

Supported: `.txt` `.text` `.md` `.markdown` `.rst` (plain text), `.html` `.htm` (text only; scripts and
styles dropped), `.pdf` (pypdf text layer), `.jsonl` in the BEIR corpus format (`{_id, title, text}`,
one document per line, document id = `_id`).

Document ids: a file inside a folder given to ingest is `<folder name>/<path relative to the folder>`
(POSIX separators); a file given directly is its file name. Ingesting the same id again makes a new
version if its text changed.
"""

from __future__ import annotations

from citebound.kb.ingest.walk import RawDocument, Skipped, collect, normalize_text

__all__ = ["RawDocument", "Skipped", "collect", "normalize_text"]
