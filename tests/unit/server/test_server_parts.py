"""The server's small parts on their own: rate limiter, Prometheus text, error scrubbing, Host parsing,
path stripping, the KB's read/write lock, and the key store on a real KB."""

import re
import threading
import time

import pytest

pytest.importorskip("fastapi")

from citebound.errors import InputError
from citebound.kb import KnowledgeBase
from citebound.kb.keys import KeyStore, parse_scopes
from citebound.server.errors import public_message
from citebound.server.limits import RateLimiter, _host_name, retry_after
from citebound.server.metrics import LATENCY_BUCKETS, Metrics
from citebound.server.settings import ServerSettings
from citebound.server.state import ReadWriteLock
from citebound.server.views import strip_paths


def test_rate_limiter_allows_the_burst_then_refills_at_the_rate():
    limiter = RateLimiter(rate=10.0, burst=3)
    assert [limiter.take("k") for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = limiter.take("k")
    assert 0.0 < wait <= 0.1 and retry_after(wait) == "1"
    assert limiter.take("other") == 0.0  # buckets are per key
    time.sleep(0.12)
    assert limiter.take("k") == 0.0
    assert RateLimiter(rate=0, burst=1).take("k") == 0.0  # 0 = off


def test_metrics_render_cumulative_histogram_buckets_and_escaped_labels():
    m = Metrics()
    m.observe_request("/v1/ask", "POST", 200, 0.003)
    m.observe_request("/v1/ask", "POST", 200, 0.07)
    m.observe_request("/v1/ask", "POST", 500, 99.0)
    m.observe_verdicts("/v1/ask", ["supported", "supported", "unsupported"])
    m.observe_answer("/v1/ask", abstained=True)
    m.observe_request('we"ird\n', "GET", 404, 0.001)
    text = m.render({"citebound_ready": 1})
    values = dict(line.rsplit(" ", 1) for line in text.splitlines() if line and not line.startswith("#"))
    bucket = 'citebound_request_duration_seconds_bucket{endpoint="/v1/ask",method="POST",le="%s"}'
    assert values[bucket % "0.005"] == "1" and values[bucket % "0.1"] == "2" and values[bucket % "+Inf"] == "3"
    assert values[bucket % repr(LATENCY_BUCKETS[-1])] == "2"  # 99 s is beyond the last finite bucket
    assert values['citebound_request_duration_seconds_count{endpoint="/v1/ask",method="POST"}'] == "3"
    assert float(values['citebound_request_duration_seconds_sum{endpoint="/v1/ask",method="POST"}']) == pytest.approx(99.073)
    assert values['citebound_verdicts_total{endpoint="/v1/ask",label="supported"}'] == "2"
    assert values['citebound_abstentions_total{endpoint="/v1/ask"}'] == "1"
    assert 'endpoint="we\\"ird\\n"' in text and values["citebound_ready"] == "1"
    for line in text.splitlines():  # every sample line is `name{labels} value`
        assert line.startswith("#") or re.match(r'^[a-z_]+(\{[^}]*\})? [0-9.e+-]+$', line), line


def test_public_message_removes_quoted_input_and_paths_and_caps_length():
    msg = public_message("unknown document id 'secret-doc' in /home/alice/kb/kb.sqlite3 (see \"x y\")")
    assert "secret-doc" not in msg and "/home/alice" not in msg and "x y" not in msg
    assert msg.startswith("unknown document id '…' in <path>")
    assert len(public_message("a " * 1000)) <= 300


def test_host_names_and_settings():
    assert _host_name("LOCALHOST:8000") == "localhost" and _host_name("[::1]:8000") == "::1"
    assert _host_name("127.0.0.1") == "127.0.0.1" and _host_name("evil.example") == "evil.example"
    names = ServerSettings(host="0.0.0.0", allowed_hosts=("kb.example.org",)).host_names()
    assert {"localhost", "127.0.0.1", "::1", "kb.example.org"} == set(names)
    assert "10.0.0.5" in ServerSettings(host="10.0.0.5").host_names()
    assert 2 <= ServerSettings().worker_count() <= 8 and ServerSettings(workers=3).worker_count() == 3


def test_strip_paths_keeps_the_last_part_only():
    assert strip_paths({"name": "llama-cpp", "model_path": "/srv/models/smol.gguf", "n": [1, "/a/b"]}) == \
        {"name": "llama-cpp", "model_path": "smol.gguf", "n": [1, "b"]}
    assert strip_paths("relative/path") == "relative/path"


def test_read_write_lock_lets_readers_share_and_a_writer_exclude():
    lock = ReadWriteLock()
    inside = []
    peak = [0]
    gate = threading.Barrier(3)

    def reader():
        with lock.read():
            inside.append(1)
            peak[0] = max(peak[0], len(inside))
            gate.wait(5)  # all three readers are inside at once, or this times out
            inside.pop()

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert peak[0] == 3
    order = []
    with lock.write():
        t = threading.Thread(target=lambda: (lock.read().__enter__(), order.append("reader")))
        t.start()
        time.sleep(0.1)
        order.append("writer done")
    t.join(5)
    assert order == ["writer done", "reader"]


def test_key_store_on_a_real_kb(tmp_path):
    with KnowledgeBase.open(tmp_path / "kb", create=True) as kb:
        store = KeyStore(kb.db)
        assert not store.any_active()
        info, secret = store.create("verify, ask", name="team")
        assert info.scopes == ("verify", "ask") and store.any_active()
        assert store.lookup(secret).key_id == info.key_id
        assert store.lookup(secret + "x") is None and store.lookup("x" * 10_000) is None
        assert store.lookup(secret.replace("cb_", "zz_")) is None
        store.revoke(info.key_id)
        assert store.lookup(secret) is None and not store.any_active()
        assert store.list()[0].revoked_at is not None
    with pytest.raises(InputError):
        parse_scopes("ask,admin")
    with pytest.raises(InputError):
        parse_scopes(" , ")
