"""`ask()`: one question in, a verified answer (or an abstention) out, and one audit record written.

The flow is linear on purpose (no graph engine); `ask()` reads as these steps:

    retrieve  -> label sources S1..Sk (stable for the request); weak evidence -> abstain before generating
    prompt    -> sources as delimited, untrusted data; instruction-like text flagged
    generate  -> parse against the GroundedAnswer schema; on a schema error retry ONCE with the error;
                 still invalid -> abstain (both raw outputs logged)
    verify    -> every claim checked against the sources it cites (citebound.verify)
    policy    -> keep, drop or regenerate, and when to abstain: citebound.policy, pure functions
    resolve   -> each kept citation -> document id, version and character span in that version
    audit     -> the whole request in one SQLite transaction (citebound.audit), written even when a
                 backend call raises (then with status "error", and the verdicts obtained so far)

Nothing here prints; the CLI and the server render `AskResult`.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from citebound import config, policy
from citebound.audit import AuditLog, AuditRecord, FlagRecord, OutputRecord, SourceRecord, VerdictRecord
from citebound.audit.log import text_hash
from citebound.errors import BackendError, CiteboundError, InputError, SchemaError
from citebound.generation import Backend, Generation, GenerationRequest, get_backend
from citebound.generation.kb_threshold import SETTING_KEY as KB_THRESHOLD_KEY
from citebound.generation.prompt import InjectionFlag, Prompt, build_prompt
from citebound.kb import KnowledgeBase
from citebound.policy import Attempt, RemovedClaim
from citebound.retrieval import Retriever, Retrieves, ask_reranker
from citebound.text.injection import instruction_regions
from citebound.text.unicode import require_unicode
from citebound.types import Hit
from citebound.verify import verify_answer
from citebound.verify.cascade import Cascade
from citebound.verify.checker_cache import checker_identity, get_checker
from citebound.verify.report import ClaimVerdict, QuoteCheck
from citebound.verify.schema import GroundedAnswer, parse_reply

# -- result values -------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ResolvedCitation:
    """A citation shown to the user: numbered, and resolved to a span of one document version."""

    number: int
    source_id: str  # the request's label (S1…)
    doc_id: str
    version: int
    chunk_id: str
    start: int  # offsets into that document version's normalized text
    end: int
    quote: str


@dataclass(frozen=True, slots=True)
class KeptClaim:
    text: str
    citations: tuple[int, ...]  # numbers of ResolvedCitation
    label: str
    score: float
    stage: str


@dataclass(frozen=True, slots=True)
class SourceInfo:
    """A retrieved source as the request labelled it (S1…), with where it comes from."""

    source_id: str
    chunk_id: str
    doc_id: str
    version: int
    start: int
    end: int
    scores: dict[str, float]
    text: str


@dataclass(frozen=True, slots=True)
class AskResult:
    request_id: str
    question: str
    answer: str  # kept claims with numbered markers [1], or the abstention sentence
    abstained: bool
    abstain_reason: str | None
    claims: tuple[KeptClaim, ...]
    citations: tuple[ResolvedCitation, ...]
    removed: tuple[RemovedClaim, ...]
    sources: tuple[SourceInfo, ...]
    flags: tuple[InjectionFlag, ...]
    backend: dict[str, Any]
    kb_revision: str | None
    timings: dict[str, float]
    confidence: float | None = None  # the backend's own score (extractive), for risk-coverage
    retrieval_weak: bool = False  # the retriever's own abstention test said the evidence is weak
    backend_calls: int = 0  # calls made to the backend (initial, retry, regeneration)
    report: dict[str, Any] | None = None  # the verifier's report of the answer that was used
    verifier: dict[str, Any] | None = None  # checker, threshold and model version that checked it

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)


# -- the pipeline --------------------------------------------------------------------------------
@dataclass
class _Trace:
    """What accumulates during one request; becomes the audit record."""

    outputs: list[tuple[str, str, str | None]] = field(default_factory=list)  # (kind, raw, parse error)
    threshold: dict[str, Any] | None = None  # the backend's confidence threshold and its source, if it has one
    attempts: list[Attempt] = field(default_factory=list)  # every verified answer, in order
    timings: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.timings[stage] = round(self.timings.get(stage, 0.0) + time.perf_counter() - t0, 6)


def ask(
    question: str,
    kb: KnowledgeBase | str | Path,
    *,
    backend: str | Backend = "extractive",
    backend_options: Mapping[str, Any] | None = None,
    retriever: Retrieves | None = None,
    k: int = config.TOP_K,
    audit: AuditLog | bool | None = True,
    threshold: float | None = None,
    checker: str | None = None,
    abstain_on_weak_retrieval: bool = True,
    regenerate: bool = True,
) -> AskResult:
    """Answer `question` from the knowledge base `kb` (a `KnowledgeBase` or its folder).

    `backend`: a registered name (built here with `backend_options`) or a ready `Backend`, which a
    long-lived caller (the server, an evaluation) builds once and passes on every call so that its
    caches survive. `audit`: True writes to the log beside the KB, an `AuditLog` writes there,
    None/False skips it. `checker` names the verifier's checker (default: the backend's
    `default_checker`); `threshold` overrides that checker's own support threshold. The checker, its
    threshold and its model version are recorded with the request, so `replay` re-checks the same way.
    """
    question = _check_question(question)
    gen = get_backend(backend, **dict(backend_options or {}))
    cascade = get_checker(checker or gen.default_checker, threshold)
    request_id = uuid.uuid4().hex
    trace = _Trace()
    with _opened(kb) as kb:
        retriever = retriever if retriever is not None else Retriever(kb, reranker=ask_reranker())
        with trace.timed("retrieve"):
            hits = list(retriever.retrieve(question, k))
            retrieval_weak = bool(not hits or retriever.should_abstain(hits))
        sources = {h.source_id: h.chunk.text for h in hits}
        with trace.timed("prompt"):
            prompt = build_prompt(question, sources)
            # text that reads as an instruction is data: never quoted, never evidence for a kept claim
            flagged = {sid: instruction_regions(text) for sid, text in sources.items()}
        context = _Context(request_id, question, kb, hits, prompt, gen, cascade, trace, retrieval_weak, flagged,
                           _kb_calibration(kb, gen.name))

        reason = policy.before_generation(len(hits), retrieval_weak, abstain_on_weak_retrieval)
        if reason is not None:
            return _finish(context, audit, reason, used=None)
        try:
            first, confidence, backend_reason = _generate_valid(context, sources)
            used = None
            if first is not None:
                used = _verify(first, len(trace.outputs) - 1, sources, context)
                if policy.should_regenerate(used, enabled=regenerate, backend_can_regenerate=gen.can_regenerate):
                    second = _regenerate(context, sources, used.removed)
                    used, _why = policy.choose_attempt(used, second)
        except CiteboundError as exc:  # backend unreachable, model missing, …: logged as an error, then raised
            kind = "backend error" if isinstance(exc, BackendError) else type(exc).__name__
            _finish(context, audit, f"{kind}: {exc}", used=None, status="error")
            raise
        reason = policy.abstention_reason(used, backend_reason)
        return _finish(context, audit, reason, used=used, confidence=confidence)


@dataclass(frozen=True)
class _Context:
    """The fixed parts of one request, passed to each step."""

    request_id: str
    question: str
    kb: KnowledgeBase
    hits: list[Hit]
    prompt: Prompt
    backend: Backend
    checker: Cascade
    trace: _Trace
    retrieval_weak: bool
    flagged: dict[str, list[tuple[int, int]]]  # instruction-like regions per source id
    kb_calibration: dict[str, Any] | None = None  # the KB's stored answer threshold for this backend

    @property
    def source_scores(self) -> dict[str, dict[str, float]]:
        """The retriever's scores per source label, for the backend (GenerationRequest.source_scores)."""
        return {h.source_id: dict(h.scores) for h in self.hits}


