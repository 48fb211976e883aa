"""schemathesis against the server's own OpenAPI schema, on a live uvicorn server over the handbook KB,
within a fixed budget (`SCHEMA_FUZZ_EXAMPLES` cases per operation, default 12; the run is also cut at
`SCHEMA_FUZZ_SECONDS`, default 240): no response is a 500, every response matches the schema
(status code documented, content type, body), and invalid input is rejected with a 4xx."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("schemathesis")
from helpers.server_fixtures import handbook_kb, live_server  # noqa: E402

from citebound.kb import KnowledgeBase  # noqa: E402
from citebound.kb.keys import KeyStore  # noqa: E402
from citebound.server.app import create_app  # noqa: E402
from citebound.server.settings import ServerSettings  # noqa: E402

EXAMPLES = int(os.environ.get("SCHEMA_FUZZ_EXAMPLES", "12"))
SECONDS = int(os.environ.get("SCHEMA_FUZZ_SECONDS", "240"))
CHECKS = ("not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,"
          "negative_data_rejection")


def _st() -> list[str]:
    exe = Path(sys.executable).with_name("st")
    return [str(exe)] if exe.exists() else [shutil.which("st") or "st"]


@pytest.mark.slow
def test_schemathesis_finds_no_server_error_and_no_schema_mismatch(tmp_path):
    kb = handbook_kb(tmp_path)
    with KnowledgeBase.open(kb) as store:
        key = KeyStore(store.db).create("ask,verify,ingest,audit", name="fuzz")[1]
    app = create_app(kb, ServerSettings(rate_limit=0, max_upload_bytes=200_000))
    with live_server(app) as base:
        cmd = [*_st(), "run", f"{base}/openapi.json", "--checks", CHECKS, "--max-examples", str(EXAMPLES),
               "--phases", "examples,coverage,fuzzing", "--header", f"Authorization: Bearer {key}",
               "--request-timeout", "60", "--generation-deterministic", "--suppress-health-check", "all",
               "--max-failures", "5", "--no-color"]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=SECONDS + 60,
                             env={**os.environ, "SCHEMATHESIS_HOOKS": ""})
    tail = (res.stdout + res.stderr)[-6000:]
    print(tail)
    assert res.returncode == 0, tail
    assert "No issues found" in tail or "passed" in tail.lower(), tail
