"""Answer generation: the backend contract, the registry, the prompt and the built-in backends."""

from citebound.generation.base import Backend, Generation, GenerationRequest, Message
from citebound.generation.registry import BACKENDS, backend_class, get_backend, register_backend

__all__ = [
    "BACKENDS",
    "Backend",
    "Generation",
    "GenerationRequest",
    "Message",
    "backend_class",
    "get_backend",
    "register_backend",
]
