"""`citebound keys create|list|revoke`: the API keys of a knowledge base's HTTP service."""

from __future__ import annotations

import json

import typer


def register(app: typer.Typer) -> None:
    keys_app = typer.Typer(help="API keys for `citebound serve` (stored hashed in the KB).", no_args_is_help=True)
    app.add_typer(keys_app, name="keys")

    @keys_app.command("create")
    def create(
        kb: str = typer.Option(..., "--kb", help="Knowledge-base folder, or a postgresql:// URL."),
        scope: str = typer.Option(..., "--scope", help="Comma-separated: ask, verify, ingest, audit."),
        name: str = typer.Option("", "--name", help="A label to recognise the key by in `keys list`."),
    ) -> None:
        """Create a key; it is printed once, as the last line (only its hash is stored)."""
        from citebound.kb import KnowledgeBase
        from citebound.cli.common import kb_path
        from citebound.kb.keys import KeyStore

        with KnowledgeBase.open(kb_path(kb)) as store:
            info, secret = KeyStore(store.db).create(scope, name=name)
        typer.echo(f"created key {info.key_id} with scopes {','.join(info.scopes)}"
                   + (f" ({info.name})" if info.name else "") + "; it is shown only now:")
        typer.echo(secret)

    @keys_app.command("list")
    def list_keys(
        kb: str = typer.Option(..., "--kb", help="Knowledge-base folder, or a postgresql:// URL."),
        as_json: bool = typer.Option(False, "--json", help="One JSON object per key."),
    ) -> None:
        """List keys (ids, names, scopes, when created and revoked; never the keys themselves)."""
        from citebound.kb import KnowledgeBase
        from citebound.cli.common import kb_path
        from citebound.kb.keys import KeyStore

        with KnowledgeBase.open(kb_path(kb)) as store:
            keys = KeyStore(store.db).list()
        for key in keys:
            if as_json:
                typer.echo(json.dumps(key.to_dict(), sort_keys=True))
            else:
                state = f"revoked {key.revoked_at}" if key.revoked_at else "active"
                typer.echo(f"{key.key_id}  {','.join(key.scopes):<24} {state:<34} created {key.created_at}  {key.name}")
        if not keys and not as_json:
            typer.echo("no keys (the server runs on loopback only, without authentication)")

    @keys_app.command("revoke")
    def revoke(
        key_id: str = typer.Argument(..., help="The key's id, as `keys list` shows it."),
        kb: str = typer.Option(..., "--kb", help="Knowledge-base folder, or a postgresql:// URL."),
    ) -> None:
        """Revoke a key: the server refuses it from the next request on."""
        from citebound.kb import KnowledgeBase
        from citebound.cli.common import kb_path
        from citebound.kb.keys import KeyStore

        with KnowledgeBase.open(kb_path(kb)) as store:
            info = KeyStore(store.db).revoke(key_id)
        typer.echo(f"revoked {info.key_id}")
