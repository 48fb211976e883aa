"""Interfaces of the retrieval stage, as Protocols: anything with these methods can stand in."""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

from citebound import config
from citebound.types import Hit


@runtime_checkable
class Retrieves(Protocol):
    """What the answer pipeline needs from retrieval."""

    def retrieve(self, question: str, k: int = config.TOP_K) -> list[Hit]: ...

    def should_abstain(self, hits: Sequence[Hit]) -> bool: ...


@runtime_checkable
class Reranker(Protocol):
    """Reorders the fused candidates for a question (`citebound.retrieval.rerank.CrossEncoderReranker`:
    a cross-encoder). The retriever hands it its `depth` best fused candidates (all of them when it has
    no `depth` attribute; never fewer than k) and keeps the first k it returns. It may add its own score
    under `scores["rerank"]`."""

    def rerank(self, question: str, hits: Sequence[Hit]) -> list[Hit]: ...
