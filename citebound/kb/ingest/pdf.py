"""PDF: the text layer, page by page, through pypdf. Scanned PDFs without a text layer come out empty
(and are then skipped as empty): there is no OCR.

A PDF is a program-like format that crafted files abuse (a huge declared xref table, reference loops,
streams that decompress to gigabytes). pypdf guards against these with its own limits and raises; any
error it raises, and any other exception from reading one file, makes that file an InputError, so the
document is skipped with the reason and the rest of the ingest goes on.
"""

from __future__ import annotations

import logging
from pathlib import Path

from citebound.errors import InputError


def read_pdf(path: Path) -> str:
    from pypdf import PdfReader
    from pypdf.errors import LimitReachedError, PyPdfError

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted:
            try:
                reader.decrypt("")
            except Exception as exc:  # noqa: BLE001 - pypdf raises several types here
                raise InputError(f"{path}: encrypted PDF") from exc
        pages = [page.extract_text() or "" for page in reader.pages]
    except InputError:
        raise
    except LimitReachedError as exc:
        raise InputError(f"{path}: PDF refused by pypdf's safety limits ({exc})") from exc
    except PyPdfError as exc:
        raise InputError(f"{path}: unreadable PDF ({exc})") from exc
    except RecursionError as exc:
        raise InputError(f"{path}: unreadable PDF (objects nested too deeply)") from exc
    except MemoryError as exc:
        raise InputError(f"{path}: PDF too large to read in memory") from exc
    except Exception as exc:  # noqa: BLE001 - pypdf on hostile input raises plain KeyError, TypeError, …
        raise InputError(f"{path}: unreadable PDF ({type(exc).__name__}: {exc})") from exc
    return "\n\n".join(p.strip() for p in pages if p.strip())
