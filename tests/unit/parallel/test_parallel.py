"""Batch work on Ray or a process pool gives exactly what the same run gives in this process: real
claims with the real verifier (deterministic and full), retrieval on a real BEIR collection, and `ask`
on real SQuAD 2.0 questions."""

from __future__ import annotations

import json
import sys

import pytest
from helpers.shared_data import SHARED, need

from citebound.errors import InputError
from citebound.parallel import InProcess, ProcessPool, RayExecutor, chunk_size_for, make_executor
from citebound.verify.batch import run_batch
from citebound.verify.checkers import CheckerSpec

ADI = SHARED / "retrieval" / "adi"
TIMING = {"claims_per_second", "executor", "workers", "address"}


def _same_batch(local, other) -> None:
    assert [p.to_dict() for p in other.predictions] == [p.to_dict() for p in local.predictions]
    assert {k: v for k, v in other.summary.items() if k not in TIMING} == \
           {k: v for k, v in local.summary.items() if k not in TIMING}


def _double(chunk: list) -> list:
    return [2 * x for x in chunk]


def test_every_executor_keeps_input_order_across_chunks():
    items = list(range(103))
    with InProcess() as local:
        assert local.map(_double, items) == [2 * x for x in items]
        assert local.map(_double, []) == []
    assert chunk_size_for(103, 2) == 13 and chunk_size_for(5, 4) == 1 and chunk_size_for(10**6, 2) == 64


def test_bad_settings_are_input_errors(monkeypatch):
    with pytest.raises(InputError, match="at least 1"):
        make_executor(workers=0)
    assert isinstance(make_executor(), InProcess)
    monkeypatch.setitem(sys.modules, "ray", None)  # as if the extra were not installed
    with pytest.raises(InputError, match=r"citebound\[ray\]"):
        make_executor(ray="auto")


@pytest.mark.slow
@pytest.mark.parametrize("checker", ["deterministic", "full"])
def test_verify_batch_on_ray_equals_the_local_run(ray_cluster, scifact_claims, checker):
    spec = CheckerSpec(checker)
    local = run_batch(scifact_claims, spec, progress=False)
    assert 0 < local.summary["predicted_supported"] < 60  # real rows, both outcomes
    with RayExecutor("auto", workers=2) as ray:
        on_ray = run_batch(scifact_claims, spec, executor=ray, progress=False)
    assert on_ray.summary["executor"] == "ray" and on_ray.summary["workers"] == 2
    _same_batch(local, on_ray)


@pytest.mark.slow
def test_verify_batch_on_a_process_pool_equals_the_local_run(scifact_claims):
    spec = CheckerSpec("deterministic")
    local = run_batch(scifact_claims, spec, progress=False)
    with ProcessPool(2) as pool:
        _same_batch(local, run_batch(scifact_claims, spec, executor=pool, progress=False))


@pytest.mark.slow
def test_verify_batch_cli_on_the_running_cluster(ray_cluster, scifact_claims, tmp_path, capsys):
    from citebound.cli import main

    def run(*extra: str) -> tuple[dict, str]:
        out = tmp_path / f"pred{len(extra)}.jsonl"
        with pytest.raises(SystemExit) as exit_:
            main(["verify-batch", str(scifact_claims), "--json", "--out", str(out), *extra])
        assert exit_.value.code == 0
        return json.loads(capsys.readouterr().out), out.read_text()

    local, local_rows = run()
    on_ray, ray_rows = run("--ray", "auto", "--workers", "2")
    assert on_ray["executor"] == "ray" and ray_rows == local_rows
    assert on_ray["balanced_accuracy"] == local["balanced_accuracy"]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["bm25", "hybrid"])
def test_eval_retrieval_on_ray_equals_the_local_run(ray_cluster, mode):
    from citebound.evaluate.retrieval_eval import evaluate_retrieval

    need(ADI)
    local = evaluate_retrieval(ADI, split="test", mode=mode, progress=False)
    with RayExecutor("auto", workers=2) as ray:
        on_ray = evaluate_retrieval(ADI, split="test", mode=mode, progress=False, executor=ray)
    assert local["queries"] > 20 and local["ndcg@10"] > 0.2
    assert on_ray["per_query"] == local["per_query"]
    assert on_ray["ndcg@10"] == local["ndcg@10"] and on_ray["map"] == local["map"]


@pytest.mark.slow
def test_eval_qa_on_ray_equals_the_local_run(ray_cluster, squad_slice):
    from citebound.evaluate.qa_eval import evaluate_qa

    local = evaluate_qa(squad_slice, progress=False)
    with RayExecutor("auto", workers=2) as ray:
        on_ray = evaluate_qa(squad_slice, progress=False, executor=ray)
    assert local.report.answerable > 0 and local.report.unanswerable > 0

    def stable(rows: list[dict]) -> list[dict]:  # each row's own wall time differs between runs
        return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]

    assert stable(on_ray.rows) == stable(local.rows)
    figures = ("answer_recall", "citation_accuracy", "groundedness", "coverage", "abstention", "aurc")
    for name in figures:
        assert getattr(on_ray.report, name) == getattr(local.report, name), name


def test_imap_yields_in_order_as_results_arrive():
    with InProcess() as local:
        stream = local.imap(_double, list(range(10)))
        assert next(stream) == 0 and list(stream) == [2 * x for x in range(1, 10)]


@pytest.mark.slow
def test_embedding_on_ray_stores_the_vectors_the_local_run_stores(ray_cluster, tmp_path):
    from importlib import resources

    from citebound.kb import KnowledgeBase
    from citebound.models.embedder import shared_embedder

    handbook = resources.files("citebound") / "samples" / "handbook"

    def embedded(folder, executor=None):  # noqa: ANN001, ANN202
        with KnowledgeBase.open(folder, create=True) as kb:
            kb.ingest([handbook], progress=False, embed=False)
            assert kb.missing_vectors(shared_embedder().name)
            done = kb.ensure_vectors(shared_embedder(), progress=False, batch=1, executor=executor)
            assert not kb.missing_vectors(shared_embedder().name)
            rows = kb.db.execute("SELECT content_hash, vec FROM vectors ORDER BY content_hash").fetchall()
        return done, [(digest, bytes(vec)) for digest, vec in rows]

    local = embedded(tmp_path / "local")
    with RayExecutor("auto", workers=2) as ray:
        on_ray = embedded(tmp_path / "ray", ray)
    assert local[0] >= 4  # one batch per chunk: several batches, committed in order
    assert on_ray == local
