"""The web page at `/` (one static file; it calls the /v1 API)."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

router = APIRouter(include_in_schema=False)

# The page runs no inline script from data: every text from documents or questions goes through
# textContent. This policy makes the browser refuse anything else, too.
CSP = ("default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; "
       "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


@lru_cache(maxsize=1)
def page() -> str:
    return (resources.files("citebound") / "server" / "static" / "index.html").read_text(encoding="utf-8")


@router.get("/", response_class=HTMLResponse)
async def index() -> HTMLResponse:
    return HTMLResponse(page(), headers={"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
                                         "Referrer-Policy": "no-referrer"})
