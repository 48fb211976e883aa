"""`ask()`: one question in, a verified answer (or an abstention) out, and one audit record written.

The flow is linear on purpose (no graph engine):

    retrieve  -> label sources S1..Sk (stable for the request); weak evidence -> abstain before generating
    prompt    -> sources as delimited, untrusted data; instruction-like text flagged
    generate  -> parse against the GroundedAnswer schema; on a schema error retry ONCE with the error;
                 still invalid -> abstain (both raw outputs logged)
    verify    -> every claim checked against the sources it cites (citebound.verify)
    policy    -> keep supported claims; drop unsupported / partial / uncited ones, or regenerate once
                 naming them when the backend can; abstain when nothing supported is left;
                 invalid ids are never shown (a kept claim shows only the sources that support it)
    resolve   -> each kept citation -> document id, version and character span in that version
    audit     -> the whole request in one SQLite transaction (citebound.audit)

Nothing here prints; the CLI and the server render `AskResult`.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from citebound.errors import BackendError, CiteboundError, InputError, SchemaError
from citebound.generation import Backend, Generation, GenerationRequest, get_backend
from citebound.generation.prompt import InjectionFlag, Prompt, build_prompt
from citebound.types import Hit

MAX_QUESTION_CHARS = 4000
DEFAULT_K = 5


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
class RemovedClaim:
    text: str
    label: str  # unsupported | partial | uncited
    reason: str


@dataclass(frozen=True, slots=True)
class SourceInfo:
    label: str
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
    attempts: int = 0  # backend calls made
    report: dict[str, Any] | None = None  # the verifier's report of the answer that was used

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)


# -- the pipeline --------------------------------------------------------------------------------
@dataclass
class _Trace:
    """What accumulates during one request; becomes the audit record."""

    outputs: list[tuple[str, str, str | None]] = field(default_factory=list)  # (kind, raw, parse error)
    verdicts: list[tuple[int, Any, bool]] = field(default_factory=list)  # (attempt, ClaimVerdict, kept)
    timings: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def timed(self, stage: str):
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.timings[stage] = round(self.timings.get(stage, 0.0) + time.perf_counter() - t0, 6)


@dataclass
class _Attempt:
    index: int  # position in _Trace.outputs
    answer: Any  # GroundedAnswer
    report: Any  # AnswerReport
    kept: list[Any]
    removed: list[RemovedClaim]


def ask(
    question: str,
    kb: Any,
    *,
    backend: str | Backend = "extractive",
    backend_options: Mapping[str, Any] | None = None,
    retriever: Any = None,
    k: int = DEFAULT_K,
    audit: Any = True,
    threshold: float | None = None,
    checker: str | None = None,
    abstain_on_weak_retrieval: bool = True,
    regenerate: bool = True,
) -> AskResult:
    """Answer `question` from the knowledge base `kb` (a `KnowledgeBase` or its folder).

    `audit`: True writes to the log beside the KB, an `AuditLog` writes there, None/False skips it.
    `checker` names the verifier's checker (default: the backend's `default_checker` — `full`, with the
    entailment model, for backends that write free text; `deterministic` for the extractive backend,
    which copies sentences); `threshold` overrides that checker's own support threshold.
    """
    question = _check_question(question)
    trace = _Trace()
    request_id = uuid.uuid4().hex
    if isinstance(kb, (str, Path)):  # opened here, closed here
        from citebound.kb import KnowledgeBase

        with KnowledgeBase.open(kb) as opened:
            return ask(question, opened, backend=backend, backend_options=backend_options, retriever=retriever,
                       k=k, audit=audit, threshold=threshold, checker=checker,
                       abstain_on_weak_retrieval=abstain_on_weak_retrieval, regenerate=regenerate)
    gen = get_backend(backend, **dict(backend_options or {}))
    checker = checker or gen.default_checker
    retriever = retriever if retriever is not None else _default_retriever(kb)

    with trace.timed("retrieve"):
        hits = list(retriever.retrieve(question, k))
        retrieval_weak = bool(not hits or retriever.should_abstain(hits))
    sources = {h.label: h.chunk.text for h in hits}
    source_infos = tuple(SourceInfo(h.label, h.chunk.id, h.chunk.doc_id, h.chunk.version, h.chunk.start,
                                    h.chunk.end, dict(h.scores), h.chunk.text) for h in hits)
    with trace.timed("prompt"):
        prompt = build_prompt(question, sources)

    def finish(**fields: Any) -> AskResult:
        result = AskResult(
            request_id=request_id, question=question, sources=source_infos, flags=prompt.flags,
            backend=gen.describe(), kb_revision=_revision(kb), timings=trace.timings,
            retrieval_weak=retrieval_weak, attempts=len(trace.outputs), **fields,
        )
        _write_audit(audit, kb, result, prompt, trace, status=None)
        return result

    if not hits:
        return finish(**_abstention(prompt, "the knowledge base returned no sources for this question"))
    if retrieval_weak and abstain_on_weak_retrieval:
        return finish(**_abstention(prompt, "the retrieved evidence is too weak (below the knowledge base's "
                                            "calibrated retrieval threshold); no answer was generated"))

    try:
        first, confidence, why = _generate_valid(gen, question, sources, prompt, trace)
        if first is None:
            return finish(**_abstention(prompt, "the backend's output did not match the answer schema, twice",
                                        confidence=confidence))
        attempt = _verify(first, len(trace.outputs) - 1, sources, trace, threshold, checker)
        if attempt.answer.abstained or attempt.report.abstained:
            reason = "the backend found no answer in the sources" + (f" ({why})" if why else "")
            return finish(**_abstention(prompt, reason, confidence=confidence, report=attempt.report.to_dict()))
        if attempt.removed and regenerate and gen.can_regenerate:
            attempt = _regenerate(gen, question, sources, attempt, trace, threshold, checker)
    except CiteboundError as exc:  # backend unreachable, model missing, …: logged as an error, then raised
        trace.timings["failed"] = 1.0
        kind = "backend error" if isinstance(exc, BackendError) else type(exc).__name__
        failed = AskResult(
            request_id=request_id, question=question, answer="", abstained=True,
            abstain_reason=f"{kind}: {exc}", claims=(), citations=(), removed=(), sources=source_infos,
            flags=prompt.flags, backend=gen.describe(), kb_revision=_revision(kb), timings=trace.timings,
            retrieval_weak=retrieval_weak, attempts=len(trace.outputs),
        )
        _write_audit(audit, kb, failed, prompt, trace, status="error")
        raise

    kept_ids = {id(v) for v in attempt.kept}
    for verdict in attempt.report.claims:
        trace.verdicts.append((attempt.index, verdict, id(verdict) in kept_ids))
    if not attempt.kept:
        return finish(**_abstention(prompt, "no claim of the answer was supported by the sources it cites",
                                    confidence=confidence, removed=tuple(attempt.removed),
                                    report=attempt.report.to_dict()))
    with trace.timed("resolve"):
        claims, citations = _resolve(attempt.kept, {h.label: h for h in hits}, attempt.report.quotes)
    answer = " ".join(_with_numbers(c.text, c.citations) for c in claims)
    return finish(answer=answer, abstained=False, abstain_reason=None, claims=claims, citations=citations,
                  removed=tuple(attempt.removed), confidence=confidence, report=attempt.report.to_dict())


# -- stages --------------------------------------------------------------------------------------
def _check_question(question: str) -> str:
    if not isinstance(question, str) or not question.strip():
        raise InputError("the question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise InputError(f"the question is {len(question)} characters long; the limit is {MAX_QUESTION_CHARS}")
    if "\x00" in question:
        raise InputError("the question contains a NUL byte")
    return question.strip()


def _default_retriever(kb: Any) -> Any:
    from citebound.retrieval import Retriever

    return Retriever(kb)


def _revision(kb: Any) -> str | None:
    revision = getattr(kb, "revision", None)
    return None if revision is None else str(revision)


def _abstention(prompt: Prompt, reason: str, **extra: Any) -> dict[str, Any]:
    fields = {"answer": prompt.abstention, "abstained": True, "abstain_reason": reason, "claims": (),
              "citations": (), "removed": ()}
    fields.update(extra)
    return fields


def parse_reply(text: str) -> Any:
    """The reply as a GroundedAnswer. Lenient about a Markdown code fence or chatter around ONE JSON
    object (small models add them); strict about the object itself. Raises SchemaError."""
    from citebound.verify.schema import parse_grounded_answer

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
    fenced = re.search(r"```(?:json)?\s*(\{.*\})\s*```", text, re.DOTALL)
    if fenced:
        return fenced.group(1)
    lo, hi = text.find("{"), text.rfind("}")
    return text[lo : hi + 1] if 0 <= lo < hi else None


def _call(gen: Backend, request: GenerationRequest, trace: _Trace) -> Generation:
    with trace.timed("generate"):
        generation = gen.generate(request)
    if not isinstance(generation, Generation):
        raise BackendError(f"backend {gen.name!r} returned {type(generation).__name__}, not a Generation")
    return generation


def _generate_valid(gen: Backend, question: str, sources: dict[str, str], prompt: Prompt,
                    trace: _Trace) -> tuple[Any, float | None, str | None]:
    """First call, and one retry with the schema error appended.

    Returns (GroundedAnswer or None, the backend's confidence, the backend's own abstention reason)."""
    request = GenerationRequest(question, sources, prompt.messages, attempt="initial")
    confidence = None
    for kind in ("initial", "retry"):
        generation = _call(gen, request, trace)
        confidence = generation.confidence if generation.confidence is not None else confidence
        why = generation.meta.get("abstain_reason")
        with trace.timed("parse"):
            try:
                parsed = parse_reply(generation.text)
            except SchemaError as exc:
                trace.outputs.append((kind, generation.text, str(exc)))
                feedback = (f"{exc}. Reply with one JSON object with the keys answer, citations (a list of "
                            '{"source_id", "quote"}) and abstained.')
                retry_prompt = build_prompt(question, sources, feedback=feedback, nonce=prompt.nonce)
                request = GenerationRequest(question, sources, retry_prompt.messages, feedback, attempt="retry")
                continue
        trace.outputs.append((kind, generation.text, None))
        return parsed, confidence, why
    return None, confidence, None


_CHECKERS: dict[tuple[str, float], Any] = {}


def get_checker(name: str | None, threshold: float | None = None) -> Any:
    """The verifier's checker `name` (None: the verifier's current default, so the entailment model is
    used as soon as it is the default), built once per process: a model-backed checker loads once."""
    from citebound.verify.checkers import DEFAULT_CHECKER, make_checker

    key = (name or DEFAULT_CHECKER, threshold)
    if key not in _CHECKERS:
        # No threshold given: the checker's own (a model checker's is calibrated on dev and shipped with it).
        _CHECKERS[key] = make_checker(key[0]) if threshold is None else make_checker(key[0], threshold=threshold)
    return _CHECKERS[key]


def _verify(answer: Any, index: int, sources: dict[str, str], trace: _Trace, threshold: float | None,
            checker: str | None) -> _Attempt:
    from citebound.verify import verify_answer

    with trace.timed("verify"):
        report = verify_answer(answer, sources, checker=get_checker(checker, threshold))
    kept = [c for c in report.claims if c.label == "supported"]
    removed = [RemovedClaim(c.claim, c.label, c.reason) for c in report.claims if c.label != "supported"]
    claimed = {c.claim for c in report.claims}
    removed += [RemovedClaim(s, "uncited", "sentence without a citation")
                for s in report.uncited_sentences if s not in claimed]
    return _Attempt(index, answer, report, kept, removed)


def _regenerate(gen: Backend, question: str, sources: dict[str, str], first: _Attempt, trace: _Trace,
                threshold: float | None, checker: str | None) -> _Attempt:
    """Ask once more, naming the claims that were removed; keep whichever attempt supports more."""
    named = "; ".join(f'"{r.text}" ({r.label}: {r.reason})' for r in first.removed[:8])
    feedback = (f"these claims are not supported by the sources they cite: {named}. Answer again using only "
                "facts stated in the sources, citing each sentence, or reply with the abstention sentence.")
    prompt = build_prompt(question, sources, feedback=feedback)
    generation = _call(gen, GenerationRequest(question, sources, prompt.messages, feedback, "regenerate"), trace)
    with trace.timed("parse"):
        try:
            parsed = parse_reply(generation.text)
        except SchemaError as exc:
            trace.outputs.append(("regenerate", generation.text, str(exc)))
            return first
    trace.outputs.append(("regenerate", generation.text, None))
    if parsed.abstained:
        return first  # the model gave up on a second look: keep what the first attempt supported
    second = _verify(parsed, len(trace.outputs) - 1, sources, trace, threshold, checker)
    better, worse = (second, first) if (len(second.kept), -len(second.removed)) >= (
        len(first.kept), -len(first.removed)) else (first, second)
    for verdict in worse.report.claims:  # the attempt not used is logged too, nothing of it kept
        trace.verdicts.append((worse.index, verdict, False))
    return better


def _resolve(kept: Sequence[Any], hits: Mapping[str, Hit], quotes: Sequence[Any] = ()
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


def _with_numbers(text: str, numbers: Sequence[int]) -> str:
    marks = "".join(f"[{n}]" for n in numbers)
    m = _END.search(text)
    if m:
        return f"{text[: m.start()].rstrip()} {marks}{m.group(1)}"
    return f"{text} {marks}"


# -- audit ---------------------------------------------------------------------------------------
def _write_audit(audit: Any, kb: Any, result: AskResult, prompt: Prompt, trace: _Trace,
                 status: str | None) -> None:
    if audit is None or audit is False:  # not `not audit`: an empty AuditLog has len() 0
        return
    from citebound.audit import AuditLog, AuditRecord, FlagRecord, OutputRecord, SourceRecord, VerdictRecord
    from citebound.audit.log import text_hash

    log = audit if isinstance(audit, AuditLog) else AuditLog.beside(kb.path)
    t0 = time.perf_counter()
    record_result = result.to_dict()
    record_result.pop("sources", None)  # stored in their own table, with hashes instead of the text
    record = AuditRecord(
        id=result.request_id,
        question=result.question,
        backend=result.backend,
        status=status or ("abstained" if result.abstained else "answered"),
        abstained=result.abstained,
        result=record_result,
        timings=dict(result.timings),
        kb_path=str(Path(kb.path).resolve()) if getattr(kb, "path", None) else None,
        kb_revision=result.kb_revision,
        prompt=prompt.render(),
        abstain_reason=result.abstain_reason,
        answer=result.answer,
        sources=tuple(SourceRecord(s.label, s.chunk_id, s.doc_id, s.version, s.start, s.end, text_hash(s.text),
                                   s.scores) for s in result.sources),
        outputs=tuple(OutputRecord(i, kind, raw, err) for i, (kind, raw, err) in enumerate(trace.outputs)),
        verdicts=tuple(
            VerdictRecord(attempt=a, idx=i, claim=v.claim, cited=tuple(v.cited_ids), label=v.label,
                          reason=v.reason, kept=kept, source_id=v.source_id,
                          span_start=v.span[0] if v.span else None, span_end=v.span[1] if v.span else None,
                          score=float(v.score))
            for i, (a, v, kept) in enumerate(trace.verdicts)
        ),
        flags=tuple(FlagRecord(f.source_id, f.pattern, f.start, f.end, f.excerpt) for f in result.flags),
    )
    try:
        log.write(record)
    finally:
        if log is not audit:
            log.close()
    result.timings["audit"] = round(time.perf_counter() - t0, 6)


__all__ = ["AskResult", "KeptClaim", "RemovedClaim", "ResolvedCitation", "SourceInfo", "ask", "get_checker",
           "parse_reply"]
