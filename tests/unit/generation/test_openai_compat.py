"""The openai backend against a real chat-completions server on 127.0.0.1 (stdlib http.server)."""

import json
import socket

import pytest
from helpers.chat_server import ChatServer

from citebound.errors import BackendError, InputError
from citebound.generation import GenerationRequest, Message, get_backend

REQUEST = GenerationRequest(
    question="How long do refunds take?",
    sources={"S1": "Refunds are processed within five business days."},
    messages=(Message("system", "rules"), Message("user", "sources + question")),
)
REPLY = json.dumps({"answer": "Refunds take five business days [S1].",
                    "citations": [{"source_id": "S1", "quote": "within five business days"}], "abstained": False})


def backend(server, **options):
    return get_backend("openai", base_url=server.base_url, model="m1", backoff=0.0, **options)


def test_chat_completion_with_json_mode_and_key():
    with ChatServer() as server:
        server.enqueue(REPLY, model="served-model")
        gen = backend(server, api_key="sk-test").generate(REQUEST)
    assert gen.text == REPLY and gen.model == "served-model"
    sent = server.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["model"] == "m1" and sent["response_format"] == {"type": "json_object"}
    assert [m["role"] for m in sent["messages"]] == ["system", "user"]
    assert server.headers[0]["authorization"] == "Bearer sk-test"


def test_configuration_from_environment(monkeypatch):
    with ChatServer() as server:
        monkeypatch.setenv("CITEBOUND_OPENAI_BASE_URL", server.base_url + "/")
        monkeypatch.setenv("CITEBOUND_OPENAI_MODEL", "env-model")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
        server.enqueue(REPLY)
        get_backend("openai").generate(REQUEST)
    assert server.requests[0]["model"] == "env-model"
    assert server.headers[0]["authorization"] == "Bearer sk-env"


def test_missing_model_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("CITEBOUND_OPENAI_MODEL", raising=False)
    with pytest.raises(BackendError, match="CITEBOUND_OPENAI_MODEL"):
        get_backend("openai", base_url="http://127.0.0.1:9/v1").generate(REQUEST)


def test_transient_errors_are_retried():
    with ChatServer() as server:
        server.enqueue(status=503, body='{"error": "overloaded"}')
        server.enqueue(status=429, body='{"error": "slow down"}')
        server.enqueue(REPLY)
        gen = backend(server, retries=2).generate(REQUEST)
    assert gen.text == REPLY and len(server.requests) == 3


def test_gives_up_after_the_retries():
    with ChatServer() as server:
        for _ in range(3):
            server.enqueue(status=500, body="boom")
        with pytest.raises(BackendError, match="after 2 attempt"):
            backend(server, retries=1).generate(REQUEST)
    assert len(server.requests) == 2


def test_server_without_json_mode_is_asked_again_without_it():
    with ChatServer() as server:
        server.enqueue(status=400, body='{"error": {"message": "response_format is not supported"}}')
        server.enqueue(REPLY)
        server.enqueue(REPLY)
        b = backend(server)
        assert b.generate(REQUEST).text == REPLY
        b.generate(REQUEST)
    assert "response_format" in server.requests[0]
    assert "response_format" not in server.requests[1] and "response_format" not in server.requests[2]


def test_auth_failure_is_not_retried():
    with ChatServer() as server:
        server.enqueue(status=401, body='{"error": "bad key"}')
        with pytest.raises(BackendError, match="OPENAI_API_KEY"):
            backend(server, retries=3).generate(REQUEST)
    assert len(server.requests) == 1


def test_unreachable_server_is_a_clear_error():
    with socket.socket() as s:  # a port that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    b = get_backend("openai", base_url=f"http://127.0.0.1:{port}/v1", model="m", retries=1, backoff=0.0)
    with pytest.raises(BackendError, match="cannot reach"):
        b.generate(REQUEST)


def test_timeout_is_reported():
    with ChatServer() as server:
        server.enqueue(REPLY, delay=1.0)
        with pytest.raises(BackendError, match="no answer"):
            backend(server, timeout=0.2, retries=0).generate(REQUEST)


def test_malformed_response_is_a_backend_error():
    with ChatServer() as server:
        server.enqueue(body='{"choices": []}')
        with pytest.raises(BackendError, match="choices"):
            backend(server).generate(REQUEST)


def test_unknown_option_is_rejected():
    with pytest.raises(InputError, match="temprature"):
        get_backend("openai", temprature=0.3)
