"""`citebound eval answers FILE`: score answers you already have (RAGAS / DeepEval / your own columns)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from citebound.cli.verify import CHECKER_HELP, MODEL_HELP, THRESHOLD_HELP
from citebound.verify.checkers import DEFAULT_CHECKER

MAP_HELP = ("Your column names, as field=column pairs separated by commas; fields: id, question, answer, contexts, "
            "reference (e.g. --map answer=output,contexts=docs).")


def register(app: typer.Typer) -> None:
    from citebound.cli import eval_app

    eval_app.command("answers")(eval_answers)


def eval_answers(
    file: Annotated[Path, typer.Argument(help="JSON lines, JSON or CSV of logged answers: question, answer "
                                         "(with or without [1] markers), contexts (list of strings or id -> text).")],
    checker: Annotated[str, typer.Option(help=CHECKER_HELP)] = DEFAULT_CHECKER,
    threshold: Annotated[Optional[float], typer.Option(min=0.0, max=1.0, help=THRESHOLD_HELP)] = None,
    model: Annotated[Optional[str], typer.Option(help=MODEL_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object: n, faithfulness, abstained, rows, ...")]
    = False,
    html: Annotated[Optional[Path], typer.Option("--html", help="Also write an HTML report here (worst rows first).")]
    = None,
    mapping: Annotated[Optional[str], typer.Option("--map", help=MAP_HELP)] = None,
    abstention: Annotated[Optional[list[str]], typer.Option(
        "--abstention", help="A sentence your system answers with when it abstains (repeatable; citebound's own "
        "and \"I don't know.\" are known).")] = None,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="Show a progress bar on stderr.")] = True,
) -> None:
    """Score logged RAG answers against their contexts: per-claim verdicts, faithfulness, citation figures."""
    from citebound.evaluate.answers import (
        evaluate_answers_file,
        format_text,
        parse_mapping,
        write_html,
    )

    report = evaluate_answers_file(file, checker=checker, threshold=threshold, model=model,
                                   mapping=parse_mapping(mapping), progress=progress,
                                   abstentions=abstention or ())
    if html is not None:
        from citebound.cli import err_console

        out = write_html(report, html, meta={"command": "citebound eval answers", "file": str(file),
                                              "checker": report.checker, "threshold": report.threshold})
        err_console.print(f"report: {out}")
    if as_json:
        typer.echo(json.dumps(report.to_dict(), ensure_ascii=False))
        return
    for line in format_text(report):
        typer.echo(line)
