"""Replay: re-run verification of a logged answer against the knowledge base as it is now.

For each source of the request the KB is asked what became of the cited chunk:

- `current`   the document is still at the logged version;
- `unchanged` the document has a newer version, but it still contains the very same chunk;
- `stale`     the document has a newer version that no longer contains the chunk — the citation
              points at text that is gone; the claim is re-checked against the new version's text;
- `removed`   the document was retired; `missing`: the KB does not know it (another KB?).

The logged model output that produced the answer is then verified again against those texts, and each
claim's verdict then and now is reported, so a reviewer sees which answers the KB changes invalidated.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from citebound.audit.log import AuditRecord, text_hash
from citebound.errors import InputError, SchemaError


@dataclass(frozen=True, slots=True)
class SourceStatus:
    label: str
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


def replay(record: AuditRecord, kb: Any, *, threshold: float | None = None,
           checker: str | None = None) -> ReplayReport:
    from citebound.pipeline import get_checker, parse_reply
    from citebound.verify import verify_answer

    statuses, texts = [], {}
    for src in record.sources:
        status, text = source_status(kb, src)
        statuses.append(status)
        if text is not None:
            texts[src.label] = text
    common = dict(request_id=record.id, question=record.question, kb_revision_then=record.kb_revision,
                  kb_revision_now=str(kb.revision), sources=tuple(statuses))
    used = sorted({v.attempt for v in record.verdicts if v.kept})
    if not used:
        return ReplayReport(**common, claims=(), note="the request kept no claim (it abstained): nothing to re-verify")
    attempt = used[-1]
    output = next(o for o in record.outputs if o.attempt == attempt)
    try:
        answer = parse_reply(output.raw)
    except SchemaError as exc:  # cannot happen for an output whose claims were kept; be explicit anyway
        return ReplayReport(**common, claims=(), note=f"logged output no longer parses: {exc}")
    report = verify_answer(answer, texts, checker=get_checker(checker, threshold))
    then = {v.claim: v.label for v in record.verdicts if v.attempt == attempt}
    claims = tuple(ClaimChange(c.claim, then.get(c.claim, "?"), c.label, c.reason) for c in report.claims)
    return ReplayReport(**common, claims=claims)
