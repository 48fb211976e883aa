"""Readers of the labelled data citebound calibrates and evaluates on, one per format.

BEIR folders (`load_beir`): `corpus.jsonl` ({_id, title, text}), `queries.jsonl` ({_id, text}) and
`qrels/<split>.tsv` (header, then query-id, corpus-id, score), read by `eval retrieval`.

Labelled QA folders (the layout of `shared/data/qa/squad2/<split>`): `corpus.jsonl` in BEIR form and
`questions.jsonl` rows `{id, question, context_id, answerable, answers}` (only `question` and
`answerable` are required: a user's own calibration questions need no more). One reader, shared by
`calibrate retrieval` (citebound.retrieval), `eval qa`, `calibrate extractive` (citebound.evaluate) and
the benchmarks, so all reject the same bad rows with the same message.

A leaf module: it imports nothing of citebound but `errors`, so any layer may read these files.
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citebound.errors import InputError


def load_questions(data: Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The question rows of `data/questions.jsonl` (at most `limit`), normalised; InputError on a bad row."""
    path = Path(data) / "questions.jsonl"
    if not path.is_file():
        raise InputError(f"{data}: questions.jsonl is missing")
    rows: list[dict[str, Any]] = []
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                row = json.loads(raw.decode("utf-8-sig" if lineno == 1 else "utf-8"))
                rows.append({"id": str(row.get("id", lineno)), "question": str(row["question"]),
                             "context_id": row.get("context_id"), "answerable": bool(row["answerable"]),
                             "answers": [str(a) for a in row.get("answers") or []]})
                json.dumps(rows[-1], ensure_ascii=False).encode("utf-8")  # a lone surrogate: UnicodeEncodeError
            except RecursionError:
                raise InputError(f"{path}:{lineno}: not a question row (JSON nested too deeply)") from None
            except (ValueError, KeyError, TypeError, AttributeError) as exc:  # UnicodeDecodeError is a ValueError
                raise InputError(f"{path}:{lineno}: not a question row ({str(exc)[:200]})") from None
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


@dataclass(frozen=True)
class BeirData:
    name: str
    folder: Path
    corpus: Path
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    split: str


def load_beir(folder: str | os.PathLike[str], split: str = "test") -> BeirData:
    """Read queries and qrels of one split (only queries that have qrels are kept)."""
    root = Path(folder)
    corpus = root / "corpus.jsonl"
    qrels_path = root / "qrels" / f"{split}.tsv"
    for needed in (corpus, root / "queries.jsonl"):
        if not needed.is_file():
            raise InputError(f"{root} is not a BEIR folder: {needed.name} is missing")
    if not qrels_path.is_file():
        have = sorted(p.stem for p in (root / "qrels").glob("*.tsv")) if (root / "qrels").is_dir() else []
        raise InputError(f"{root}: no qrels for split {split!r} (have: {', '.join(have) or 'none'})")
    qrels: dict[str, dict[str, int]] = {}
    with qrels_path.open(encoding="utf-8") as fh:
        rows = csv.reader(fh, delimiter="\t")
        for i, row in enumerate(rows):
            if i == 0 and row and not row[-1].strip().lstrip("-").isdigit():
                continue  # header
            if len(row) < 3:
                continue
            qrels.setdefault(row[0], {})[row[1]] = int(row[2])
    queries: dict[str, str] = {}
    with (root / "queries.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                q = json.loads(line)
                if str(q["_id"]) in qrels:
                    queries[str(q["_id"])] = q["text"]
    return BeirData(root.resolve().name, root, corpus, queries, qrels, split)
