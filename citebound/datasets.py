"""Readers of the labelled data citebound calibrates and evaluates on, one per format.

BEIR folders (`load_beir`): `corpus.jsonl` ({_id, title, text}), `queries.jsonl` ({_id, text}) and
`qrels/<split>.tsv` (header, then query-id, corpus-id, score), read by `eval retrieval`.

Labelled QA folders (the layout of `shared/data/qa/squad2/<split>`): `corpus.jsonl` in BEIR form and
`questions.jsonl` rows `{id, question, context_id, answerable, answers}` (only `question` and
`answerable` are required: a user's own calibration questions need no more). One reader, shared by
`calibrate retrieval` (citebound.retrieval), `eval qa`, `calibrate extractive` (citebound.evaluate) and
the benchmarks, so all reject the same bad rows with the same message.

Instead of `corpus.jsonl`, a QA folder may hold `documents.json` (`load_document_set`): documents read
where they are installed, e.g. the Python manual of the Debian package python3.11-doc
(bench/data/techdocs/), so a set of questions over somebody else's documentation ships without their text.

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
    return load_question_file(path, limit)


def load_question_file(path: Path, limit: int | None = None) -> list[dict[str, Any]]:
    """Question rows from a JSON-lines file: `question` and `answerable` required; `id`, `context_id` and
    `answers` (gold strings) optional. Normalised as `load_questions`; InputError on a bad row."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such questions file")
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
        raise InputError(f"{data}: corpus.jsonl is missing (a QA folder holds questions.jsonl and corpus.jsonl "
                         "or documents.json)")
    return corpus


@dataclass(frozen=True)
class DocumentSet:
    """The documents of a QA folder's `documents.json`: files under `root`, named by their path relative
    to it (`pages`). Ingested as a folder called `name`, so page `p` is the KB document `name/p` and a
    question's `context_id` is a page path."""

    name: str
    root: Path
    pages: tuple[str, ...]
    package: str | None = None

    def doc_id(self, page: str) -> str:
        return f"{self.name}/{page}"

    def paths(self) -> list[Path]:
        return [self.root / page for page in self.pages]


def load_document_set(data: str | os.PathLike[str]) -> DocumentSet:
    """`data/documents.json` (`{name, root, pages, package?}`); InputError when it is malformed or a
    page is missing (naming the package that installs them, when the file names one)."""
    path = Path(data) / "documents.json"
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
        name, root = str(spec["name"]), Path(spec["root"])
        pages = tuple(str(p) for p in spec["pages"])
        package = spec.get("package")
    except FileNotFoundError:
        raise InputError(f"{data}: documents.json is missing") from None
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InputError(f"{path}: not a document list ({str(exc)[:200]})") from None
    if not pages or not name or "/" in name:
        raise InputError(f"{path}: needs a folder name without '/' and at least one page")
    if any(Path(p).is_absolute() or ".." in Path(p).parts for p in pages):
        raise InputError(f"{path}: pages are paths relative to root, inside it")
    missing = [p for p in pages if not (root / p).is_file()]
    if missing:
        hint = f" (install the Debian package {package}: apt-get install {package})" if package else ""
        raise InputError(f"{path}: {len(missing)} of {len(pages)} pages not found under {root}, "
                         f"e.g. {missing[0]}{hint}")
    return DocumentSet(name, root, pages, str(package) if package else None)


def qa_documents(data: str | os.PathLike[str]) -> Path | DocumentSet:
    """What a labelled QA folder's questions are asked against: its `corpus.jsonl`, or else the
    documents its `documents.json` lists; InputError when it has neither."""
    if (Path(data) / "corpus.jsonl").is_file() or not (Path(data) / "documents.json").is_file():
        return require_corpus(Path(data))
    return load_document_set(data)


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
