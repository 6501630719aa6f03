"""``gasp generate``: run a study against a model into a run store; ``gasp export``: write it out.

Everything is validated before the store is created or opened: a broken study file,
an unknown provider, a missing key, an unreachable base URL or a bad number print
one line and exit 2, leaving an existing store untouched. Re-running the same
command resumes the run where it stopped.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from gasp.backends import DecodingConfig
from gasp.cli._app import app
from gasp.errors import ConfigError
from gasp.runner import RunOptions, RunSummary, summary_table
from gasp.runner import generate as run_generate
from gasp.store import export as export_store
from gasp.studies import Study, load_study, load_subjects_csv


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    if not items:
        raise ConfigError("an empty list was given; separate names with commas")
    return items


def build_study(
    study: str,
    *,
    occupations: str | None,
    occupations_file: Path | None,
    n: int | None,
    templates: str | None,
    conditions: str | None,
) -> Study:
    """The study named on the command line, reduced by the options."""
    if occupations and occupations_file:
        raise ConfigError("give --occupations or --occupations-file, not both")
    if n is not None and n < 1:
        raise ConfigError(f"--n must be a positive integer, got {n}")
    spec = load_study(study)
    if occupations_file is not None:
        spec = spec.with_subjects(load_subjects_csv(occupations_file))
    names = _split(occupations)
    if names is not None:
        unknown = [o for o in names if o not in {s.name for s in spec.subjects}]
        if unknown:
            raise ConfigError(
                f"occupation {unknown[0]!r} is not in study {spec.name!r}; "
                "pass your own list with --occupations-file"
            )
    return spec.restrict(
        subjects=names, templates=_split(templates), conditions=_split(conditions), n=n
    )


def _plan_table(summary: RunSummary, decoding: DecodingConfig) -> Table:
    est = summary.estimate
    assert est is not None
    table = Table(title=f"gasp generate --dry-run: {summary.study} on {summary.model}")
    table.add_column("")
    table.add_column("planned", justify="right")
    table.add_row(
        "named cells (exactly n each)", f"{est.cells_named} cells, {est.requests_named:,} requests"
    )
    table.add_row(
        "unspecified cells (adaptive)",
        f"{est.cells_adaptive} cells, "
        f"{est.requests_adaptive_min:,}..{est.requests_adaptive_max:,} requests",
    )
    table.add_row("requests in all", f"{est.requests_min:,}..{est.requests_max:,}")
    table.add_row(
        "tokens (estimate)",
        f"{est.tokens_min:,}..{est.tokens_max:,} "
        f"(completions of {decoding.max_tokens // 2}..{decoding.max_tokens})",
    )
    if est.cost_min_usd is not None and est.cost_max_usd is not None:
        table.add_row("cost (USD, estimate)", f"${est.cost_min_usd:,.2f}..${est.cost_max_usd:,.2f}")
    else:
        table.add_row("cost", "no price known for this model: tokens only")
    return table


@app.command("generate")
def generate_command(
    study: Annotated[
        str, typer.Argument(help="Built-in study name or a study file (.toml / .yaml).")
    ] = "more-of-the-same",
    model: Annotated[
        str,
        typer.Option("--model", "-m", help="provider/model, e.g. embedded, openai/gpt-4o-mini."),
    ] = "embedded",
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Run store to create or resume (.sqlite).")
    ] = None,
    occupations: Annotated[
        str | None, typer.Option(help="Only these occupations (comma separated).")
    ] = None,
    occupations_file: Annotated[
        Path | None, typer.Option(help="Your own occupations CSV (column 'occupation').")
    ] = None,
    n: Annotated[int | None, typer.Option("--n", help="Samples per cell / per gender.")] = None,
    templates: Annotated[str | None, typer.Option(help="Only these templates.")] = None,
    conditions: Annotated[
        str | None, typer.Option(help="Only these conditions (unspecified,woman,man,nonbinary).")
    ] = None,
    max_tokens: Annotated[int, typer.Option(help="Most tokens per answer.")] = 256,
    temperature: Annotated[float, typer.Option(help="Sampling temperature.")] = 1.0,
    top_p: Annotated[float, typer.Option(help="Nucleus sampling mass.")] = 1.0,
    seed: Annotated[int, typer.Option(help="Run seed; per-sample seeds derive from it.")] = 0,
    max_concurrency: Annotated[int, typer.Option(help="Most requests in flight.")] = 16,
    base_url: Annotated[
        str | None, typer.Option(help="Server URL for openai-compatible/ models.")
    ] = None,
    api_key_env: Annotated[
        str | None, typer.Option(help="Environment variable holding the API key.")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the planned requests, tokens and cost.")
    ] = False,
    max_requests: Annotated[
        int | None, typer.Option(help="Stop cleanly after this many requests (resumable).")
    ] = None,
    max_cost: Annotated[
        float | None, typer.Option(help="Stop cleanly before this many USD (openai/ models).")
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bars or table.")
    ] = False,
) -> None:
    """Generate a study's samples with a model into a run store (resumes an existing one)."""
    spec = build_study(
        study,
        occupations=occupations,
        occupations_file=occupations_file,
        n=n,
        templates=templates,
        conditions=conditions,
    )
    decoding = DecodingConfig(
        temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed
    )
    if out is None and not dry_run:
        raise ConfigError(
            "--out is required (the run store to create or resume, e.g. runs/NAME.sqlite)"
        )
    options = RunOptions(
        decoding=decoding,
        seed=seed,
        max_concurrency=max_concurrency,
        max_requests=max_requests,
        max_cost=max_cost,
        dry_run=dry_run,
        base_url=base_url,
        api_key_env=api_key_env,
        progress=not quiet,
    )
    stdout = Console()
    summary = run_generate(spec, model, out, options, console=Console(stderr=True))
    if dry_run:
        stdout.print(_plan_table(summary, decoding))
        return
    if not quiet:
        stdout.print(summary_table(summary))
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


@app.command("export")
def export_command(
    run: Annotated[Path, typer.Argument(help="Run store (.sqlite).")],
    out: Annotated[Path, typer.Argument(help="Output file: .parquet, .csv or .jsonl.")],
    no_errors: Annotated[
        bool, typer.Option("--no-errors", help="Leave out rows that record a failed request.")
    ] = False,
) -> None:
    """Export a run's samples to Parquet, CSV or JSON Lines (by the file extension)."""
    path = export_store(run, out, include_errors=not no_errors)
    typer.echo(str(path))
