"""`citebound serve`: the HTTP service (FastAPI + uvicorn, optional extra `server`); see docs/service.md."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def serve(
        kb: Optional[str] = typer.Option(None, "--kb", help="Knowledge-base folder, or a postgresql:// URL "
                                         "(default: $CITEBOUND_KB)."),
        backend: str = typer.Option("extractive", "--backend", "-b", help="extractive | openai | llama-cpp"),
        option: List[str] = typer.Option([], "--option", "-o", help="Backend option key=value (repeatable)."),
        host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (not loopback: keys required)."),
        port: int = typer.Option(8000, "--port", min=0, max=65535, help="TCP port, 0-65535 (0: any free port)."),
        allowed_host: List[str] = typer.Option([], "--allowed-host",
                                               help="Host header name to answer besides localhost (repeatable)."),
        max_body: int = typer.Option(1_048_576, "--max-body", min=1024, help="Largest JSON body in bytes (413 above)."),
        max_upload: int = typer.Option(20 * 1_048_576, "--max-upload", min=1024, help="Largest upload in bytes."),
        rate_limit: float = typer.Option(50.0, "--rate-limit", min=0.0, help="Requests/second per key (0: off)."),
        rate_burst: int = typer.Option(100, "--rate-burst", min=1, help="Requests a key may send at once."),
        workers: int = typer.Option(0, "--workers", min=0, max=256, help="Worker threads (0: sized to the machine)."),
        docs: bool = typer.Option(False, "--docs/--no-docs", help="Serve the interactive API docs at /docs."),
        embed_missing: str = typer.Option("background", "--embed-missing",
                                          help="Chunks without a vector: background (embed them while answering) | "
                                          "off (leave them to `citebound embed`). Ready at once either way."),
    ) -> None:
        """Serve the HTTP API and the web page: verified answers, verification, documents, audit."""
        from citebound.cli import err_console
        from citebound.cli.common import kb_path, parse_options
        from citebound.kb import KnowledgeBase
        from citebound.kb.keys import KeyStore
        from citebound.server.app import create_app
        from citebound.server.settings import ServerSettings, check_bind

        try:
            import uvicorn
        except ImportError:
            from citebound.errors import ModelUnavailableError

            raise ModelUnavailableError("citebound serve needs uvicorn: pip install 'citebound[server]'") from None
        folder = kb_path(kb)
        with KnowledgeBase.open(folder) as store:
            has_keys = KeyStore(store.db).any_active()
        note = check_bind(host, has_keys)  # refuses a non-loopback host when the KB has no key
        if note:
            err_console.print(note)
        settings = ServerSettings(host=host, port=port, backend=backend, backend_options=parse_options(option),
                                  allowed_hosts=tuple(allowed_host), max_body_bytes=max_body,
                                  max_upload_bytes=max_upload, rate_limit=rate_limit, rate_burst=rate_burst,
                                  docs=docs, workers=workers, embed_missing=embed_missing)
        uvicorn.run(create_app(folder, settings), host=host, port=port, log_level="warning",
                    server_header=False, timeout_graceful_shutdown=5)
