"""Readers of the labelled data citebound calibrates and evaluates on, one per format.

Labelled QA folders (the layout of `shared/data/qa/squad2/<split>`): `corpus.jsonl` in BEIR form and
`questions.jsonl` rows `{id, question, context_id, answerable, answers}` (only `question` and
`answerable` are required: a user's own calibration questions need no more). One reader, shared by
`calibrate retrieval` (citebound.retrieval), `eval qa`, `calibrate extractive` (citebound.evaluate) and
the benchmarks, so all reject the same bad rows with the same message.

A leaf module: it imports nothing of citebound but `errors`, so any layer may read these files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citebound.errors import InputError


def load_questions(data: Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The question rows of `data/questions.jsonl` (at most `limit`), normalised; InputError on a bad row."""
    path = Path(data) / "questions.jsonl"
    if not path.is_file():
        raise InputError(f"{data}: questions.jsonl is missing")
    rows: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                rows.append({"id": str(row.get("id", lineno)), "question": str(row["question"]),
                             "context_id": row.get("context_id"), "answerable": bool(row["answerable"]),
                             "answers": [str(a) for a in row.get("answers") or []]})
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise InputError(f"{path}:{lineno}: not a question row ({exc})") from None
            if limit is not None and len(rows) >= limit:
                break
    if not rows:
        raise InputError(f"{path} has no questions")
    return rows


def require_corpus(data: Path) -> Path:
    """`data/corpus.jsonl` of a labelled QA folder; InputError naming the folder when it is missing."""
    corpus = Path(data) / "corpus.jsonl"
    if not corpus.is_file():
        raise InputError(f"{data}: corpus.jsonl is missing (a QA folder holds corpus.jsonl and questions.jsonl)")
    return corpus
