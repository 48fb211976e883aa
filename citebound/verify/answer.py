"""Verify a whole answer: split it into claims, check each against the sources it cites, and compute
the ALCE-style figures (definitions in docs/verifier.md).

- groundedness: share of claims that are cited and supported (by one of their cited sources).
- citation recall: share of claims whose cited sources, taken together, support them (ALCE).
- citation precision: share of citations that are not irrelevant (ALCE): a citation counts when its
  claim is supported jointly and the cited source either supports the claim alone or is needed (the
  other cited sources without it do not support the claim). Citations of unknown ids never count.

The report also lists, as `flags`, instruction-like text found in any source ("Ignore previous
instructions …", "Note to AI assistants: …"; citebound.text.injection), so a reviewer sees sources that
try to steer whoever reads them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from citebound.errors import InputError
from citebound.text.citations import ABSTENTION_SENTENCES
from citebound.text.injection import find_instructions
from citebound.verify.cascade import Cascade
from citebound.verify.checkers import DEFAULT_CHECKER, make_checker
from citebound.verify.citations import (
    DEFAULT_MIN_WORDS,
    Claim,
    parse_markers,
    resolve_id,
    split_claims,
)
from citebound.verify.report import AnswerReport, ClaimVerdict, QuoteCheck, SourceFlag
from citebound.verify.schema import GroundedAnswer
from citebound.verify.spans import find_span


def _joint_supports(checker: Cascade, claim: str, ids: list[str], sources: Mapping[str, str]) -> bool:
    if not ids:
        return False
    joined = "\n\n".join(sources[i] for i in ids)
    return checker.check_source(claim, "+".join(ids), joined).supports


def _citation_scores(checker: Cascade, verdict: ClaimVerdict, sources: Mapping[str, str]) -> tuple[int, int, bool]:
    """(citations, precise citations, recall) for one claim, after ALCE."""
    valid = [c.source_id for c in verdict.checks if c.stage != "ids"]
    n_citations = len(verdict.checks)
    alone = {c.source_id: c.supports for c in verdict.checks if c.stage != "ids"}
    recall = any(alone.values()) or _joint_supports(checker, verdict.claim, valid, sources)
    if not recall:
        return n_citations, 0, False
    precise = 0
    for sid in valid:
        if alone[sid]:
            precise += 1
        elif not _joint_supports(checker, verdict.claim, [v for v in valid if v != sid], sources):
            precise += 1  # needed: the others do not support the claim without it
    return n_citations, precise, True


def verify_answer(
    answer: str | GroundedAnswer,
    sources: Mapping[str, str],
    *,
    threshold: float | None = None,
    checker: str | Cascade = DEFAULT_CHECKER,
    abstentions: Iterable[str] = ABSTENTION_SENTENCES,
    min_words: int = DEFAULT_MIN_WORDS,
) -> AnswerReport:
    """Check every claim of `answer` against the sources it cites.

    `answer` is text with inline citations (`[1]`, `[S1, S2]`) or a GroundedAnswer; `sources` maps
    id -> text (ids like "1" or "S1"; either marker style finds either id style). Sentences without a
    citation longer than `min_words` words are reported as uncited claims; shorter ones are ignored.
    `checker` is a registered name (built at `threshold`; None: the checker's own default, calibrated
    on dev for `model` and `full`) or a ready Cascade (whose own threshold applies; `threshold` is then
    ignored).
    """
    cascade = checker if isinstance(checker, Cascade) else make_checker(checker, threshold=threshold)
    _check_sources(sources)
    structured = answer if isinstance(answer, GroundedAnswer) else None
    text = structured.answer if structured else answer
    if not isinstance(text, str) or not text.strip():
        raise InputError("the answer is empty")
    claims, abstained = split_claims(text, abstentions)
    notes: list[str] = []
    if structured and structured.citations and not parse_markers(text):
        # A structured answer without inline markers: every claim cites every listed source.
        ids = tuple(dict.fromkeys(c.source_id for c in structured.citations))
        claims = [Claim(c.text, c.start, c.end, ids) for c in claims]
        notes.append("no inline markers: each claim was checked against all cited sources")

    verdicts: list[ClaimVerdict] = []
    uncited: list[str] = []
    invalid: dict[str, None] = {}
    for claim in claims:
        if not claim.cited_ids:
            if claim.n_words > min_words:
                uncited.append(claim.text)
                verdicts.append(_with_span(cascade.check_claim(claim.text, (), sources), claim))
            continue
        verdict = cascade.check_claim(claim.text, claim.cited_ids, sources)
        for i in verdict.invalid_ids:
            invalid.setdefault(i, None)
        verdicts.append(_with_span(verdict, claim))

    quotes: list[QuoteCheck] = []
    for citation in structured.citations if structured else ():
        key = resolve_id(citation.source_id, sources)
        if key is None:
            invalid.setdefault(citation.source_id, None)
            quotes.append(QuoteCheck(citation.source_id, citation.quote, None))
        else:
            quotes.append(QuoteCheck(key, citation.quote, find_span(sources[key], citation.quote)))

    n_citations = precise = recalled = 0
    for v in verdicts:
        if v.label == "uncited":
            continue
        n, p, r = _citation_scores(cascade, v, sources)
        n_citations, precise, recalled = n_citations + n, precise + p, recalled + int(r)
    n_claims = len(verdicts)
    supported = sum(v.supported for v in verdicts)
    return AnswerReport(
        answer=text,
        claims=tuple(verdicts),
        invalid_citations=tuple(invalid),
        uncited_sentences=tuple(uncited),
        abstained=abstained or bool(structured and structured.abstained and not claims),
        groundedness=supported / n_claims if n_claims else 0.0,
        citation_precision=precise / n_citations if n_citations else 0.0,
        citation_recall=recalled / n_claims if n_claims else 0.0,
        n_citations=n_citations,
        quotes=tuple(quotes),
        checker=cascade.name,
        threshold=cascade.threshold,
        notes=tuple(notes),
        flags=source_flags(sources),
    )


def source_flags(sources: Mapping[str, str]) -> tuple[SourceFlag, ...]:
    """Instruction-like text in the sources, in source order then position."""
    return tuple(SourceFlag(str(sid), m.rule, m.start, m.end, m.excerpt)
                 for sid, text in sources.items() for m in find_instructions(text))


def check_claim(
    claim: str, cited_ids: Iterable[str], sources: Mapping[str, str], *, threshold: float | None = None,
    checker: str | Cascade = DEFAULT_CHECKER,
) -> ClaimVerdict:  # fmt: skip
    """The verdict for one claim citing `cited_ids` among `sources` (id -> text). A single id may be
    given as a string. `threshold` None: the checker's own default (as in `verify_answer`)."""
    cascade = checker if isinstance(checker, Cascade) else make_checker(checker, threshold=threshold)
    _check_sources(sources)
    ids = (cited_ids,) if isinstance(cited_ids, str) else tuple(cited_ids)
    return cascade.check_claim(claim, ids, sources)


def _check_sources(sources: Mapping[str, str]) -> None:
    if not isinstance(sources, Mapping):
        raise InputError(f"sources must map id -> text, got {type(sources).__name__}")
    for key, text in sources.items():
        if not isinstance(text, str):
            raise InputError(f"source {key!s} must be text, got {type(text).__name__}")


def _with_span(verdict: ClaimVerdict, claim: Claim) -> ClaimVerdict:
    return replace(verdict, claim_span=(claim.start, claim.end))


__all__ = ["check_claim", "source_flags", "verify_answer"]