def _finish(ctx: _Context, audit: AuditLog | bool | None, reason: str | None, *, used: Attempt | None,
            confidence: float | None = None, status: str | None = None) -> AskResult:
    """The one place an AskResult is built: an answer from `used`, or an abstention for `reason`.
    Then the audit record, with every attempt's verdicts (kept ones marked)."""
    removed = used.removed if used is not None and not used.backend_abstained else ()
    claims: tuple[KeptClaim, ...] = ()
    citations: tuple[ResolvedCitation, ...] = ()
    answer = ctx.prompt.abstention
    if reason is None and used is not None:
        with ctx.trace.timed("resolve"):
            claims, citations = _resolve(used.kept, {h.source_id: h for h in ctx.hits}, used.report.quotes)
        answer = " ".join(with_citation_numbers(c.text, c.citations) for c in claims)
    if status == "error":
        ctx.trace.timings["failed"] = 1.0
        answer = ""
    result = AskResult(
        request_id=ctx.request_id, question=ctx.question, answer=answer, abstained=reason is not None,
        abstain_reason=reason, claims=claims, citations=citations, removed=tuple(removed),
        sources=tuple(SourceInfo(x.source_id, x.chunk.id, x.chunk.doc_id, x.chunk.version, x.chunk.start,
                                 x.chunk.end, dict(x.scores), x.chunk.text) for x in ctx.hits),
        flags=ctx.prompt.flags, backend=_described(ctx), kb_revision=_revision(ctx.kb),
        timings=ctx.trace.timings, confidence=confidence, retrieval_weak=ctx.retrieval_weak,
        backend_calls=len(ctx.trace.outputs), report=used.report.to_dict() if used is not None else None,
        verifier=checker_identity(ctx.checker),
    )
    _write_audit(audit, ctx, result, used, status)
    return result


