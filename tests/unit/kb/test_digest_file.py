"""A KB folder with vectors keeps the chunk digests of its latest revision in `ann/digests.bin` (SQLite
stores no chunk hash since m012), so the next process matches chunks to their vectors without reading and
hashing every chunk text; a file that does not match the KB (another revision, another KB, damaged) is
not used, and the digests are hashed and saved again."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from citebound.kb import KnowledgeBase
from citebound.kb.ingest import RawDocument
from citebound.kb.store import DIGESTS_FILE

NOTES = [
    ("scurvy", "Scurvy is caused by a lack of vitamin C; sailors on long voyages were given lemon juice."),
    ("bergen", "Bergen is one of the rainiest cities in Europe, with about 2250 millimetres of rain a year."),
    ("eiffel", "The Eiffel Tower in Paris is 330 metres tall and was finished in 1889."),
    ("aspirin", "Aspirin lowers the risk of a heart attack in people who have already had one."),
    ("tides", "Tides are caused by the gravity of the Moon and, less, of the Sun."),
]


@pytest.fixture(scope="module")
def embedder():
    from citebound.models.embedder import shared_embedder

    return shared_embedder()


def _scans(kb: KnowledgeBase) -> list[str]:
    """The statements from now on that read every current version's text (what hashing needs)."""
    seen: list[str] = []
    kb.db.set_trace_callback(lambda sql: seen.append(sql) if "v.body FROM documents" in sql else None)
    return seen


def _kb_with_vectors(folder: Path, embedder) -> tuple[list[str], np.ndarray]:
    with KnowledgeBase.open(folder, create=True) as kb:
        kb.ingest_documents([RawDocument(name, text, f"{name}.txt") for name, text in NOTES], progress=False)
        kb.ensure_vectors(embedder, progress=False)
        return kb.load_vectors(embedder.name)


def test_the_next_process_reads_the_digests_instead_of_hashing(tmp_path, embedder):
    ids, matrix = _kb_with_vectors(tmp_path / "kb", embedder)
    assert len(ids) == len(NOTES) and (tmp_path / "kb" / "ann" / DIGESTS_FILE).exists()
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        scans = _scans(kb)
        again_ids, again = kb.load_vectors(embedder.name)
        assert not scans  # no chunk text read
        assert again_ids == ids and np.array_equal(again, matrix)
        assert kb.missing_vectors(embedder.name) == {}
    with KnowledgeBase.open(tmp_path / "kb") as kb:  # missing_vectors first, as ensure_vectors does
        scans = _scans(kb)
        assert kb.missing_vectors(embedder.name) == {} and not scans


def test_a_file_that_does_not_match_the_kb_is_not_used(tmp_path, embedder):
    ids, matrix = _kb_with_vectors(tmp_path / "kb", embedder)
    path = tmp_path / "kb" / "ann" / DIGESTS_FILE
    good = path.read_bytes()
    damaged = [good[:-5] + bytes([good[-5] ^ 1]) + good[-4:], good[: len(good) - 44], b"not a digest file\n"]
    for bad in damaged:
        path.write_bytes(bad)
        with KnowledgeBase.open(tmp_path / "kb") as kb:
            scans = _scans(kb)
            assert kb.load_vectors(embedder.name)[0] == ids
            assert scans  # hashed, not read from the file
        assert path.read_bytes() == good  # and saved again
    # another KB's file, even at the same revision, is not this KB's
    _kb_with_vectors(tmp_path / "other", embedder)
    shutil.copy(tmp_path / "other" / "ann" / DIGESTS_FILE, path)
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        scans = _scans(kb)
        assert kb.load_vectors(embedder.name)[0] == ids and scans
    # a new revision: the old file is not used; the new chunk gets its vector, and the file follows
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        kb.ingest_documents([RawDocument("owls", "Owls hunt small mammals at night using silent flight.",
                                         "owls.txt")], progress=False)
        scans = _scans(kb)
        missing = kb.missing_vectors(embedder.name)
        assert list(missing.values()) == ["Owls hunt small mammals at night using silent flight."] and scans
        kb.ensure_vectors(embedder, progress=False)
        revision, new_ids = kb.revision, kb.load_vectors(embedder.name)[0]
    assert len(new_ids) == len(ids) + 1
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        scans = _scans(kb)
        assert kb.load_vectors(embedder.name)[0] == new_ids and not scans and kb.revision == revision


def test_a_kb_without_vectors_writes_no_file(tmp_path, embedder):
    with KnowledgeBase.open(tmp_path / "kb", create=True) as kb:
        kb.ingest_documents([RawDocument(name, text, f"{name}.txt") for name, text in NOTES], progress=False)
        assert kb.load_vectors(embedder.name)[0] == [] and len(kb.missing_vectors(embedder.name)) == len(NOTES)
    assert not (tmp_path / "kb" / "ann").exists()
