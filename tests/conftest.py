"""Shared fixtures. This file's folder is put on sys.path by pytest, so tests import `helpers.*`."""

from __future__ import annotations

import pytest


@pytest.fixture
def scripted_backend():
    """A fresh ScriptedBackend (an LLM stand-in for pipeline-logic tests); queue replies with enqueue()."""
    from helpers.scripted import ScriptedBackend

    return ScriptedBackend()
