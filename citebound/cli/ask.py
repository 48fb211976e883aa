"""Answer commands: `ask`, `demo`, `trace`, `replay`, and `eval qa` / `calibrate extractive` / `calibrate answers`."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any, List, Optional

import typer
from rich.console import Console
from rich.markup import escape

from citebound import config
from citebound.cli.common import KB_HELP, RAY_HELP, WORKERS_HELP, executor, kb_path, parse_options

console = Console(highlight=False)


# -- rendering (printing only; the data comes from the library) ------------------------------------
def render_result(result: Any) -> None:
    console.print(f"[bold]Q:[/] {escape(result.question)}\n")
    if result.abstained:
        console.print(f"[yellow]{escape(result.answer or 'No answer.')}[/]")
        console.print(f"[dim]abstained: {escape(result.abstain_reason or '')}[/]")
    else:
        console.print(escape(result.answer))
        console.print()
        for c in result.citations:
            console.print(f"  [bold cyan]\\[{c.number}][/] {escape(c.doc_id)} [dim](version {c.version}, "
                          f"characters {c.start}–{c.end}, source {c.source_id})[/]")
            console.print(f"      “{escape(' '.join(c.quote.split()))}”")
    for r in result.removed:
        console.print(f"  [red]removed[/] “{escape(r.text)}” [dim]({r.label}: {escape(r.reason)})[/]")
    for f in result.flags:
        console.print(f"  [magenta]flagged[/] {f.source_id} contains instruction-like text ({f.pattern}): "
                      f"“{escape(f.excerpt)}”")
    total = sum(v for k, v in result.timings.items() if k != "failed")
    console.print(f"[dim]request {result.request_id[:12]} · {result.backend['name']}{_threshold_note(result.backend)} · "
                  f"{len(result.sources)} sources · {total:.2f} s[/]\n")


def _threshold_note(backend: dict) -> str:
    """Which confidence threshold the backend applied, if any, as ' (answer threshold 0.1561, the KB's own)'."""
    used = backend.get("threshold")
    if not isinstance(used, dict) or used.get("value") is None:
        return ""
    whose = {"kb": "the KB's own", "option": "given as an option", "default": "the model's default"}
    return f" (answer threshold {used['value']:.4g}, {whose.get(used.get('source'), used.get('source'))})"


def render_record(record: Any) -> None:
    console.print(f"[bold]request[/] {record.id}  {record.created_at}  [bold]{record.status}[/]")
    console.print(f"question: {escape(record.question)}")
    console.print(f"kb: {record.kb_path} (revision {record.kb_revision}) · backend: {record.backend.get('name')}"
                  + _threshold_note(record.backend))
    console.print("[bold]sources[/]")
    for s in record.sources:
        scores = ", ".join(f"{k} {v:.3f}" for k, v in sorted(s.scores.items()))
        console.print(f"  {s.label}  {escape(s.doc_id)} v{s.version} chunk {s.chunk_id} [{s.start}:{s.end}]  "
                      f"[dim]{scores} · sha256 {s.text_hash[:12]}[/]")
    for f in record.flags:
        console.print(f"  [magenta]flagged[/] {f.source_id} {f.pattern}: “{escape(f.excerpt)}”")
    console.print("[bold]model outputs[/]")
    for o in record.outputs:
        status = f"[red]schema error: {escape(o.parse_error)}[/]" if o.parse_error else "[green]valid[/]"
        console.print(f"  #{o.attempt} {o.kind}: {status}\n    {escape(o.raw[:600])}")
    console.print("[bold]claims[/]")
    for v in record.verdicts:
        mark = "[green]kept[/]" if v.kept else "[red]dropped[/]"
        console.print(f"  #{v.attempt}.{v.idx} {mark} {v.label} “{escape(v.claim)}” cites {','.join(v.cited) or '-'}"
                      f" [dim]({escape(v.reason)})[/]")
    console.print(f"[bold]answer[/]: {escape(record.answer or '')}")
    if record.abstain_reason:
        console.print(f"[dim]abstained: {escape(record.abstain_reason)}[/]")
    console.print("[dim]timings: " + ", ".join(f"{k} {v:.3f}s" for k, v in record.timings.items()) + "[/]")


