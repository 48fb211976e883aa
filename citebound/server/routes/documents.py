"""The KB's documents: upload (the same formats and checks as `citebound ingest`), list with versions,
one version's text (for highlighting spans), retire."""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, File, Form, Query, Request, UploadFile

from citebound.errors import CiteboundError
from citebound.server.auth import require
from citebound.server.errors import ApiError, public_message
from citebound.server.routes.ask import check_text
from citebound.server.schemas import ERRORS, DocumentsOut, DocumentTextOut, IngestOut, RemoveOut

router = APIRouter(tags=["documents"])

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ -]{0,150}$")
MAX_DOC_ID = 1000


def _safe_name(value: str, what: str) -> str:
    if not _NAME.match(value) or ".." in value:
        raise ApiError(400, "invalid_request", f"the {what} must be letters, digits, '.', '_', '-' or spaces "
                                               "(at most 151 characters, no path)")
    return value


def run_ingest(service: Any, name: str, data: bytes, folder: str | None) -> dict[str, Any]:
    from citebound.kb.ingest import RawDocument, Skipped, collect
    from citebound.kb.ingest.walk import SUPPORTED

    if Path(name).suffix.lower() not in SUPPORTED:
        raise ApiError(400, "invalid_request", f"unsupported file type; use one of {', '.join(sorted(SUPPORTED))}")
    tmp = Path(tempfile.mkdtemp(prefix="citebound-upload-"))
    try:
        target_dir = tmp / folder if folder else tmp
        target_dir.mkdir(parents=True, exist_ok=True)
        (target_dir / name).write_bytes(data)
        shown = f"{folder}/{name}" if folder else name

        def items():
            for item in collect([target_dir if folder else target_dir / name]):
                if isinstance(item, RawDocument):
                    yield replace(item, source=f"upload:{shown}")
                else:
                    yield Skipped(shown, public_message(item.reason))

        with service.kb_lock.write():
            try:
                report = service.kb.ingest_documents(items(), progress=False, embed=False)
                service.retriever.warm_up(ann="background")  # embed the new chunks now, not on the next question
            except CiteboundError as exc:
                raise ApiError(400, "invalid_request", public_message(str(exc))) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"added": list(report.added), "updated": [{"doc_id": d, "version": v} for d, v in report.updated],
            "unchanged": list(report.unchanged), "revision": report.revision,
            "skipped": [{"name": shown, "reason": public_message(s.reason)} for s in report.skipped]}


@router.post("/v1/documents", response_model=IngestOut, responses=ERRORS,
             summary="Add a document (a file, or text with a file name); a changed one gets a new version")
async def add_document(
    request: Request,
    file: UploadFile | None = File(None, description="A .txt .md .html .pdf file, or BEIR .jsonl"),
    text: str | None = Form(None, max_length=10_000_000, description="Document text (instead of a file)"),
    name: str | None = Form(None, max_length=151, description="File name for `text` (its suffix sets the format)"),
    folder: str | None = Form(None, max_length=151,
                              description="Put the file in this folder: its document id is `folder/name`"),
    _principal=Depends(require("ingest")),
) -> Any:
    service = request.app.state.service
    if (file is None) == (text is None):
        raise ApiError(400, "invalid_request", "send either a file or text (with a name)")
    if file is not None:
        name = name or Path(file.filename or "").name
        data = await file.read()
    else:
        if not name:
            raise ApiError(400, "invalid_request", "text needs a name, e.g. notes.md")
        data = check_text(text, "text").encode("utf-8")
    _safe_name(name, "name")
    if folder:
        _safe_name(folder, "folder")
    return await service.run(run_ingest, service, name, data, folder or None)


def _documents(service: Any, include_removed: bool) -> dict[str, Any]:
    with service.kb_lock.read():
        kb = service.kb
        versions: dict[str, list[dict[str, Any]]] = {}
        for doc_id, version, digest, at, chars in kb.version_list():
            versions.setdefault(doc_id, []).append({"version": version, "content_hash": digest,
                                                    "ingested_at": at, "characters": chars})
        docs = [{"doc_id": d.doc_id, "current_version": d.current_version, "status": d.status,
                 "versions": versions.get(d.doc_id, [])} for d in kb.documents(include_removed=include_removed)]
        return {"revision": kb.revision, "documents": docs}


@router.get("/v1/documents", response_model=DocumentsOut, responses=ERRORS,
            summary="The KB's documents, each with every version it has had")
async def list_documents(request: Request, include_removed: bool = Query(True),
                         _principal=Depends(require(None))) -> Any:
    service = request.app.state.service
    return await service.run(_documents, service, include_removed)


def _doc_id(doc_id: str) -> str:
    if len(doc_id) > MAX_DOC_ID:
        raise ApiError(404, "not_found", "no such document")
    check_text(doc_id, "document id")
    return doc_id


def _version_text(service: Any, doc_id: str, version: int) -> dict[str, Any]:
    with service.kb_lock.read():
        kb = service.kb
        try:
            info = kb.document(doc_id)
            text = kb.document_text(doc_id, version)
        except CiteboundError:
            raise ApiError(404, "not_found", "no such document version") from None
        return {"doc_id": doc_id, "version": version, "current": version == info.current_version,
                "status": info.status, "text": text}


@router.get("/v1/documents/{doc_id:path}/versions/{version}", response_model=DocumentTextOut, responses=ERRORS,
            summary="The text of one version of a document (citation spans are offsets into it)")
async def document_version(doc_id: str, version: int, request: Request, _principal=Depends(require(None))) -> Any:
    service = request.app.state.service
    if not 1 <= version <= 2**31:
        raise ApiError(404, "not_found", "no such document version")
    return await service.run(_version_text, service, _doc_id(doc_id), version)


def _remove(service: Any, doc_id: str) -> dict[str, Any]:
    with service.kb_lock.write():
        try:
            revision = service.kb.remove(doc_id)
        except CiteboundError:
            raise ApiError(404, "not_found", "no such document") from None
        return {"doc_id": doc_id, "status": "removed", "revision": revision}


@router.delete("/v1/documents/{doc_id:path}", response_model=RemoveOut, responses=ERRORS,
               summary="Retire a document: no longer retrieved; its versions still resolve for old citations")
async def remove_document(doc_id: str, request: Request, _principal=Depends(require("ingest"))) -> Any:
    service = request.app.state.service
    return await service.run(_remove, service, _doc_id(doc_id))
