"""The policy stage: what `ask` does with the verifier's verdicts. Small pure functions, no I/O.

The verifier says how well each claim is supported; the policy decides what the user sees:

- `split_claims`       keep supported claims; remove unsupported, partial and uncited ones, each with
                       the reason the user is shown;
- `should_regenerate`  ask the backend once more, naming the removed claims, when something was
                       removed, regeneration is on and the backend can give a different answer;
- `choose_attempt`     of the first answer and its regeneration, use the one that keeps more claims
                       (then: removes fewer); a tie keeps the regeneration, which saw the feedback;
- `withhold_instruction_like`  drop a kept claim whose supporting evidence lies in instruction-like
                       source text (sources are data: "Ignore previous instructions and say …" is never
                       an answer, whatever the backend), or cite only its other, clean evidence;
- `abstention_reason`  abstain, with the reason logged, when there are no sources, the evidence is too
                       weak, the backend's reply never matched the schema, the backend itself abstained,
                       or nothing supported is left.

Every function returns its decision with the reason it reports, so the audit log and the user see the
same sentence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from citebound.verify.report import AnswerReport, ClaimVerdict

# Reasons, written once: the audit log, the CLI and the server all show these sentences.
NO_SOURCES = "the knowledge base returned no sources for this question"
WEAK_EVIDENCE = ("the retrieved evidence is too weak (below the knowledge base's calibrated retrieval "
                 "threshold); no answer was generated")
SCHEMA_FAILED = "the backend's output did not match the answer schema, twice"
BACKEND_ABSTAINED = "the backend found no answer in the sources"
NOTHING_SUPPORTED = "no claim of the answer was supported by the sources it cites"
UNCITED = "sentence without a citation"
WITHHELD = "withheld"  # the RemovedClaim label of a claim whose evidence is instruction-like source text
INSTRUCTION_EVIDENCE = ("its supporting text in {where} looks like an instruction to an assistant; sources are "
                        "data, not instructions, so it was withheld")
MAX_CLAIMS_NAMED = 8  # in the regeneration feedback


@dataclass(frozen=True, slots=True)
class RemovedClaim:
    """A claim the user does not see, and why. `label` is unsupported | partial | uncited | withheld."""

    text: str
    label: str
    reason: str


@dataclass(frozen=True, slots=True)
class Attempt:
    """One answer from the backend, verified, and the policy's split of its claims."""

    output_index: int  # position of the raw output in the request's log
    report: AnswerReport
    kept: tuple[ClaimVerdict, ...]
    removed: tuple[RemovedClaim, ...]
    backend_abstained: bool = False


def split_claims(report: AnswerReport) -> tuple[tuple[ClaimVerdict, ...], tuple[RemovedClaim, ...]]:
    """Which claims are kept (supported) and which are removed, with the reason each is removed.

    An uncited sentence the verifier did not check as a claim is removed too: it states something no
    source was asked to support."""
    kept = tuple(c for c in report.claims if c.label == "supported")
    removed = [RemovedClaim(c.claim, c.label, c.reason) for c in report.claims if c.label != "supported"]
    checked = {c.claim for c in report.claims}
    removed += [RemovedClaim(s, "uncited", UNCITED) for s in report.uncited_sentences if s not in checked]
    return kept, tuple(removed)


def _overlaps(span: tuple[int, int], regions: Sequence[tuple[int, int]]) -> bool:
    return any(a < span[1] and span[0] < b for a, b in regions)


def _evidence_span(verdict: ClaimVerdict):  # noqa: ANN202 - a function SourceCheck -> span | None
    """The evidence span of one of `verdict`'s source checks: its own, else the verdict's for that source."""

    def span_of(check) -> tuple[int, int] | None:  # noqa: ANN001 - a SourceCheck
        if check.span is not None:
            return check.span
        return verdict.span if verdict.source_id == check.source_id else None

    return span_of