def register(app: typer.Typer) -> None:
    from citebound.cli import calibrate_app, eval_app

    @app.command()
    def ask(
        question: str = typer.Argument(..., help="The question."),
        kb: Optional[str] = typer.Option(None, "--kb", help=KB_HELP),
        backend: str = typer.Option("extractive", "--backend", "-b", help="extractive | openai | llama-cpp"),
        option: List[str] = typer.Option([], "--option", "-o", help="Backend option key=value (repeatable), "
                                         "e.g. -o model=llama3 -o base_url=http://localhost:11434/v1"),
        k: int = typer.Option(config.TOP_K, "--k", help="Sources to retrieve."),
        mode: str = typer.Option("hybrid", "--mode", help="Retrieval: hybrid | bm25 | dense"),
        rerank: Optional[bool] = typer.Option(None, "--rerank/--no-rerank", help="Rerank the fused candidates with the "
                                              f"cross-encoder (default: $CITEBOUND_RERANK, else {'on' if config.RERANK else 'off'})."),
        rerank_depth: Optional[int] = typer.Option(None, "--rerank-depth", min=1, help="Candidates the reranker "
                                                   f"rescores (default: $CITEBOUND_RERANK_DEPTH, else {config.RERANK_DEPTH})."),
        rerank_weight: Optional[float] = typer.Option(None, "--rerank-weight", min=0.0, max=1.0, help="The reranker's "
                                                      "share against the fused score, from 0 to 1 (default: "
                                                      f"$CITEBOUND_RERANK_WEIGHT, else {config.RERANK_WEIGHT})."),
        checker: Optional[str] = typer.Option(None, "--checker", help="Verifier checker: full (the default: rules, then the entailment model) or deterministic (rules only, faster)."),
        as_json: bool = typer.Option(False, "--json", help="Print the full result as JSON."),
        no_audit: bool = typer.Option(False, "--no-audit", help="Do not write the request to the audit log."),
    ) -> None:
        """Answer from the knowledge base with verified citations, or abstain."""
        from citebound.kb import KnowledgeBase
        from citebound.pipeline import ask as run
        from citebound.retrieval import Retriever, ask_reranker

        reranker = ask_reranker(rerank, rerank_depth, rerank_weight)
        with KnowledgeBase.open(kb_path(kb)) as store:
            result = run(question, store, backend=backend, backend_options=parse_options(option),
                         retriever=Retriever(store, mode=mode, reranker=reranker), k=k, checker=checker,
                         audit=not no_audit)
        if as_json:
            typer.echo(result.to_json(indent=2))
        else:
            render_result(result)

    @app.command()
    def demo(
        backend: str = typer.Option("extractive", "--backend", "-b", help="Backend to answer with."),
        as_json: bool = typer.Option(False, "--json", help="Print the results as JSON lines."),
    ) -> None:
        """Build a temporary KB from the bundled sample handbook and ask it three questions."""
        from citebound.samples import DEMO_QUESTIONS, handbook_path, run_demo

        if not as_json:
            console.print(f"[dim]Building a temporary knowledge base from {handbook_path()} and asking "
                          f"{len(DEMO_QUESTIONS)} questions (the last has no answer in it)…[/]\n")
        for result in run_demo(backend=backend):
            if as_json:
                typer.echo(result.to_json())
            else:
                render_result(result)

    @app.command()
    def trace(
        request_id: Optional[str] = typer.Argument(None, help="Request id (or a unique prefix)."),
        kb: Optional[str] = typer.Option(None, "--kb", help=KB_HELP),
        last: Optional[int] = typer.Option(None, "--last", help="List the N most recent requests."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
        check: bool = typer.Option(False, "--verify-chain", help="Recompute the log's hash chain."),
    ) -> None:
        """Show one logged request in full, or list the latest ones."""
        from citebound.audit import AuditLog
        from citebound.audit.log import AUDIT_FILENAME
        from citebound.errors import InputError, KnowledgeBaseError

        folder = kb_path(kb)
        if isinstance(folder, str):  # a KB in PostgreSQL: its log is in the same database
            path: Path | str = folder
        else:
            if not folder.is_dir():  # checked before opening anything: a typo must not create a KB or a log
                raise KnowledgeBaseError(f"no knowledge base at {folder}")
            path = folder / AUDIT_FILENAME
            if not path.is_file():
                raise InputError(f"no audit log at {path} (nothing has been asked of this knowledge base yet)")
        with AuditLog(path) as log:
            if check:
                problems = log.verify()
                typer.echo("\n".join(problems) if problems else f"audit log intact ({len(log)} records)")
                raise typer.Exit(1 if problems else 0)
            if request_id is None:
                records = log.last(last or 10)
                if as_json:
                    typer.echo(json.dumps([asdict(r) for r in records], ensure_ascii=False, indent=2))
                    return
                for r in records:  # plain lines, never wrapped: easy to cut/grep
                    typer.echo(f"{r.id[:12]}  {r.created_at}  {r.status:<9}  {r.question[:70]}")
                return
            record = log.get(request_id)
        if as_json:
            typer.echo(json.dumps(asdict(record), ensure_ascii=False, indent=2))
        else:
            render_record(record)

    @app.command()
    def replay(
        request_id: str = typer.Argument(..., help="Request id (or a unique prefix)."),
        kb: Optional[str] = typer.Option(None, "--kb", help=KB_HELP),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ) -> None:
        """Re-verify a logged answer against the KB as it is now; report stale citations and changes."""
        from citebound.audit import AuditLog
        from citebound.audit.replay import replay as run
        from citebound.kb import KnowledgeBase

        folder = kb_path(kb)
        with KnowledgeBase.open(folder) as store, AuditLog.beside(folder) as log:
            report = run(log.get(request_id), store)
        if as_json:
            typer.echo(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
            return
        console.print(f"request {report.request_id[:12]}: KB revision {report.kb_revision_then} then, "
                      f"{report.kb_revision_now} now")
        used = report.checker or {}
        console.print(f"  re-checked with checker {used.get('checker')} at threshold {used.get('threshold')}"
                      + (" (as recorded with the request)" if used.get("as_recorded") else " (overridden)"))
        for s in report.sources:
            colour = {"current": "green", "unchanged": "green"}.get(s.status, "red")
            console.print(f"  {s.source_id} {escape(s.doc_id)} v{s.version_then} -> "
                          f"{'v' + str(s.version_now) if s.version_now else '-'}: [{colour}]{s.status}[/]")
        for c in report.claims:
            arrow = f"[red]{c.label_then} -> {c.label_now}[/]" if c.changed else f"[green]{c.label_now}[/]"
            console.print(f"  {arrow} “{escape(c.claim)}” [dim]({escape(c.reason_now)})[/]")
        if report.note:
            console.print(f"[dim]{report.note}[/]")
        console.print("[bold red]changed[/]" if report.changed else "[bold green]unchanged[/]")

    @eval_app.command("qa")
    def eval_qa(
        data: Path = typer.Option(..., "--data", help="A qa split folder: corpus.jsonl + questions.jsonl."),
        backend: str = typer.Option("extractive", "--backend", "-b", help="Backend to answer with."),
        option: List[str] = typer.Option([], "--option", "-o", help="Backend option key=value (repeatable)."),
        limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N questions."),
        k: int = typer.Option(config.TOP_K, "--k", help="Sources per question."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
        html: Optional[Path] = typer.Option(None, "--html", help="Also write an HTML report with plots."),
        out: Optional[Path] = typer.Option(None, "--out", help="Write per-question rows (JSON lines) here."),
        checker: Optional[str] = typer.Option(None, "--checker", help="Verifier checker: full (the default: rules, then the entailment model) or deterministic (rules only, faster)."),
        ray: Optional[str] = typer.Option(None, "--ray", help=RAY_HELP),
        workers: Optional[int] = typer.Option(None, "--workers", min=1, help=WORKERS_HELP),
        calibrate_on: Optional[Path] = typer.Option(None, "--calibrate-on", help="A labelled dev split of the same collection: choose the extractive threshold there as `calibrate answers` does, then apply it here."),
        objective: Optional[str] = typer.Option(None, "--objective", help="With --calibrate-on: abstention_precision (default) or balanced_accuracy."),
        target: Optional[float] = typer.Option(None, "--target", help="With --calibrate-on and abstention_precision: the precision to reach (default 0.8)."),
    ) -> None:
        """Grounded QA with abstention: answer recall, citations, groundedness, abstention vs a baseline."""
        from citebound.evaluate.qa_eval import evaluate_qa
        from citebound.evaluate.qa_report import format_text, write_html

        with executor(ray, workers) as runner:
            report = evaluate_qa(data, backend=backend, backend_options=parse_options(option), limit=limit, k=k,
                                 checker=checker, rows_out=out, executor=runner, calibrate_on=calibrate_on,
                                 objective=objective, target=target).report
        if html is not None:
            write_html(report, html)
        typer.echo(report.to_json() if as_json else format_text(report))

    @calibrate_app.command("answers")
    def calibrate_answers(
        kb: Optional[str] = typer.Option(None, "--kb", help=KB_HELP),
        questions: Optional[Path] = typer.Option(None, "--questions", help="Labelled questions about this KB (JSON lines: question, answerable, optional answers)."),
        objective: str = typer.Option("abstention_precision", "--objective", help="abstention_precision: abstain on the most unanswerable questions while at least --target of the abstentions are unanswerable; balanced_accuracy."),
        target: float = typer.Option(0.8, "--target", help="The abstention precision to reach (objective abstention_precision)."),
        k: int = typer.Option(config.TOP_K, "--k", help="Sources per question (as `ask` is run)."),
        option: List[str] = typer.Option([], "--option", "-o", help="Extractive backend option key=value (repeatable), as `ask` is run."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Choose and print the threshold; store nothing."),
        clear: bool = typer.Option(False, "--clear", help="Remove the KB's threshold (ask then uses the model's default)."),
        out: Optional[Path] = typer.Option(None, "--out", help="Write per-question rows (JSON lines) here."),
    ) -> None:
        """Choose this KB's answer threshold on labelled questions about it; store it in the KB for `ask`."""
        from citebound.errors import InputError
        from citebound.evaluate.answer_threshold import calibrate_answers as run
        from citebound.evaluate.answer_threshold import clear_calibration

        if clear:
            typer.echo("removed the KB's answer threshold" if clear_calibration(kb_path(kb))
                       else "the KB had no answer threshold")
            return
        if questions is None:
            raise InputError("--questions FILE is required (or --clear)")
        record = run(kb_path(kb), questions, objective=objective, target=target, k=k,
                     options=parse_options(option), store=not dry_run, rows_out=out)
        typer.echo(json.dumps(record, indent=2))

    @calibrate_app.command("extractive")
    def calibrate_extractive(
        data: Path = typer.Option(..., "--data", help="A dev split folder (never test)."),
        limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N questions."),
        k: int = typer.Option(config.TOP_K, "--k", help="Sources per question."),
        out: Optional[Path] = typer.Option(None, "--out", help="Write per-question rows (JSON lines) here."),
    ) -> None:
        """Choose the extractive backend's abstention threshold (and the naive baseline's) on dev data."""
        from citebound.evaluate.qa_eval import calibrate_extractive as run

        typer.echo(json.dumps(run(data, limit=limit, k=k, rows_out=out), indent=2))
