"""Plain values shared between stages. Frozen dataclasses: cheap to build, safe to pass around and log.

The verifier works on `Mapping[str, str]` sources (id -> text) so it can be used on any answer without
the rest of citebound; the retrieval stage returns `Hit`s, which the pipeline turns into that mapping.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of one version of one document, with its offsets into that version's normalized text."""

    id: str
    doc_id: str
    version: int
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Hit:
    """A retrieved chunk, with the id it has in one request (`S1`, `S2`, …) and the scores that ranked it."""

    source_id: str
    chunk: Chunk
    scores: dict[str, float] = field(default_factory=dict)