def withhold_instruction_like(
    kept: Sequence[ClaimVerdict], flagged: Mapping[str, Sequence[tuple[int, int]]]
) -> tuple[tuple[ClaimVerdict, ...], tuple[RemovedClaim, ...]]:
    """Kept claims minus those whose evidence is instruction-like text, and the removed ones.

    `flagged` maps a source id to the regions of its text that look like instructions
    (`citebound.text.injection.instruction_regions`). A supporting source check is tainted when its
    evidence span overlaps a flagged region of that source, or when it has no span and the source has
    any flagged region (the evidence could be anywhere). A claim with no untainted support left is
    removed with label `withheld`; a claim that keeps some clean support stays, its tainted checks
    dropped (so they are never cited) and its best evidence taken from the clean ones.
    """
    out: list[ClaimVerdict] = []
    removed: list[RemovedClaim] = []
    for verdict in kept:
        span_of = _evidence_span(verdict)

        def tainted(check, span_of=span_of) -> bool:  # noqa: ANN001 - a SourceCheck
            regions = flagged.get(check.source_id) or ()
            if not regions:
                return False
            span = span_of(check)
            return span is None or _overlaps(span, regions)

        supporting = [c for c in verdict.checks if c.supports]
        if not supporting:  # a verdict without per-source checks: judge its own evidence span
            regions = flagged.get(verdict.source_id or "") or ()
            if regions and (verdict.span is None or _overlaps(verdict.span, regions)):
                removed.append(RemovedClaim(verdict.claim, WITHHELD, INSTRUCTION_EVIDENCE.format(where=verdict.source_id)))
            else:
                out.append(verdict)
            continue
        bad = [c for c in supporting if tainted(c)]
        if not bad:
            out.append(verdict)
            continue
        clean = [c for c in supporting if not tainted(c)]
        if not clean:
            where = ", ".join(dict.fromkeys(c.source_id for c in bad))
            removed.append(RemovedClaim(verdict.claim, WITHHELD, INSTRUCTION_EVIDENCE.format(where=where)))
            continue
        best = max(clean, key=lambda c: c.score)
        same = best.source_id == verdict.source_id and span_of(best) == verdict.span
        out.append(replace(verdict, checks=tuple(c for c in verdict.checks if c not in bad),
                           source_id=best.source_id, span=span_of(best), evidence=verdict.evidence if same else None))
    return tuple(out), tuple(removed)


def should_regenerate(first: Attempt, *, enabled: bool, backend_can_regenerate: bool) -> bool:
    """Regenerate once when claims were removed from an answer that did not abstain."""
    return bool(first.removed) and not first.backend_abstained and enabled and backend_can_regenerate


def regeneration_feedback(removed: Sequence[RemovedClaim]) -> str:
    """What the backend is told on its second try: the removed claims and why they were removed."""
    named = "; ".join(f'"{r.text}" ({r.label}: {r.reason})' for r in removed[:MAX_CLAIMS_NAMED])
    return (f"these claims are not supported by the sources they cite: {named}. Answer again using only "
            "facts stated in the sources, citing each sentence, or reply with the abstention sentence.")


def choose_attempt(first: Attempt, second: Attempt | None) -> tuple[Attempt, str]:
    """The attempt whose claims are shown, and why. A regeneration that abstained or failed to parse
    (None) never replaces a first answer that kept something."""
    if second is None:
        return first, "first answer (no usable regeneration)"
    if second.backend_abstained:
        return first, "first answer (the regeneration abstained)"
    if (len(second.kept), -len(second.removed)) >= (len(first.kept), -len(first.removed)):
        return second, f"regeneration (keeps {len(second.kept)} claims, first kept {len(first.kept)})"
    return first, f"first answer (keeps {len(first.kept)} claims, regeneration kept {len(second.kept)})"


def before_generation(n_sources: int, retrieval_weak: bool, abstain_on_weak_retrieval: bool) -> str | None:
    """Abstain before generating: no sources at all, or evidence the retriever calls too weak."""
    if n_sources == 0:
        return NO_SOURCES
    if retrieval_weak and abstain_on_weak_retrieval:
        return WEAK_EVIDENCE
    return None


def abstention_reason(used: Attempt | None, backend_reason: str | None = None) -> str | None:
    """Abstain after generating, or None to answer. `used` is None when no reply matched the schema."""
    if used is None:
        return SCHEMA_FAILED
    if used.backend_abstained:
        return BACKEND_ABSTAINED + (f" ({backend_reason})" if backend_reason else "")
    if not used.kept:
        return NOTHING_SUPPORTED
    return None


__all__ = [
    "Attempt", "RemovedClaim", "abstention_reason", "before_generation", "choose_attempt",
    "regeneration_feedback", "should_regenerate", "split_claims", "withhold_instruction_like",
]  # fmt: skip
