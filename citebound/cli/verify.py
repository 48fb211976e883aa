"""`citebound verify` (one answer against its sources) and `citebound verify-batch` (labelled pairs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from citebound.cli.common import RAY_HELP, WORKERS_HELP, executor
from citebound.verify.checkers import DEFAULT_CHECKER

CHECKER_HELP = ("full (ids -> numbers -> entailment model + lexical score) | model (entailment model alone) | "
                "deterministic (ids -> numbers -> lexical) | lexical (the plain baseline)")
THRESHOLD_HELP = "Support threshold on the score [default: calibrated on dev for full/model, 0.8 otherwise]."
MODEL_HELP = "Entailment model for full/model: an .onnx file or a local Hugging Face directory (citebound[hf])."
LABEL_STYLE = {"supported": "green", "partial": "yellow", "unsupported": "red", "uncited": "magenta"}


def register(app: typer.Typer) -> None:
    app.command("verify")(verify)
    app.command("verify-batch")(verify_batch)


def verify(
    answer: Annotated[str, typer.Option("--answer", help="Answer file (plain text with [1]/[S1] citations, "
                                        "or GroundedAnswer JSON); '-' reads standard input.")],
    sources: Annotated[str, typer.Option("--sources", help="Sources: a JSON object {id: text} or JSON lines "
                                         '{"id": ..., "text": ...}.')],
    as_json: Annotated[bool, typer.Option("--json", help="Print the full report as JSON.")] = False,
    checker: Annotated[str, typer.Option(help=CHECKER_HELP)] = DEFAULT_CHECKER,
    threshold: Annotated[Optional[float], typer.Option(min=0.0, max=1.0, help=THRESHOLD_HELP)] = None,
    model: Annotated[Optional[str], typer.Option(help=MODEL_HELP)] = None,
    strict: Annotated[bool, typer.Option(help="Exit 1 when the answer is not fully supported.")] = False,
) -> None:
    """Check every cited claim of an answer against the exact text of the sources it cites."""
    from citebound.verify import verify_answer
    from citebound.verify.inputs import load_inputs

    parsed, source_texts = load_inputs(answer, sources)
    cascade = _checker(checker, threshold, model)
    report = verify_answer(parsed, source_texts, checker=cascade)
    if as_json:
        typer.echo(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        _print_report(report, source_texts)
    if strict and not report.ok:
        raise typer.Exit(1)


def verify_batch(
    file: Annotated[Path, typer.Argument(help="JSON lines {id, claim, evidence, label?}.")],
    checker: Annotated[str, typer.Option(help=CHECKER_HELP)] = DEFAULT_CHECKER,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as one JSON object.")] = False,
    threshold: Annotated[Optional[float], typer.Option(min=0.0, max=1.0, help=THRESHOLD_HELP)] = None,
    model: Annotated[Optional[str], typer.Option(help=MODEL_HELP)] = None,
    out: Annotated[Optional[Path], typer.Option(help="Write per-row predictions {id, label, score, verdict} here.")]
    = None,
    ray: Annotated[Optional[str], typer.Option("--ray", help=RAY_HELP)] = None,
    workers: Annotated[Optional[int], typer.Option("--workers", min=1, help=WORKERS_HELP)] = None,
) -> None:
    """Check many claim/evidence pairs; with labels, report balanced accuracy and per-class figures."""
    from citebound.verify.batch import run_batch, write_predictions
    from citebound.verify.checkers import CheckerSpec

    spec = CheckerSpec(checker, threshold, model)
    with executor(ray, workers) as runner:
        result = run_batch(file, spec, executor=runner)
    if out is not None:
        write_predictions(result.predictions, out)
    if as_json:
        typer.echo(json.dumps(result.summary))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{file.name}: checker {checker}, threshold {result.summary['threshold']:g}", show_header=False)
    for key, value in result.summary.items():
        table.add_row(key, f"{value:.4f}" if isinstance(value, float) else str(value))
    Console().print(table)


def _checker(name: str, threshold: float | None, model: str | None):  # noqa: ANN202 - a Cascade
    """The named checker at `threshold`. Any threshold in [0, 1] works: the deterministic checkers label
    a score between their partial floor (0.5) and the threshold `partial`, so a threshold below that
    floor lowers the floor with it (everything at or above the threshold is supported, below it
    unsupported) instead of being refused: `Cascade` does that itself."""
    from citebound.verify.checkers import CheckerSpec

    return CheckerSpec(name, threshold, model).build()


def _print_report(report, sources: dict[str, str]) -> None:  # noqa: ANN001 - AnswerReport, imported lazily
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False)
    if report.abstained:
        console.print("[bold]abstained[/]: the answer is a configured abstention sentence (valid, uncited)")
    for i, v in enumerate(report.claims, 1):
        style = LABEL_STYLE[v.label]
        console.print(f"[bold]{i}.[/] [{style}]{v.label.upper():<11}[/] {escape(v.claim)}")
        console.print(f"   [dim]{v.stage}, score {v.score:.2f}:[/] {escape(v.reason)}")
        if v.span and v.source_id:
            start, end = v.span
            snippet = sources[v.source_id][start:end]
            snippet = snippet if len(snippet) <= 240 else snippet[:237] + "..."
            console.print(f"   [dim]evidence {v.source_id}[{start}:{end}]:[/] [italic]{escape(snippet)}[/]")
    for q in report.quotes:
        where = f"found at {q.span[0]}:{q.span[1]}" if q.span else "[red]NOT FOUND[/]"
        console.print(f"quote {q.source_id} {where}: [italic]{escape(q.quote[:120])}[/]")
    if report.invalid_citations:
        console.print(f"[red]invalid citations[/] (no such source): {', '.join(report.invalid_citations)}")
    for s in report.uncited_sentences:
        console.print(f"[magenta]uncited sentence[/]: {escape(s)}")
    for f in report.flags:
        console.print(f"[magenta]flagged[/] source {escape(f.source_id)} contains instruction-like text "
                      f"({f.rule}, characters {f.start}–{f.end}): [italic]{escape(f.excerpt)}[/]")
    verdict = "[bold green]OK[/]" if report.ok else "[bold red]NOT OK[/]"
    console.print(
        f"{verdict}  groundedness {report.groundedness:.2f} · citation precision {report.citation_precision:.2f}"
        f" · citation recall {report.citation_recall:.2f} · {len(report.claims)} claims, "
        f"{report.n_citations} citations (checker {report.checker}, threshold {report.threshold:g})"
    )
