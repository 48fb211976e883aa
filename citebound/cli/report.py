"""`citebound report`: drift of answer quality over time, from the audit log (docs/drift.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from citebound.cli.common import KB_HELP, kb_path


MAX_CHANGES_SHOWN = 20


def _fmt(value: object, spec: str = ".3f") -> str:
    return "-" if value is None else format(value, spec)


def render_text(report, checks) -> None:  # DriftReport, tuple[Check, ...]
    """Plain lines, never wrapped: easy to read in a cron mail and to grep."""
    since = f"since {report.since}" if report.since else "whole log"
    typer.echo(f"{report.requests} requests, {since}, by {report.by}  ({report.source})")
    head = (f"{'period':<12} {'req':>5} {'abst':>6} {'err':>5} {'ground':>7} {'c.prec':>7} {'c.rec':>7} "
            f"{'removed':>8} {'flags':>5} {'p50 s':>7} {'p95 s':>7}")
    typer.echo(head)
    for p in report.periods:
        removed = f"{p.claims_removed}/{p.claims}" if p.claims else "-"
        typer.echo(f"{p.period:<12} {p.requests:>5} {_fmt(p.abstention_rate, '.2f'):>6} {p.errors:>5} "
                   f"{_fmt(p.groundedness):>7} {_fmt(p.citation_precision):>7} {_fmt(p.citation_recall):>7} "
                   f"{removed:>8} {p.flags:>5} {_fmt(p.latency_p50, '.3f'):>7} {_fmt(p.latency_p95, '.3f'):>7}")
    last = report.last
    if last is not None:
        typer.echo(f"last period {last.period}: backend {', '.join(last.backends)}; "
                   f"verifier {', '.join(last.verifiers)}; KB revision {', '.join(last.kb_revisions)}")
        if last.removed_by:
            typer.echo("  removed: " + ", ".join(f"{k} {v}" for k, v in last.removed_by.items()))
        if last.stages:
            typer.echo("  decided by: " + ", ".join(f"{s} {sum(c.values())}" for s, c in last.stages.items()))
        if last.abstain_reasons:
            typer.echo("  abstained: " + "; ".join(f"{k} ({v})" for k, v in last.abstain_reasons.items()))
    shown = report.changes[-MAX_CHANGES_SHOWN:]
    if len(report.changes) > len(shown):
        typer.echo(f"{len(report.changes)} changes; the last {len(shown)} (all of them with --json):")
    for c in shown:
        typer.echo(f"change {c.at} ({c.period}): {c.label}")
    for check in checks:
        typer.echo(("FAIL " if check.failed else "ok   ") + check.message)


def register(app: typer.Typer) -> None:
    @app.command()
    def report(
        kb: Optional[str] = typer.Option(None, "--kb", help=KB_HELP),
        since: str = typer.Option("30d", "--since", help="Window: 30d, 12h, 2w, an ISO date, or 'all'."),
        by: str = typer.Option("day", "--by", help="Periods: day | week | requests:N (N requests each)."),
        html: Optional[Path] = typer.Option(None, "--html", help="Write an HTML report with plots (and the "
                                            "same numbers as JSON beside it)."),
        as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
        fail_below: Optional[str] = typer.Option(
            None, "--fail-below", help="Exit 1 when the last period is below a floor, e.g. "
            "groundedness=0.95,citation_precision=0.9"),
        fail_above: Optional[str] = typer.Option(
            None, "--fail-above", help="Exit 1 when the last period is above a ceiling, e.g. "
            "abstention_rate=0.5,latency_p95=3"),
    ) -> None:
        """Answer quality per day or week, from the audit log: drift, and what changed when."""
        from datetime import UTC, datetime

        from citebound.evaluate.drift import (
            build_report,
            check_limits,
            load_records,
            parse_limits,
            parse_since,
        )

        now = datetime.now(UTC)
        below, above = parse_limits(fail_below, "below"), parse_limits(fail_above, "above")
        records, source = load_records(kb_path(kb))
        result = build_report(records, by=by, since=parse_since(since, now), now=now, source=source)
        checks = check_limits(result, below, above)
        if html is not None:
            from citebound.evaluate.drift_html import write_drift_report

            html_path, json_path = write_drift_report(html, result, checks, floors=below, ceilings=above)
            typer.echo(f"wrote {html_path} and {json_path}", err=as_json)
        if as_json:
            typer.echo(json.dumps({**result.to_dict(), "checks": [c.to_dict() for c in checks]},
                                  ensure_ascii=False, indent=2))
        else:
            render_text(result, checks)
        failed = [c for c in checks if c.failed]
        if as_json:  # the text report already lists its checks; with --json, say it on stderr
            for c in failed:
                print(f"citebound report: FAIL {c.message}", file=sys.stderr)
        raise typer.Exit(1 if failed else 0)
