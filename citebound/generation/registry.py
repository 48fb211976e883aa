"""Backends by name. A plain dict, so built-ins and later plug-ins (entry points) register the same way.

The classes are imported when looked up, not when this module is imported: the llama.cpp backend needs an
optional extra and the extractive one pulls in numpy and the embedding model.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from citebound.errors import InputError
from citebound.generation.base import Backend

# name -> "module:Class"; resolved lazily by `backend_class`.
BACKENDS: dict[str, str | type[Backend]] = {
    "extractive": "citebound.generation.backends.extractive:ExtractiveBackend",
    "openai": "citebound.generation.backends.openai_compat:OpenAICompatBackend",
    "llama-cpp": "citebound.generation.backends.llamacpp:LlamaCppBackend",
}


def register_backend(cls: type[Backend]) -> type[Backend]:
    """Register a backend class under `cls.name` (usable as a decorator). Replaces an existing name."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no `name`")
    BACKENDS[cls.name] = cls
    return cls


def backend_class(name: str) -> type[Backend]:
    entry = BACKENDS.get(name)
    if entry is None:
        raise InputError(f"unknown backend {name!r}; choose one of: {', '.join(sorted(BACKENDS))}")
    if isinstance(entry, str):
        module, _, attr = entry.partition(":")
        entry = getattr(import_module(module), attr)
        BACKENDS[name] = entry
    return entry


def get_backend(name: str | Backend, **options: Any) -> Backend:
    """A ready backend: `name` looked up in the registry, or an instance passed through unchanged."""
    if isinstance(name, Backend):
        if options:
            raise InputError("options can only be given together with a backend name")
        return name
    return backend_class(name)(**options)