# -- stages --------------------------------------------------------------------------------------
@contextmanager
def _opened(kb: KnowledgeBase | str | Path) -> Iterator[KnowledgeBase]:
    """The KB itself, or the KB at a folder path, opened for this request and closed after it."""
    if isinstance(kb, (str, Path)):
        with KnowledgeBase.open(kb) as opened:
            yield opened
    else:
        yield kb


def _check_question(question: str) -> str:
    if not isinstance(question, str) or not question.strip():
        raise InputError("the question is empty")
    if len(question) > config.MAX_QUESTION_CHARS:
        raise InputError(f"the question is {len(question)} characters long; the limit is {config.MAX_QUESTION_CHARS}")
    if "\x00" in question:
        raise InputError("the question contains a NUL byte")
    return require_unicode(question, "the question").strip()


def _revision(kb: KnowledgeBase) -> str | None:
    revision = getattr(kb, "revision", None)
    return None if revision is None else str(revision)


def _call(gen: Backend, request: GenerationRequest, trace: _Trace) -> Generation:
    with trace.timed("generate"):
        generation = gen.generate(request)
    if not isinstance(generation, Generation):
        raise BackendError(f"backend {gen.name!r} returned {type(generation).__name__}, not a Generation")
    if "threshold" in generation.meta:
        trace.threshold = {"value": generation.meta["threshold"], "source": generation.meta.get("threshold_source")}
    return generation


def _kb_calibration(kb: KnowledgeBase, backend_name: str) -> dict[str, Any] | None:
    """The KB's own answer threshold for this backend (`citebound calibrate answers`), if it has one."""
    get_json = getattr(kb, "get_json", None)  # a KB-like object without settings has no calibration
    stored = get_json(KB_THRESHOLD_KEY) if get_json is not None else None
    record = stored.get(backend_name) if isinstance(stored, dict) else None
    return record if isinstance(record, dict) else None


def _described(ctx: _Context) -> dict[str, Any]:
    """The backend's name and options, and the confidence threshold it applied and where that came from
    (its option, the KB's calibration or its default), when it has one."""
    described = ctx.backend.describe()
    if ctx.trace.threshold is not None:
        described["threshold"] = dict(ctx.trace.threshold)
    return described


