"""API keys and limits: `citebound keys` on a real KB, 401/403 by scope, revocation, the per-key rate
limit (429 + Retry-After), and the rule that a KB without keys is served on loopback only."""

import os
import subprocess
import sys

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402
from helpers.server_fixtures import handbook_kb  # noqa: E402

from citebound.errors import InputError  # noqa: E402
from citebound.kb import KnowledgeBase  # noqa: E402
from citebound.kb.keys import KeyStore, hash_key  # noqa: E402
from citebound.server.app import create_app  # noqa: E402
from citebound.server.settings import ServerSettings, check_bind, is_loopback  # noqa: E402

CLI = [sys.executable, "-m", "citebound"]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120, env=env)


@pytest.fixture(scope="module")
def kb_path(tmp_path_factory):
    return handbook_kb(tmp_path_factory.mktemp("auth"))


@pytest.fixture(scope="module")
def keys(kb_path):
    """Keys made with the real command; the key is the last line of its output."""
    made = {}
    for name, scope in (("asker", "ask,verify"), ("auditor", "audit"), ("admin", "ask,verify,ingest,audit")):
        res = run_cli("keys", "create", "--kb", str(kb_path), "--scope", scope, "--name", name)
        assert res.returncode == 0, res.stderr
        made[name] = res.stdout.strip().splitlines()[-1]
    return made


@pytest.fixture(scope="module")
def client(kb_path, keys):
    settings = ServerSettings(allowed_hosts=("testserver",), rate_limit=0, warm_up=False)
    with TestClient(create_app(kb_path, settings)) as client:
        yield client


def bearer(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"}


def test_keys_are_stored_hashed_listed_without_the_secret(kb_path, keys):
    with KnowledgeBase.open(kb_path) as kb:
        rows = kb.db.execute("SELECT key_hash FROM api_keys").fetchall()
        listed = KeyStore(kb.db).list()
    assert keys["asker"].startswith("cb_") and len(keys["asker"]) == 46
    assert hash_key(keys["asker"]) in {r[0] for r in rows}
    assert all(keys["asker"] not in str(r) for r in rows)
    out = run_cli("keys", "list", "--kb", str(kb_path))
    assert out.returncode == 0 and "asker" in out.stdout and keys["asker"] not in out.stdout
    assert {k.name: k.scopes for k in listed}["asker"] == ("ask", "verify")


def test_keys_create_refuses_an_unknown_scope_and_a_missing_kb(tmp_path, kb_path):
    bad = run_cli("keys", "create", "--kb", str(kb_path), "--scope", "ask,root")
    assert bad.returncode == 2 and "unknown scope" in bad.stderr
    nowhere = run_cli("keys", "create", "--kb", str(tmp_path / "typo"), "--scope", "ask")
    assert nowhere.returncode == 2 and not (tmp_path / "typo").exists()


def test_a_missing_or_wrong_key_is_401_and_a_key_without_the_scope_is_403(client, keys):
    question = {"question": "How much does express delivery cost?"}
    assert client.post("/v1/ask", json=question).status_code == 401
    wrong = client.post("/v1/ask", json=question, headers=bearer("cb_" + "A" * 43))
    assert wrong.status_code == 401 and wrong.headers["www-authenticate"] == "Bearer"
    assert client.post("/v1/ask", json=question, headers={"authorization": keys["asker"]}).status_code == 401
    ok = client.post("/v1/ask", json=question, headers=bearer(keys["asker"]))
    assert ok.status_code == 200
    rid = ok.json()["request_id"]
    assert client.post("/v1/ask", json=question, headers=bearer(keys["auditor"])).status_code == 403
    # audit records only with the audit scope
    assert client.get(f"/v1/requests/{rid}", headers=bearer(keys["asker"])).status_code == 403
    assert client.get(f"/v1/requests/{rid}", headers=bearer(keys["auditor"])).json()["id"] == rid
    upload = {"text": "Loyalty points expire after two years.", "name": "points.md"}
    assert client.post("/v1/documents", data=upload, headers=bearer(keys["asker"])).status_code == 403
    assert client.post("/v1/documents", data=upload, headers=bearer(keys["admin"])).status_code == 200
    # health and metrics need no key; documents need a valid one
    assert client.get("/healthz").status_code == 200 and client.get("/metrics").status_code == 200
    assert client.get("/v1/documents").status_code == 401
    assert client.get("/v1/documents", headers=bearer(keys["auditor"])).status_code == 200


def test_a_revoked_key_is_refused_from_the_next_request(client, kb_path):
    with KnowledgeBase.open(kb_path) as kb:
        info, secret = KeyStore(kb.db).create("verify", name="short-lived")
    body = {"answer": "Refunds take five days [1].", "sources": {"1": "Refunds take five days."}}
    assert client.post("/v1/verify", json=body, headers=bearer(secret)).status_code == 200
    res = run_cli("keys", "revoke", info.key_id, "--kb", str(kb_path))
    assert res.returncode == 0
    assert client.post("/v1/verify", json=body, headers=bearer(secret)).status_code == 401
    with KnowledgeBase.open(kb_path) as kb:
        with pytest.raises(InputError):
            KeyStore(kb.db).revoke("nosuchkey")


def test_rate_limit_is_per_key_with_retry_after(kb_path, keys):
    settings = ServerSettings(allowed_hosts=("testserver",), rate_limit=1.0, rate_burst=3, warm_up=False)
    body = {"answer": "Refunds take five days [1].", "sources": {"1": "Refunds take five days."}}
    with TestClient(create_app(kb_path, settings)) as client:
        codes = [client.post("/v1/verify", json=body, headers=bearer(keys["asker"])).status_code for _ in range(5)]
        assert codes[:3] == [200, 200, 200] and codes[3] == 429
        limited = client.post("/v1/verify", json=body, headers=bearer(keys["asker"]))
        assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
        # another key has its own bucket
        assert client.post("/v1/verify", json=body, headers=bearer(keys["admin"])).status_code == 200


def test_without_keys_only_loopback_is_allowed(tmp_path):
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    assert "loopback only" in check_bind("127.0.0.1", keys_exist=False)
    with pytest.raises(InputError):
        check_bind("0.0.0.0", keys_exist=False)
    assert check_bind("0.0.0.0", keys_exist=True) is None
    kb = handbook_kb(tmp_path)
    refused = run_cli("serve", "--kb", str(kb), "--host", "0.0.0.0", "--port", "8765")
    assert refused.returncode == 2 and "no API key" in refused.stderr


def test_an_open_loopback_server_needs_no_key(tmp_path):
    kb = handbook_kb(tmp_path)
    with TestClient(create_app(kb, ServerSettings(allowed_hosts=("testserver",), warm_up=False))) as client:
        body = {"answer": "Refunds take five days [1].", "sources": {"1": "Refunds take five days."}}
        assert client.post("/v1/verify", json=body).status_code == 200
