from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from citebound.datasets import load_beir
from citebound.errors import InputError
from citebound.evaluate.retrieval_eval import evaluate_retrieval


def test_bm25_eval_on_a_tiny_beir_folder(beir_dir):
    result = evaluate_retrieval(beir_dir, split="test", mode="bm25", progress=False)
    assert result["queries"] == 3 and result["mode"] == "bm25" and result["gain"] == "linear"
    assert result["documents"] == 5
    # q2 has one relevant document and BM25 puts it first
    assert result["per_query"]["q2"]["ndcg@10"] == 1.0
    # d5 (citrus) shares no word with "What causes scurvy?": BM25 cannot find it, recall is 1 of 2
    assert result["per_query"]["q1"]["recall@100"] == 0.5
    assert result["recall@100"] == pytest.approx((0.5 + 1 + 1) / 3, abs=1e-4)
    for key in ("ndcg@10", "recall@10", "recall@100", "mrr@10", "map"):
        assert 0.0 <= result[key] <= 1.0
    assert result["ndcg@10"] == pytest.approx(
        sum(q["ndcg@10"] for q in result["per_query"].values()) / 3, abs=1e-4
    )


def test_the_kb_is_cached_and_reused(beir_dir, tmp_path):
    evaluate_retrieval(beir_dir, mode="bm25", progress=False)
    folders = list((tmp_path / "cache" / "kb").iterdir())
    assert len(folders) == 1 and folders[0].name.startswith("tiny-")
    from citebound.kb import KnowledgeBase

    with KnowledgeBase.open(folders[0]) as kb:
        revision = kb.revision
    evaluate_retrieval(beir_dir, mode="bm25", progress=False)
    with KnowledgeBase.open(folders[0]) as kb:
        assert kb.revision == revision  # nothing re-ingested
    # changed data -> another KB
    with (beir_dir / "corpus.jsonl").open("a") as fh:
        fh.write(json.dumps({"_id": "d6", "title": "", "text": "A new document."}) + "\n")
    evaluate_retrieval(beir_dir, mode="bm25", progress=False)
    assert len(list((tmp_path / "cache" / "kb").iterdir())) == 2


def test_bad_folders_and_splits_are_input_errors(beir_dir, tmp_path):
    with pytest.raises(InputError, match="no qrels for split 'dev'"):
        load_beir(beir_dir, "dev")
    with pytest.raises(InputError, match="not a BEIR folder"):
        load_beir(tmp_path, "test")


def _cli():
    import typer

    from citebound.cli import calibrate_app, eval_app
    from citebound.cli import kb as kb_commands

    app = typer.Typer()
    app.add_typer(eval_app, name="eval")
    app.add_typer(calibrate_app, name="calibrate")
    kb_commands.register(app)
    return app


def test_cli_eval_retrieval_json_and_report(beir_dir, tmp_path):
    result = CliRunner().invoke(
        _cli(),
        ["eval", "retrieval", "--data", str(beir_dir), "--split", "test", "--mode", "bm25", "--json",
         "--report", str(tmp_path / "rep" / "tiny")],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    for key in ("ndcg@10", "recall@10", "recall@100", "mrr@10", "map", "gain", "mode", "queries"):
        assert key in summary
    assert summary["queries"] == 3 and summary["gain"] == "linear"
    report = json.loads((tmp_path / "rep" / "tiny.json").read_text())
    assert report["sections"][0]["table"][0]["ndcg@10"] == summary["ndcg@10"]
    assert "data:image/png;base64," in (tmp_path / "rep" / "tiny.html").read_text()


def test_cli_ingest_and_remove(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Owls hunt at night.", encoding="utf-8")
    (docs / "b.bin").write_bytes(b"\x00\x01")
    runner = CliRunner()
    out = runner.invoke(_cli(), ["ingest", str(docs), "--kb", str(tmp_path / "kb"), "--no-embed"])
    assert out.exit_code == 0, out.output
    assert "1 added" in out.stdout and "1 skipped" in out.stdout
    out = runner.invoke(_cli(), ["remove", "docs/a.txt", "--kb", str(tmp_path / "kb")])
    assert out.exit_code == 0 and "removed docs/a.txt" in out.stdout
    out = runner.invoke(_cli(), ["remove", "docs/zzz.txt", "--kb", str(tmp_path / "kb")])
    assert out.exit_code != 0 and isinstance(out.exception, InputError)
