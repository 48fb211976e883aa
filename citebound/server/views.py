"""Turning library results into response bodies: citations with the text around their span, no
filesystem paths, and the metrics each answer feeds."""

from __future__ import annotations

import re
from dataclasses import asdict
from typing import Any

CONTEXT_CHARS = 400  # characters of the document shown on each side of a cited span

_ABS_PATH = re.compile(r"^(?:/|[A-Za-z]:[\\/]|~/)")


def strip_paths(value: Any) -> Any:
    """`value` with every string that is an absolute filesystem path replaced by its last part."""
    if isinstance(value, dict):
        return {k: strip_paths(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strip_paths(v) for v in value]
    if isinstance(value, str) and _ABS_PATH.match(value) and len(value) < 4096:
        return value.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    return value


def citation_view(kb: Any, citation: Any) -> dict[str, Any]:
    """A citation with the surrounding text of the document version it points into."""
    text = kb.document_text(citation.doc_id, citation.version)
    lo = max(0, citation.start - CONTEXT_CHARS)
    hi = min(len(text), citation.end + CONTEXT_CHARS)
    return {**asdict(citation), "before": text[lo : citation.start], "span": text[citation.start : citation.end],
            "after": text[citation.end : hi], "starts_document": lo == 0, "ends_document": hi == len(text)}


def ask_view(kb: Any, result: Any) -> dict[str, Any]:
    out = result.to_dict()
    out.pop("report", None)  # the verifier's full report: in the audit log (GET /v1/requests/{id})
    out["backend"] = strip_paths(out.get("backend") or {})
    out["citations"] = [citation_view(kb, c) for c in result.citations]
    return out


def record_view(record: Any) -> dict[str, Any]:
    """An audit record for the API: without the KB's path on the server."""
    out = asdict(record)
    out.pop("kb_path", None)
    out["backend"] = strip_paths(out.get("backend") or {})
    if isinstance(out.get("result"), dict):
        out["result"] = {**out["result"], "backend": strip_paths(out["result"].get("backend") or {})}
    return out