def _generate_valid(ctx: _Context, sources: dict[str, str]) -> tuple[GroundedAnswer | None, float | None, str | None]:
    """First call, and one retry with the schema error appended.

    Returns (GroundedAnswer or None, the backend's confidence, the backend's own abstention reason)."""
    request = GenerationRequest(ctx.question, sources, ctx.prompt.messages, kind="initial",
                                source_scores=ctx.source_scores, kb_calibration=ctx.kb_calibration)
    confidence = None
    for kind in ("initial", "retry"):
        generation = _call(ctx.backend, request, ctx.trace)
        confidence = generation.confidence if generation.confidence is not None else confidence
        why = generation.meta.get("abstain_reason")
        with ctx.trace.timed("parse"):
            try:
                parsed = parse_reply(generation.text)
            except SchemaError as exc:
                ctx.trace.outputs.append((kind, generation.text, str(exc)))
                feedback = (f"{exc}. Reply with one JSON object with the keys answer, citations (a list of "
                            '{"source_id", "quote"}) and abstained.')
                retry_prompt = build_prompt(ctx.question, sources, feedback=feedback, nonce=ctx.prompt.nonce)
                request = GenerationRequest(ctx.question, sources, retry_prompt.messages, feedback, kind="retry",
                                            source_scores=ctx.source_scores, kb_calibration=ctx.kb_calibration)
                continue
        ctx.trace.outputs.append((kind, generation.text, None))
        return parsed, confidence, why
    return None, confidence, None


def _verify(answer: GroundedAnswer, output_index: int, sources: dict[str, str], ctx: _Context) -> Attempt:
    with ctx.trace.timed("verify"):
        report = verify_answer(answer, sources, checker=ctx.checker)
    kept, removed = policy.split_claims(report)
    kept, withheld = policy.withhold_instruction_like(kept, ctx.flagged)
    removed = removed + withheld
    attempt = Attempt(output_index, report, kept, removed, backend_abstained=answer.abstained or report.abstained)
    ctx.trace.attempts.append(attempt)
    return attempt


def _regenerate(ctx: _Context, sources: dict[str, str], removed: Sequence[RemovedClaim]) -> Attempt | None:
    """Ask once more, naming the claims that were removed. None when the reply does not parse."""
    feedback = policy.regeneration_feedback(removed)
    prompt = build_prompt(ctx.question, sources, feedback=feedback)
    generation = _call(ctx.backend, GenerationRequest(ctx.question, sources, prompt.messages, feedback,
                                                      kind="regenerate", source_scores=ctx.source_scores,
                                                      kb_calibration=ctx.kb_calibration),
                       ctx.trace)
    with ctx.trace.timed("parse"):
        try:
            parsed = parse_reply(generation.text)
        except SchemaError as exc:
            ctx.trace.outputs.append(("regenerate", generation.text, str(exc)))
            return None
    ctx.trace.outputs.append(("regenerate", generation.text, None))
    return _verify(parsed, len(ctx.trace.outputs) - 1, sources, ctx)


def _resolve(kept: Sequence[ClaimVerdict], hits: Mapping[str, Hit], quotes: Sequence[QuoteCheck] = ()
             ) -> tuple[tuple[KeptClaim, ...], tuple[ResolvedCitation, ...]]:
    """Number the supporting citations (one per distinct source span) and map them to documents.

    The span is the verifier's evidence window; when the backend's own quote from that source was found
    inside that window, the tighter quote span is shown instead (it is part of the checked evidence).
    """
    quote_spans: dict[str, list[tuple[int, int]]] = {}
    for q in quotes:
        if q.span is not None:
            quote_spans.setdefault(q.source_id, []).append(tuple(q.span))
    numbers: dict[tuple[str, int, int], int] = {}
    citations: list[ResolvedCitation] = []
    claims = []
    for verdict in kept:
        own = []
        for check in verdict.checks:
            if not check.supports or check.source_id not in hits:
                continue  # an invalid or non-supporting id is never shown
            hit = hits[check.source_id]
            span = check.span or (verdict.span if verdict.source_id == check.source_id else None)
            lo, hi = span if span else (0, len(hit.chunk.text))
            inside = [(a, b) for a, b in quote_spans.get(check.source_id, ()) if lo <= a < b <= hi]
            if inside:  # the quote that shares most words with this claim (several claims may cite one source)
                words = set(re.findall(r"\w+", verdict.claim.lower()))
                lo, hi = max(inside, key=lambda ab: (len(words & set(re.findall(r"\w+", hit.chunk.text[ab[0]:ab[1]]
                                                                           .lower()))), -(ab[1] - ab[0])))
            key = (check.source_id, lo, hi)
            if key not in numbers:
                numbers[key] = len(citations) + 1
                c = hit.chunk
                citations.append(ResolvedCitation(numbers[key], check.source_id, c.doc_id, c.version, c.id,
                                                  c.start + lo, c.start + hi, c.text[lo:hi]))
            own.append(numbers[key])
        claims.append(KeptClaim(verdict.claim, tuple(dict.fromkeys(own)), verdict.label, verdict.score,
                                verdict.stage))
    return tuple(claims), tuple(citations)


