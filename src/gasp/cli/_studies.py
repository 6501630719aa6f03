"""``gasp studies``: the registered studies; ``gasp report``: re-render a run's report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

import gasp
from gasp.cli._app import app


def _print_options(study: gasp.StudyInfo, console: Console) -> None:
    """The study's options: type, default, ``--quick`` value, range and help, sizes marked."""
    from rich.markup import escape

    if not study.options:
        console.print(f"study {study.name!r} has no options of its own")
        return
    table = Table(title=f"options of {study.name} (--study-option KEY=VALUE)")
    for column in ("option", "type", "default", "--quick", "range", "what it sets"):
        table.add_column(column)
    for option in study.options:
        what = option.what_it_sets + (f" (also {option.flag})" if option.flag else "")
        table.add_row(
            option.name,
            option.kind,
            "-" if option.default is None else escape(str(option.default)),
            "-" if option.quick is None else escape(str(option.quick)),
            escape(option.range),
            escape(what),
        )
    console.print(table)
    if study.quick_max_tokens is not None:
        console.print(f"--quick also sets --max-tokens {study.quick_max_tokens}.")


def _print_study(study: gasp.StudyInfo) -> None:
    """The study's options and the columns ``gasp analyze TABLE --study NAME`` reads."""
    console = Console()
    console.print(f"{study.name}: {study.description}")
    _print_options(study, console)
    roles = study.table_roles
    if not roles:
        console.print(f"study {study.name!r} analyses its own runs only, not tables of texts")
        return
    table = Table(title=f"columns of a table for gasp analyze TABLE --study {study.name}")
    table.add_column("role")
    table.add_column("needed")
    table.add_column("what it holds")
    for role in roles:
        table.add_row(role.name, "required" if role.required else "optional", role.help)
    console.print(table)
    if study.table_help:
        console.print(study.table_help)
    console.print("Map your own column names with --column ROLE=NAME.")


@app.command("studies")
def studies_command(
    study: Annotated[
        str | None,
        typer.Argument(help="A study: list its options and the columns its tables need."),
    ] = None,
) -> None:
    """List the studies gasp can run (package and version, a one-line description, their
    own options), or one study's options (type, default, quick value, range) and the
    columns it reads from a table of texts."""
    if study is not None:
        _print_study(gasp.describe_study(study))
        return
    listing = gasp.list_studies()
    table = Table(title="gasp studies")
    table.add_column("study")
    table.add_column("package")
    table.add_column("what it measures")
    table.add_column("--study-option")
    for found in listing.studies:
        options = "\n".join(f"{o.name}: {o.help}" for o in found.options) or "-"
        table.add_row(found.name, f"{found.package} {found.version}", found.description, options)
    Console().print(table)
    for line in listing.warnings:
        typer.echo(f"gasp: warning: {line}", err=True)


@app.command("report")
def report_command(
    run: Annotated[
        Path,
        typer.Argument(
            help="A run folder (gasp run), a run store (.sqlite) or a results folder "
            "(an audit or a comparison)."
        ),
    ],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Report folder (default: the run's).")
    ] = None,
    examples_per_word: Annotated[
        int | None,
        typer.Option(help="Example generations shown per significant word (default 50)."),
    ] = None,
) -> None:
    """Re-render the HTML report of a run from its saved results (no model is called)."""
    typer.echo(str(gasp.render_report(run, out, examples_per_word=examples_per_word)))


__all__ = ["report_command", "studies_command"]
