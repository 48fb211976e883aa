"""`citebound serve`: the web app (FastAPI + uvicorn, optional extra `server`)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def serve(
        kb: Optional[Path] = typer.Option(None, "--kb", help="Knowledge-base folder (default: $CITEBOUND_KB)."),
        backend: str = typer.Option("extractive", "--backend", "-b", help="extractive | openai | llama-cpp"),
        option: List[str] = typer.Option([], "--option", "-o", help="Backend option key=value (repeatable)."),
        host: str = typer.Option("127.0.0.1", "--host"),
        port: int = typer.Option(8000, "--port"),
    ) -> None:
        """Serve a page that answers questions and highlights each citation's span in its source."""
        from citebound.cli.common import kb_path, parse_options
        from citebound.server.app import create_app

        try:
            import uvicorn
        except ImportError:
            from citebound.errors import ModelUnavailableError

            raise ModelUnavailableError("citebound serve needs uvicorn: pip install 'citebound[server]'") from None
        uvicorn.run(create_app(kb_path(kb), backend=backend, backend_options=parse_options(option)),
                    host=host, port=port)
