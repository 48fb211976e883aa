"""The ids check: a cited id that is not among the sources never supports anything."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from citebound.verify.checks.base import SourceCheck
from citebound.verify.citations import resolve_id


def resolve_ids(cited: Iterable[str], sources: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """Split cited ids into (source keys that exist, ids that name no source), keeping order."""
    valid: list[str] = []
    invalid: list[str] = []
    for cid in cited:
        key = resolve_id(cid, sources)
        if key is None:
            invalid.append(cid)
        elif key not in valid:
            valid.append(key)
    return valid, invalid


def missing_source(cited_id: str) -> SourceCheck:
    """The verdict for a citation of a source that is not there."""
    return SourceCheck(cited_id, "unsupported", 0.0, "ids", f"{cited_id} is not in the retrieved context")
