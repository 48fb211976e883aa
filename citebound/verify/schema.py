"""The structured answer format: what a generator emits and what `citebound verify` accepts as JSON.

    {"answer": "Refunds take five business days [S1].",
     "citations": [{"source_id": "S1", "quote": "within five business days"}],
     "abstained": false}

A non-abstained answer must carry at least one citation; an abstained one may carry none.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from citebound.errors import SchemaError


class Citation(BaseModel):
    """One cited source and the exact words quoted from it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source_id: str = Field(pattern=r"^S\d+$", description="The source label, S1, S2, …")
    quote: str = Field(min_length=1, description="Words copied from the source that support the answer")

    @field_validator("quote")
    @classmethod
    def _quote_has_text(cls, quote: str) -> str:
        if not quote.strip():
            raise ValueError("quote must not be blank")
        return quote


class GroundedAnswer(BaseModel):
    """An answer with inline citations ([S1]) and the quotes that back them, or an abstention."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    answer: str = Field(min_length=1)
    citations: list[Citation] = Field(default_factory=list)
    abstained: bool = False

    @model_validator(mode="after")
    def _cited_unless_abstained(self) -> "GroundedAnswer":
        if not self.abstained and not self.citations:
            raise ValueError("an answer that does not abstain must cite at least one source")
        return self


def parse_grounded_answer(payload: str | bytes | dict) -> GroundedAnswer:
    """Validate JSON text or a dict as a GroundedAnswer; raise SchemaError with a one-line message."""
    try:
        if isinstance(payload, dict):
            return GroundedAnswer.model_validate(payload)
        return GroundedAnswer.model_validate_json(payload)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "answer"
        raise SchemaError(f"answer does not match the GroundedAnswer schema: {where}: {first['msg']}") from None


_FENCED = re.compile(r"```(?:json)?\s*(\{.*\})\s*```", re.DOTALL)


def parse_reply(text: str) -> GroundedAnswer:
    """A model's reply as a GroundedAnswer. Lenient about a Markdown code fence or chatter around ONE
    JSON object (small models add them); strict about the object itself. Raises SchemaError."""
    try:
        return parse_grounded_answer(text)
    except SchemaError as strict_error:
        inner = _json_object_in(text)
        if inner is None or inner == text.strip():
            raise
        try:
            return parse_grounded_answer(inner)
        except SchemaError:
            raise strict_error from None


def _json_object_in(text: str) -> str | None:
    fenced = _FENCED.search(text)
    if fenced:
        return fenced.group(1)
    lo, hi = text.find("{"), text.rfind("}")
    return text[lo : hi + 1] if 0 <= lo < hi else None
