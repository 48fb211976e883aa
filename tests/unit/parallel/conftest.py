"""A local Ray cluster, started once per test session (2 CPUs, a small object store, no dashboard), for
the tests that compare a run on Ray with the same run in this process. Without Ray they skip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.shared_data import SHARED, need

CLAIMS = SHARED / "claims" / "scifact" / "dev.jsonl"
SQUAD_DEV = SHARED / "qa" / "squad2" / "dev"


@pytest.fixture(scope="session")
def ray_cluster():
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'citebound[ray]'): the Ray tests skip")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, object_store_memory=80 * 1024 * 1024, include_dashboard=False,
                 log_to_driver=False, configure_logging=False)
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture
def scifact_claims(tmp_path) -> Path:
    """The first 60 SciFact dev claims with their abstracts and labels: real rows, both labels."""
    need(CLAIMS)
    out = tmp_path / "claims.jsonl"
    with CLAIMS.open(encoding="utf-8") as fh:
        out.write_text("".join(next(fh) for _ in range(60)), encoding="utf-8")
    return out


@pytest.fixture
def squad_slice(tmp_path) -> Path:
    """A QA folder cut from SQuAD 2.0 dev: its first 12 paragraphs and the questions on them (both
    answerable and unanswerable ones)."""
    need(SQUAD_DEV)
    with (SQUAD_DEV / "corpus.jsonl").open(encoding="utf-8") as fh:
        corpus = [next(fh) for _ in range(12)]
    ids = {json.loads(line)["_id"] for line in corpus}
    questions = [line for line in (SQUAD_DEV / "questions.jsonl").read_text(encoding="utf-8").splitlines()
                 if json.loads(line)["context_id"] in ids]
    folder = tmp_path / "squad2" / "slice"
    folder.mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("".join(corpus), encoding="utf-8")
    (folder / "questions.jsonl").write_text("\n".join(questions[:40]) + "\n", encoding="utf-8")
    return folder