_END = re.compile(r"([.!?…]+[\"'”’)\]]*)\s*$")


def with_citation_numbers(text: str, numbers: Sequence[int]) -> str:
    """A kept claim as shown: its citation numbers before its final punctuation ("… days [1].")."""
    marks = "".join(f"[{n}]" for n in numbers)
    m = _END.search(text)
    if m:
        return f"{text[: m.start()].rstrip()} {marks}{m.group(1)}"
    return f"{text} {marks}"


# -- audit ---------------------------------------------------------------------------------------
def _write_audit(audit: AuditLog | bool | None, ctx: _Context, result: AskResult, used: Attempt | None,
                 status: str | None) -> None:
    if audit is None or audit is False:  # not `not audit`: an empty AuditLog has len() 0
        return
    log = audit if isinstance(audit, AuditLog) else AuditLog.beside(ctx.kb.path)
    t0 = time.perf_counter()
    record_result = result.to_dict()
    record_result.pop("sources", None)  # stored in their own table, with hashes instead of the text
    shown = {id(v) for v in used.kept} if used is not None and not result.abstained else set()
    verdicts = [(a.output_index, v, id(v) in shown) for a in ctx.trace.attempts for v in a.report.claims]
    record = AuditRecord(
        id=result.request_id,
        question=result.question,
        backend=result.backend,
        status=status or ("abstained" if result.abstained else "answered"),
        abstained=result.abstained,
        result=record_result,
        timings=dict(result.timings),
        kb_path=_kb_location(ctx.kb),
        kb_revision=result.kb_revision,
        prompt=ctx.prompt.render(),
        abstain_reason=result.abstain_reason,
        answer=result.answer,
        sources=tuple(SourceRecord(s.source_id, s.chunk_id, s.doc_id, s.version, s.start, s.end,
                                   text_hash(s.text), s.scores) for s in result.sources),
        outputs=tuple(OutputRecord(i, kind, raw, err) for i, (kind, raw, err) in enumerate(ctx.trace.outputs)),
        verdicts=tuple(
            VerdictRecord(attempt=a, idx=i, claim=v.claim, cited=tuple(v.cited_ids), label=v.label,
                          reason=v.reason, kept=kept, source_id=v.source_id,
                          span_start=v.span[0] if v.span else None, span_end=v.span[1] if v.span else None,
                          score=float(v.score))
            for i, (a, v, kept) in enumerate(verdicts)
        ),
        flags=tuple(FlagRecord(f.source_id, f.pattern, f.start, f.end, f.excerpt) for f in result.flags),
    )
    try:
        log.write(record)
    finally:
        if log is not audit:
            log.close()
    result.timings["audit"] = round(time.perf_counter() - t0, 6)


__all__ = ["AskResult", "KeptClaim", "RemovedClaim", "ResolvedCitation", "SourceInfo", "ask", "with_citation_numbers"]


def _kb_location(kb: KnowledgeBase) -> str | None:
    """The KB as an audit record names it: its resolved folder, or its PostgreSQL URL without password."""
    if not getattr(kb, "path", None):
        return None
    return kb.location if getattr(kb, "shared", False) else str(Path(kb.path).resolve())
