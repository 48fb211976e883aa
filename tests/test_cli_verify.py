"""`citebound verify` and `citebound verify-batch` through the real entry point (`citebound.cli.main`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from citebound.cli import main

SAMPLE = Path(__file__).resolve().parents[1] / "citebound" / "samples" / "verify"


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_verify_the_bundled_sample_as_json(capsys):
    code, out, _ = run(["verify", "--answer", str(SAMPLE / "answer.txt"), "--sources", str(SAMPLE / "sources.jsonl"),
                        "--json"], capsys)  # fmt: skip
    assert code == 0
    report = json.loads(out)
    labels = [c["label"] for c in report["claims"]]
    assert labels == ["supported", "unsupported", "supported", "supported", "uncited"]
    assert report["invalid_citations"] == ["S7"]
    assert "10" in report["claims"][1]["reason"]
    assert report["ok"] is False


def test_verify_readable_report_and_strict_exit(capsys):
    args = ["verify", "--answer", str(SAMPLE / "answer.txt"), "--sources", str(SAMPLE / "sources.jsonl")]
    code, out, _ = run(args, capsys)
    assert code == 0 and "UNSUPPORTED" in out and "groundedness" in out
    code, _, _ = run([*args, "--strict"], capsys)
    assert code == 1


def test_verify_reads_the_answer_from_stdin_and_sources_as_a_json_object(tmp_path):
    sources = tmp_path / "s.json"
    sources.write_text(json.dumps({"1": "Shipping takes 30 days."}))
    proc = subprocess.run(
        [sys.executable, "-m", "citebound.cli", "verify", "--answer", "-", "--sources", str(sources), "--json"],
        input="Shipping takes 30 days [1].", capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["ok"] is True


def test_grounded_answer_json_is_accepted(tmp_path, capsys):
    answer = tmp_path / "a.json"
    answer.write_text(json.dumps({"answer": "Shipping takes 30 days [S1].",
                                  "citations": [{"source_id": "S1", "quote": "takes 30 days"}]}))
    sources = tmp_path / "s.json"
    sources.write_text(json.dumps({"S1": "Shipping takes 30 days."}))
    code, out, _ = run(["verify", "--answer", str(answer), "--sources", str(sources), "--json"], capsys)
    assert code == 0 and json.loads(out)["quotes"][0]["span"] == [9, 22]


def _bad_inputs(tmp: Path) -> dict[str, tuple[Path, Path, str]]:
    good_sources = tmp / "sources.json"
    good_sources.write_text(json.dumps({"S1": "Shipping takes 30 days."}))
    good_answer = tmp / "answer.txt"
    good_answer.write_text("Shipping takes 30 days [S1].")
    cases = {}
    (tmp / "malformed.json").write_text('{"S1": "Shipping takes 30 days."')
    cases["malformed sources"] = (good_answer, tmp / "malformed.json", "not valid JSON")
    (tmp / "bad_answer.json").write_text('{"answer": "x", "citations": [')
    cases["malformed answer JSON"] = (tmp / "bad_answer.json", good_sources, "GroundedAnswer")
    (tmp / "unknown.json").write_text(json.dumps({"answer": "x [S9].", "citations": [{"source_id": "S9", "quote": "x"}]}))
    cases["unknown source id"] = (tmp / "unknown.json", good_sources, "unknown source id")
    (tmp / "empty.txt").write_text("  \n")
    cases["empty answer"] = (tmp / "empty.txt", good_sources, "empty")
    (tmp / "huge.txt").write_text("Shipping takes 30 days [S1]. " * 360_000)  # ~10 MB
    cases["10 MB answer"] = (tmp / "huge.txt", good_sources, "larger than")
    (tmp / "binary.bin").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    cases["binary answer"] = (tmp / "binary.bin", good_sources, "binary")
    (tmp / "latin1.txt").write_bytes("Caf\xe9 [S1].".encode("latin-1"))
    cases["non-UTF-8 answer"] = (tmp / "latin1.txt", good_sources, "not UTF-8")
    cases["missing file"] = (tmp / "nope.txt", good_sources, "does not exist")
    (tmp / "nonstring.json").write_text(json.dumps({"S1": 3}))
    cases["non-string source"] = (good_answer, tmp / "nonstring.json", "must be a string")
    return cases


CASES = ["malformed sources", "malformed answer JSON", "unknown source id", "empty answer", "10 MB answer",
         "binary answer", "non-UTF-8 answer", "missing file", "non-string source"]  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_bad_input_is_one_line_and_exit_2(case, tmp_path, capsys):
    answer, sources, message = _bad_inputs(tmp_path)[case]
    code, out, err = run(["verify", "--answer", str(answer), "--sources", str(sources)], capsys)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_bad_input_in_a_subprocess_has_no_traceback(tmp_path):
    (tmp_path / "a.bin").write_bytes(b"\x00\x01\x02")
    (tmp_path / "s.json").write_text("{}")
    proc = subprocess.run([sys.executable, "-m", "citebound.cli", "verify", "--answer", str(tmp_path / "a.bin"),
                           "--sources", str(tmp_path / "s.json")], capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "binary" in proc.stderr


ROWS = [
    {"id": "a", "claim": "Refunds take five days.", "evidence": "Refunds take five days.", "label": "supported"},
    {"id": "b", "claim": "Refunds take ten days.", "evidence": "Refunds take five days.", "label": "unsupported"},
    {"id": "c", "claim": "Gift cards can be returned.", "evidence": "Shipping is free.", "label": "unsupported"},
    {"id": "d", "claim": "Shipping is free.", "evidence": "Shipping costs nothing at all.", "label": "supported"},
]


@pytest.mark.parametrize("checker", ["lexical", "deterministic"])
def test_verify_batch_summary_and_predictions(checker, tmp_path, capsys):
    data = tmp_path / "claims.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in ROWS))
    out_file = tmp_path / "pred.jsonl"
    args = ["verify-batch", str(data), "--checker", checker, "--json", "--out", str(out_file), "--threshold", "0.7"]
    code, out, _ = run(args, capsys)
    assert code == 0
    summary = json.loads(out)
    assert {"n", "balanced_accuracy", "precision_supported", "recall_supported", "claims_per_second"} <= summary.keys()
    assert summary["n"] == 4
    preds = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert [p["id"] for p in preds] == ["a", "b", "c", "d"]
    assert all(0.0 <= p["score"] <= 1.0 and p["label"] in ("supported", "unsupported") for p in preds)
    assert preds[0]["label"] == "supported" and preds[2]["label"] == "unsupported"
    # "ten days" vs "five days": 3 of 4 plain terms (>= 0.7), but the cascade's numbers check blocks it
    expected_b = "unsupported" if checker == "deterministic" else "supported"
    assert preds[1]["label"] == expected_b


def test_verify_batch_rejects_a_malformed_line(tmp_path, capsys):
    data = tmp_path / "claims.jsonl"
    data.write_text(json.dumps(ROWS[0]) + "\n{oops\n")
    code, _, err = run(["verify-batch", str(data)], capsys)
    assert code == 2 and ":2: not valid JSON" in err


def test_verify_batch_unknown_checker(tmp_path, capsys):
    data = tmp_path / "claims.jsonl"
    data.write_text(json.dumps(ROWS[0]))
    code, _, err = run(["verify-batch", str(data), "--checker", "oracle"], capsys)
    assert code == 2 and "unknown checker" in err
