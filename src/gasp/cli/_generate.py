"""``gasp generate``: run a study against a model into a run store; ``gasp export``: write it out.

Everything is validated before the store is created or opened: a broken study file,
an unknown provider, a missing key, an unreachable base URL or a bad number print
one line and exit 2, leaving an existing store untouched. Re-running the same
command resumes the run where it stopped.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

import gasp
from gasp.cli import _generation_options as gen
from gasp.cli._app import app
from gasp.cli._declared import with_settings


def _plan_table(generation: gasp.Generation) -> Table:
    summary = generation.summary
    est = summary.estimate
    assert est is not None
    table = Table(title=f"gasp generate --dry-run: {summary.study} on {summary.model}")
    table.add_column("")
    table.add_column("planned", justify="right")
    table.add_row(
        "fixed items (exactly n each)", f"{est.items_fixed} items, {est.requests_fixed:,} requests"
    )
    if est.items_adaptive:
        table.add_row(
            "adaptive items (stopping rule)",
            f"{est.items_adaptive} items, "
            f"{est.requests_adaptive_min:,}..{est.requests_adaptive_max:,} requests",
        )
    if est.score_requests:
        table.add_row("scoring requests", f"{est.score_requests:,}")
    table.add_row("requests in all", f"{est.requests_min:,}..{est.requests_max:,}")
    table.add_row(
        "tokens (estimate)",
        f"{est.tokens_min:,}..{est.tokens_max:,} "
        f"(completions of {generation.max_tokens // 2}..{generation.max_tokens})",
    )
    if est.cost_min_usd is not None and est.cost_max_usd is not None:
        table.add_row("cost (USD, estimate)", f"${est.cost_min_usd:,.2f}..${est.cost_max_usd:,.2f}")
        if summary.batch:
            table.add_row("price", "batch API: half the listed price")
    else:
        table.add_row("cost", "no price known for this model: tokens only")
    return table


@app.command("generate")
@with_settings("shape", "decoding", "runner")
def generate_command(
    study: gen.StudyArgument = gen.DEFAULT_STUDY,
    model: gen.ModelOption = gen.DEFAULT_MODEL,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Run store to create or resume (.sqlite).")
    ] = None,
    study_option: gen.StudyOptionOption = None,
    model_option: gen.ModelOptionOption = None,
    seed: Annotated[int, typer.Option(help="Run seed; per-sample seeds derive from it.")] = 0,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the planned requests, tokens and cost.")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bars or table.")
    ] = False,
    **settings: Any,
) -> None:
    """Generate a study's samples with a model into a run store (resumes an existing one)."""
    generation = gasp.generate(
        study,
        model,
        out=out,
        seed=seed,
        dry_run=dry_run,
        study_options=tuple(study_option or ()),
        model_options=tuple(model_option or ()),
        quiet=quiet,
        **settings,
    )
    summary = generation.summary
    stdout = Console()
    if dry_run:
        stdout.print(_plan_table(generation))
        return
    if not quiet:
        stdout.print(generation.table())
    if summary.stopped:
        typer.echo(
            f"gasp: stopped: {summary.stopped}; run the same command again to continue", err=True
        )
    elif not summary.complete:
        typer.echo(
            f"gasp: {summary.failed} sample(s) failed after retries; "
            "run the same command again to retry them",
            err=True,
        )
        sys.exit(1)


class ExportWhat(StrEnum):
    """The tables ``gasp export`` writes."""

    samples = "samples"
    scores = "scores"
    items = "items"


@app.command("export")
def export_command(
    run: Annotated[Path, typer.Argument(help="Run folder or run store (.sqlite).")],
    out: Annotated[Path, typer.Argument(help="Output file: .parquet, .csv or .jsonl.")],
    what: Annotated[
        ExportWhat | None,
        typer.Option(
            "--what",
            help="samples (generated texts), scores (one row per item, sample and candidate)"
            " or items (prompts and attributes); default: scores for a scoring study, else"
            " samples.",
        ),
    ] = None,
    no_errors: Annotated[
        bool, typer.Option("--no-errors", help="Leave out rows that record a failed request.")
    ] = False,
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite",
            help="Replace an existing file that is not an earlier export of this run.",
        ),
    ] = False,
    raw_csv: Annotated[
        bool,
        typer.Option(
            "--raw-csv",
            help="Keep a CSV's text exactly as generated (by default a cell a spreadsheet "
            "would run as a formula gets a leading ').",
        ),
    ] = False,
) -> None:
    """Export a run's samples, scores or items to Parquet, CSV or JSON Lines (by the file
    extension); print the file written. A run still being generated is refused, and so
    is an existing file that is not an earlier export of this run (unless --overwrite)."""
    outcome = gasp.export(
        run,
        out,
        what=str(what) if what is not None else None,
        include_errors=not no_errors,
        overwrite=overwrite,
        raw_csv=raw_csv,
    )
    if outcome.path is not None:
        typer.echo(str(outcome.path))
        return
    others = [f"--what {name} ({count:,} rows)" for name, count in outcome.counts.items() if count]
    hint = f"; try {' or '.join(others)}" if others else ""
    typer.echo(
        f"gasp: warning: {run} has no {outcome.table} to export, nothing written{hint}", err=True
    )
