"""Shared fixtures. This file's folder is put on sys.path by pytest, so tests import `helpers.*`."""

from __future__ import annotations

import pytest


@pytest.fixture
def scripted_backend():
    """A fresh ScriptedBackend (an LLM stand-in for pipeline-logic tests); queue replies with enqueue()."""
    from helpers.scripted import ScriptedBackend

    return ScriptedBackend()


# Settings a developer's shell may carry that would make a test read or write outside its sandbox.
_USER_SETTINGS = (
    "CITEBOUND_KB", "CITEBOUND_GGUF", "CITEBOUND_JUDGE_CACHE", "CITEBOUND_JUDGE_BASE_URL",
    "CITEBOUND_JUDGE_MODEL", "CITEBOUND_JUDGE_API_KEY", "CITEBOUND_OPENAI_BASE_URL",
    "CITEBOUND_OPENAI_MODEL", "OPENAI_API_KEY",
)


@pytest.fixture(scope="session")
def _session_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("citebound-cache")


@pytest.fixture(autouse=True)
def _isolated_caches(_session_cache, monkeypatch):
    """Every cache (evaluation KBs, judge verdicts) goes to a fresh folder for the test run, never the
    user's ~/.cache: a test must prove behaviour from a clean state, not pass on what an earlier run left."""
    monkeypatch.setenv("CITEBOUND_CACHE", str(_session_cache))
    for name in _USER_SETTINGS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory):
    """One PostgreSQL (pgserver wheel) for the whole run, or a skip naming why it cannot start."""
    from helpers.postgres import start_server

    server = start_server(tmp_path_factory)
    if isinstance(server, str):
        pytest.skip(server)
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def kb_target(request, tmp_path):
    """Where a test's knowledge base lives: a folder (SQLite) or a fresh PostgreSQL database (its URL).
    Tests that take it run against both backends."""
    if request.param == "sqlite":
        return tmp_path / "kb"
    return request.getfixturevalue("postgres_server").new_database()
