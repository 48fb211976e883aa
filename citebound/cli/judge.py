"""`citebound calibrate judge FILE.jsonl` (also `citebound calibrate-judge`): an LLM judge's agreement
with gold labels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer


def register(app: typer.Typer) -> None:
    from citebound.cli import calibrate_app

    calibrate_app.command("judge")(calibrate_judge)
    app.command("calibrate-judge")(calibrate_judge)


def calibrate_judge(
    file: Annotated[Path, typer.Argument(help="JSON lines {id, claim, evidence, label} (as in verify-batch).")],
    base_url: Annotated[Optional[str], typer.Option(help="OpenAI-compatible base URL (env CITEBOUND_JUDGE_BASE_URL).")]
    = None,
    model: Annotated[Optional[str], typer.Option(help="Model name (env CITEBOUND_JUDGE_MODEL).")] = None,
    api_key: Annotated[Optional[str], typer.Option(help="API key (env CITEBOUND_JUDGE_API_KEY).")] = None,
    timeout: Annotated[float, typer.Option(min=0.1, help="Seconds per request before 'unverified'.")] = 30.0,
    cache_dir: Annotated[Optional[Path], typer.Option(help="Verdict cache (env CITEBOUND_JUDGE_CACHE).")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Ask the judge even for cached pairs.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as one JSON object.")] = False,
) -> None:
    """Measure an LLM judge against gold labels: accuracy, balanced accuracy, Cohen's kappa, TPR/TNR."""
    from citebound.verify.batch import read_rows
    from citebound.verify.judge import LlmJudge, judge_agreement

    judge = LlmJudge.from_env(base_url, model, api_key, timeout=timeout, cache_dir=cache_dir, use_cache=not no_cache)
    rows = read_rows(file)
    metrics = judge_agreement(rows, judge, progress=len(rows) >= 50)
    if as_json:
        typer.echo(json.dumps(metrics))
        return
    c = metrics["confusion"]
    typer.echo(f"{file.name}: judge {judge.model}, {metrics['n']} rows ({metrics['unverified']} unverified, "
               f"{metrics['cached']} from cache)")
    for key in ("accuracy", "balanced_accuracy", "cohen_kappa", "tpr", "tnr"):
        typer.echo(f"  {key:<18} {metrics[key]:.4f}")
    typer.echo("  confusion (rows gold, columns predicted: supported / unsupported)")
    typer.echo(f"    supported         {c['gold_supported']['supported']:>6} {c['gold_supported']['unsupported']:>6}")
    typer.echo(f"    unsupported       {c['gold_unsupported']['supported']:>6} {c['gold_unsupported']['unsupported']:>6}")
