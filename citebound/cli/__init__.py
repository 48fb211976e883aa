"""The `citebound` command. Thin: each command parses its arguments, makes one library call and prints.

Commands live in small modules beside this one; each has `register(app)` and imports its heavy
dependencies inside the command body so that `citebound --help` stays fast.
"""

from __future__ import annotations

import sys
from importlib import import_module

import click
import typer
from rich.console import Console

from citebound.errors import CiteboundError

app = typer.Typer(
    name="citebound",
    help="Answer questions from your own documents, with every citation checked against its source.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# Command groups shared by several modules (`citebound eval retrieval`, `citebound eval qa`, …).
eval_app = typer.Typer(help="Measure retrieval and answers on labelled data.", no_args_is_help=True)
calibrate_app = typer.Typer(help="Learn thresholds from labelled data.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")
app.add_typer(calibrate_app, name="calibrate")

# Modules that define commands, in the order they appear in --help.
COMMAND_MODULES = ["verify", "kb", "ask", "answers", "judge", "serve", "keys", "mcp", "report"]

err_console = Console(stderr=True, highlight=False, soft_wrap=True)  # one-line errors stay one line


def _register_commands() -> None:
    for name in COMMAND_MODULES:
        import_module(f"citebound.cli.{name}").register(app)


# typer >= 0.20 vendors click as `typer._click`; its exceptions are not click's, so catch both.
_ABORTS: tuple[type[BaseException], ...] = (click.exceptions.Abort, getattr(typer, "Abort", click.exceptions.Abort))
try:
    from typer._click.exceptions import ClickException as _TyperClickException

    _CLICK_ERRORS: tuple[type[BaseException], ...] = (click.ClickException, _TyperClickException)
except ImportError:  # older typer: plain click
    _CLICK_ERRORS = (click.ClickException,)


def main(argv: list[str] | None = None) -> None:
    _register_commands()
    try:
        result = app(args=argv, standalone_mode=False)
    except CiteboundError as exc:
        err_console.print(f"[bold red]error:[/] {exc}")
        sys.exit(2)
    except _ABORTS:
        err_console.print("aborted")
        sys.exit(130)
    except _CLICK_ERRORS as exc:  # usage errors: click's own one-line message
        exc.show()
        sys.exit(exc.exit_code)
    except (OSError, UnicodeDecodeError) as exc:  # a file we could not read: still one line, no traceback
        err_console.print(f"[bold red]error:[/] {exc}")
        sys.exit(2)
    sys.exit(result if isinstance(result, int) else 0)
