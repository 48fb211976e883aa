"""`citebound mcp`: serve the Model Context Protocol over stdio (optional extra `mcp`)."""

from __future__ import annotations

from typing import List, Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command("mcp")
    def mcp_command(
        kb: Optional[str] = typer.Option(None, "--kb", help="Knowledge base (folder or postgresql:// URL) for the "
                                         "ask and search tools (default: $CITEBOUND_KB; without one only verify works)."),
        backend: str = typer.Option("extractive", "--backend", "-b", help="extractive | openai | llama-cpp"),
        option: List[str] = typer.Option([], "--option", "-o", help="Backend option key=value (repeatable)."),
        mode: str = typer.Option("hybrid", "--mode", help="Retrieval: hybrid | bm25 | dense"),
    ) -> None:
        """Serve tools ask, search and verify over MCP (stdio), for assistants that speak MCP."""
        from citebound import config
        from citebound.cli.common import parse_options
        from citebound.mcp_server import serve

        kb = kb or config.env("CITEBOUND_KB") or None
        serve(kb, backend=backend, backend_options=parse_options(option), mode=mode)
