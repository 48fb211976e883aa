"""The backend contract: what every answer generator implements.

A backend turns one `GenerationRequest` (the question, the labelled sources and the chat prompt built
from them) into raw text, which the pipeline then parses against the `GroundedAnswer` schema and checks
claim by claim. Backends never parse, verify or log: that is the pipeline's job, so every backend is held
to the same checks.

- Capabilities are class attributes (`can_regenerate`, `default_checker`), read by the
  pipeline to decide e.g. whether to ask for a regeneration naming the unsupported claims.
- `Options` is a pydantic model with `extra="forbid"`: a misspelt option is an error, not ignored.
- Construction is cheap; heavy things (models, HTTP clients) load on first `generate()`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError

from citebound.errors import InputError


@dataclass(frozen=True, slots=True)
class Message:
    role: str  # "system" | "user" | "assistant"
    content: str


@dataclass(frozen=True, slots=True)
class GenerationRequest:
    """Everything a backend may use. `sources` maps the request's labels (S1…Sk) to their text."""

    question: str
    sources: Mapping[str, str]
    messages: tuple[Message, ...] = ()
    # Set on a retry or regeneration: what was wrong with the previous reply, so the backend can fix it.
    feedback: str | None = None
    kind: str = "initial"  # "initial" | "retry" | "regenerate" (as in the audit log's outputs)
    # The retriever's scores of each source ("bm25", "dense", "fused"), when the sources were retrieved:
    # the extractive backend ranks sentences by their source's dense score instead of embedding each one.
    source_scores: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    # The knowledge base's own calibration for this backend (`citebound.generation.kb_threshold`): a
    # backend with a confidence threshold uses it when its own threshold option is unset.
    kb_calibration: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Generation:
    """A backend's raw reply, with what the pipeline and the audit log need to know about it."""

    text: str
    model: str = ""
    # Backends that can tell how sure they are (the extractive one) set this; used for risk-coverage.
    confidence: float | None = None
    meta: dict[str, Any] = field(default_factory=dict)


class Backend(ABC):
    """Base class of all generation backends. Subclasses set `name` and implement `generate()`."""

    name: ClassVar[str] = ""
    can_regenerate: ClassVar[bool] = False  # a second call with feedback can give a different answer
    # The verifier's checker for this backend's answers when the caller names none; None: the
    # verifier's default (`verify.checkers.DEFAULT_CHECKER`, the model-based cascade, which also checks
    # free text that restates its sources in other words). A backend may name another; none does.
    default_checker: ClassVar[str | None] = None

    class Options(BaseModel):
        model_config = ConfigDict(extra="forbid")

    def __init__(self, **options: Any) -> None:
        try:
            self.options = self.Options(**options)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'options'}: {e['msg']}" for e in exc.errors()
            )
            raise InputError(f"bad options for backend {self.name!r}: {problems}") from None

    @abstractmethod
    def generate(self, request: GenerationRequest) -> Generation:
        """Return the raw reply for `request`. Raise `BackendError` when the backend cannot answer."""

    def describe(self) -> dict[str, Any]:
        """Name and options (secrets masked) for the audit log."""
        opts = self.options.model_dump(mode="json")
        for key in list(opts):
            if "key" in key.lower() and opts[key]:
                opts[key] = "***"
        return {"name": self.name, "options": opts}
