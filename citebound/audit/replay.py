"""Replay: re-run verification of a logged answer against the knowledge base as it is now.

For each source of the request the KB is asked what became of the cited chunk:

- `current`   the document is still at the logged version;
- `unchanged` the document has a newer version, but it still contains the very same chunk;
- `stale`     the document has a newer version that no longer contains the chunk — the citation
              points at text that is gone; the claim is re-checked against the new version's text;
- `removed`   the document was retired; `missing`: the KB does not know it (another KB?).

The logged model output that produced the answer is then verified again against those texts, with the
checker, threshold and model recorded with the request (so a change reported is a change of the KB,
never of the checker), and each claim's verdict then and now is reported, so a reviewer sees which
answers the KB changes invalidated. The report says which checker it used, and notes when the
recorded model file differs from the one installed now.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from citebound.audit.log import AuditRecord, text_hash
from citebound.errors import InputError, SchemaError
from citebound.verify import verify_answer
from citebound.verify.checker_cache import get_checker, model_version
from citebound.verify.schema import parse_reply


@dataclass(frozen=True, slots=True)
class SourceStatus:
    source_id: str  # the id the source had in the request (S1…)
    doc_id: str
    version_then: int
    version_now: int | None
    status: str  # current | unchanged | stale | removed | missing


@dataclass(frozen=True, slots=True)
class ClaimChange:
    claim: str
    label_then: str
    label_now: str
    reason_now: str

    @property
    def changed(self) -> bool:
        return self.label_then != self.label_now


@dataclass(frozen=True, slots=True)
class ReplayReport:
    request_id: str
    question: str
    kb_revision_then: str | None
    kb_revision_now: str
    sources: tuple[SourceStatus, ...]
    claims: tuple[ClaimChange, ...]
    note: str = ""
    checker: dict[str, Any] | None = None  # {checker, threshold, model} used for the re-check

    @property
    def changed(self) -> bool:
        return any(c.changed for c in self.claims) or any(s.status not in ("current", "unchanged")
                                                           for s in self.sources)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["changed"] = self.changed
        for claim, obj in zip(out["claims"], self.claims, strict=True):
            claim["changed"] = obj.changed
        return out


def source_status(kb: Any, src: Any) -> tuple[SourceStatus, str | None]:
    """What became of one logged source, and the text to verify against now (None: nothing)."""
    try:
        info = kb.document(src.doc_id)
    except InputError:
        return SourceStatus(src.label, src.doc_id, src.version, None, "missing"), None
    now = int(info.current_version)
    if info.status == "removed":
        return SourceStatus(src.label, src.doc_id, src.version, now, "removed"), None
    if now == src.version or src.chunk_id in kb.chunk_ids(src.doc_id, now):
        chunk = kb.get_chunk(src.chunk_id)
        status = "current" if now == src.version else "unchanged"
        if text_hash(chunk.text) != src.text_hash:  # content-addressed ids make this impossible; say so
            status = "stale"
        return SourceStatus(src.label, src.doc_id, src.version, now, status), chunk.text
    return SourceStatus(src.label, src.doc_id, src.version, now, "stale"), kb.document_text(src.doc_id, now)


def recorded_checker(record: AuditRecord) -> dict[str, Any]:
    """The checker that verified the logged answer: {checker, threshold, model}.

    Records since the policy stage carry `result["verifier"]`; older ones carry the checker name and
    threshold in the verifier's report; the oldest (before `full` existed) were all `deterministic`."""
    result = record.result or {}
    if result.get("verifier"):
        return dict(result["verifier"])
    report = result.get("report") or {}
    return {"checker": report.get("checker", "deterministic"), "threshold": report.get("threshold"),
            "model": None}


def replay(record: AuditRecord, kb: Any, *, threshold: float | None = None,
           checker: str | None = None) -> ReplayReport:
    """Re-verify the logged answer of `record` against `kb` as it is now.

    By default with the checker and threshold recorded with the request; `checker`/`threshold`
    override them (and the report says so)."""
    then = recorded_checker(record)
    name = checker or then["checker"]
    limit = threshold if threshold is not None else (then["threshold"] if name == then["checker"] else None)
    used = {"checker": name, "threshold": limit, "model": model_version(name),
            "as_recorded": checker is None and threshold is None}
    notes = []
    if then.get("model") and used["model"] != then["model"]:
        notes.append(f"the {name} checker's model changed since the request (then {then['model']}, now "
                     f"{used['model']}): a changed verdict may come from the model, not the KB")

    statuses, texts = [], {}
    for src in record.sources:
        status, text = source_status(kb, src)
        statuses.append(status)
        if text is not None:
            texts[src.label] = text
    common = dict(request_id=record.id, question=record.question, kb_revision_then=record.kb_revision,
                  kb_revision_now=str(kb.revision), sources=tuple(statuses), checker=used)
    kept_attempts = sorted({v.attempt for v in record.verdicts if v.kept})
    if not kept_attempts:
        return ReplayReport(**common, claims=(), note="the request kept no claim (it abstained): nothing to re-verify")
    attempt = kept_attempts[-1]
    output = next(o for o in record.outputs if o.attempt == attempt)
    try:
        answer = parse_reply(output.raw)
    except SchemaError as exc:  # cannot happen for an output whose claims were kept; be explicit anyway
        return ReplayReport(**common, claims=(), note=f"logged output no longer parses: {exc}")
    report = verify_answer(answer, texts, checker=get_checker(name, limit))
    labels_then = {v.claim: v.label for v in record.verdicts if v.attempt == attempt}
    claims = tuple(ClaimChange(c.claim, labels_then.get(c.claim, "?"), c.label, c.reason) for c in report.claims)
    return ReplayReport(**common, claims=claims, note="; ".join(notes))
