"""PDF: the text layer, page by page, through pypdf. Scanned PDFs without a text layer come out empty
(and are then skipped as empty): there is no OCR."""

from __future__ import annotations

import logging
from pathlib import Path

from citebound.errors import InputError


def read_pdf(path: Path) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted:
            try:
                reader.decrypt("")
            except Exception as exc:  # noqa: BLE001 - pypdf raises several types here
                raise InputError(f"{path}: encrypted PDF") from exc
        pages = [page.extract_text() or "" for page in reader.pages]
    except PdfReadError as exc:
        raise InputError(f"{path}: unreadable PDF ({exc})") from exc
    return "\n\n".join(p.strip() for p in pages if p.strip())
