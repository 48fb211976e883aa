"""Request and response bodies of the HTTP API. The OpenAPI schema at /openapi.json is built from
these, and the schemathesis test checks every response against it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from citebound import config
from citebound.verify.checkers import DEFAULT_CHECKER

MAX_ANSWER_CHARS = 100_000
MAX_SOURCE_CHARS = 200_000
MAX_SOURCES = 100


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class ErrorDetail(_Open):
    type: str
    message: str


class ErrorBody(BaseModel):
    error: ErrorDetail


ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": why}
    for status, why in [(400, "bad request"), (401, "missing or wrong API key"), (403, "the key lacks the scope"),
                        (404, "not found"), (413, "body too large"), (422, "the body does not match the schema"),
                        (429, "rate limited (see Retry-After)")]
}


# -- ask -----------------------------------------------------------------------------------------
class AskBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=config.MAX_QUESTION_CHARS, examples=["How long do refunds take?"])
    k: int = Field(config.TOP_K, ge=1, le=50, strict=True)  # `true` is not a number of sources
    checker: Literal["deterministic", "full"] | None = None


class CitationOut(_Open):
    number: int
    source_id: str
    doc_id: str
    version: int
    chunk_id: str
    start: int
    end: int
    quote: str
    before: str
    span: str
    after: str
    starts_document: bool
    ends_document: bool


class ClaimOut(_Open):
    text: str
    citations: list[int]
    label: str
    score: float
    stage: str


class RemovedOut(_Open):
    text: str
    label: str
    reason: str


class SourceOut(_Open):
    source_id: str
    chunk_id: str
    doc_id: str
    version: int
    start: int
    end: int
    scores: dict[str, float]
    text: str


class FlagOut(_Open):
    source_id: str
    pattern: str
    start: int
    end: int
    excerpt: str


class AskOut(_Open):
    request_id: str
    question: str
    answer: str
    abstained: bool
    abstain_reason: str | None
    claims: list[ClaimOut]
    citations: list[CitationOut]
    removed: list[RemovedOut]
    sources: list[SourceOut]
    flags: list[FlagOut]
    timings: dict[str, float]


# -- verify --------------------------------------------------------------------------------------
class SourceIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=64)
    text: str = Field(max_length=MAX_SOURCE_CHARS)


class VerifyBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: str = Field(min_length=1, max_length=MAX_ANSWER_CHARS)
    sources: dict[str, str] | list[SourceIn] = Field(
        description="id -> text, or a list of {id, text}", json_schema_extra={"maxProperties": MAX_SOURCES})
    checker: Literal["deterministic", "full"] = DEFAULT_CHECKER
    threshold: float | None = Field(None, ge=0.0, le=1.0, strict=True)  # `false` is not a threshold


class VerdictOut(_Open):
    claim: str
    label: str
    reason: str
    score: float
    stage: str
    source_id: str | None
    span: list[int] | None


class SourceFlagOut(_Open):
    source_id: str
    rule: str
    start: int
    end: int
    excerpt: str


class VerifyOut(_Open):
    ok: bool
    abstained: bool
    checker: str
    groundedness: float
    citation_precision: float
    citation_recall: float
    claims: list[VerdictOut]
    flags: list[SourceFlagOut]


# -- documents -----------------------------------------------------------------------------------
class VersionOut(_Open):
    version: int
    content_hash: str
    ingested_at: float
    characters: int


class DocumentOut(_Open):
    doc_id: str
    current_version: int
    status: str
    versions: list[VersionOut]


class DocumentsOut(_Open):
    revision: int
    documents: list[DocumentOut]


class DocumentTextOut(_Open):
    doc_id: str
    version: int
    current: bool
    status: str
    text: str


class SkippedOut(_Open):
    name: str
    reason: str


class UpdatedOut(_Open):
    doc_id: str
    version: int


class IngestOut(_Open):
    added: list[str]
    updated: list[UpdatedOut]
    unchanged: list[str]
    skipped: list[SkippedOut]
    revision: int


class RemoveOut(_Open):
    doc_id: str
    status: str
    revision: int


# -- health --------------------------------------------------------------------------------------
class HealthOut(_Open):
    status: str


class ReadyOut(_Open):
    ready: bool
    kb_open: bool
    models_loaded: bool
    documents: int
    revision: int
    workers: int
    # retrievable chunk texts without a vector (null until counted, after warm-up); dense search ranks the
    # others meanwhile
    vectors_missing: int | None = None
    embedding: bool = False  # the server is embedding them now (--embed-missing background)


# -- OpenAI-compatible chat ----------------------------------------------------------------------
class ChatMessageIn(_Open):
    role: str = Field(max_length=32)
    content: str | list[dict[str, Any]] | None = None


class ChatBody(_Open):
    model: str = Field(min_length=1, max_length=200, examples=["citebound"],
                       description="`citebound`, the KB's folder name or the backend's name (GET /v1/models)")
    messages: list[ChatMessageIn] = Field(min_length=1, max_length=200)
    stream: bool = False
