"""Verdicts for one claim and the report for a whole answer. Data first; rendering lives in the CLI."""

from __future__ import annotations

from dataclasses import dataclass, field

from citebound import config
from citebound.verify.checks.base import Label, SourceCheck, Stage


@dataclass(frozen=True, slots=True)
class ClaimVerdict:
    """How well a claim is supported by the sources it cites.

    `label` is supported | partial | unsupported | uncited; `score` in [0, 1] (higher = better
    supported); `stage` names the check that decided; `source_id` and `span` point at the best
    evidence (offsets into that source's text) when there is any.
    """

    claim: str
    label: Label
    reason: str
    score: float
    stage: Stage
    source_id: str | None = None
    span: tuple[int, int] | None = None
    evidence: str | None = None
    cited_ids: tuple[str, ...] = ()
    invalid_ids: tuple[str, ...] = ()
    checks: tuple[SourceCheck, ...] = ()
    claim_span: tuple[int, int] | None = None  # offsets of the sentence in the answer, when known

    @property
    def supported(self) -> bool:
        return self.label == "supported"

    @property
    def supporting_ids(self) -> tuple[str, ...]:
        return tuple(c.source_id for c in self.checks if c.supports)

    def to_dict(self) -> dict:
        return {
            "claim": self.claim,
            "label": self.label,
            "reason": self.reason,
            "score": round(self.score, 4),
            "stage": self.stage,
            "source_id": self.source_id,
            "span": list(self.span) if self.span else None,
            "evidence": self.evidence,
            "cited_ids": list(self.cited_ids),
            "invalid_ids": list(self.invalid_ids),
            "claim_span": list(self.claim_span) if self.claim_span else None,
            "checks": [c.to_dict() for c in self.checks],
        }


@dataclass(frozen=True, slots=True)
class QuoteCheck:
    """A structured citation's quote, and where it was found in its source (None = not found)."""

    source_id: str
    quote: str
    span: tuple[int, int] | None

    def to_dict(self) -> dict:
        return {"source_id": self.source_id, "quote": self.quote, "span": list(self.span) if self.span else None}


@dataclass(frozen=True, slots=True)
class SourceFlag:
    """Instruction-like text found in a source (citebound.text.injection): which source, which rule,
    where (offsets into that source's text), and an excerpt. Reported, never used as evidence of ok."""

    source_id: str
    rule: str
    start: int
    end: int
    excerpt: str

    def to_dict(self) -> dict:
        return {"source_id": self.source_id, "rule": self.rule, "start": self.start, "end": self.end,
                "excerpt": self.excerpt}


@dataclass(frozen=True, slots=True)
class AnswerReport:
    """Everything the verifier found in one answer, and the ALCE-style figures (see docs/verifier.md)."""

    answer: str
    claims: tuple[ClaimVerdict, ...]
    invalid_citations: tuple[str, ...]
    uncited_sentences: tuple[str, ...]
    abstained: bool
    groundedness: float
    citation_precision: float
    citation_recall: float
    n_citations: int
    quotes: tuple[QuoteCheck, ...] = ()
    checker: str = "deterministic"
    threshold: float = config.SUPPORT_THRESHOLD
    notes: tuple[str, ...] = field(default=())
    flags: tuple[SourceFlag, ...] = ()  # instruction-like text in the sources, for a reviewer

    @property
    def ok(self) -> bool:
        """True for a valid abstention, or when every claim is supported, every citation names a
        source, no long sentence is uncited and every structured quote was found."""
        if self.abstained:
            return not self.invalid_citations
        return (
            bool(self.claims)
            and all(c.supported for c in self.claims)
            and not self.invalid_citations
            and not self.uncited_sentences
            and all(q.span is not None for q in self.quotes)
        )

    @property
    def counts(self) -> dict[str, int]:
        out = {"supported": 0, "partial": 0, "unsupported": 0, "uncited": 0}
        for c in self.claims:
            out[c.label] += 1
        return out

    def to_dict(self) -> dict:
        return {
            "ok": self.ok,
            "abstained": self.abstained,
            "checker": self.checker,
            "threshold": self.threshold,
            "groundedness": round(self.groundedness, 4),
            "citation_precision": round(self.citation_precision, 4),
            "citation_recall": round(self.citation_recall, 4),
            "n_claims": len(self.claims),
            "n_citations": self.n_citations,
            "counts": self.counts,
            "invalid_citations": list(self.invalid_citations),
            "uncited_sentences": list(self.uncited_sentences),
            "quotes": [q.to_dict() for q in self.quotes],
            "claims": [c.to_dict() for c in self.claims],
            "notes": list(self.notes),
            "flags": [f.to_dict() for f in self.flags],
        }
