"""``gasp studies``: the registered studies; ``gasp report``: re-render a run's report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from gasp.cli._app import app
from gasp.cli._incomplete import note_report
from gasp.cli._preflight import check_writable_folder, report_from_results
from gasp.errors import ConfigError, DataError

if TYPE_CHECKING:
    from gasp.studies import StudyType


@app.command("studies")
def studies_command() -> None:
    """List the studies gasp can run, with a one-line description and their own options."""
    from gasp.studies import study_types

    table = Table(title="gasp studies")
    table.add_column("study")
    table.add_column("what it measures")
    table.add_column("--study-option")
    for study in study_types():
        options = "\n".join(f"{k}: {v}" for k, v in study.study_options.items()) or "-"
        table.add_row(study.name, study.description, options)
    Console().print(table)


def study_type_of_results(results: Path) -> StudyType:
    """The study type that produced a results folder (recorded in ``results.json``)."""
    from gasp.studies import DEFAULT_STUDY_KIND, get_study_type

    meta_file = results / "results.json"
    if not meta_file.is_file():
        raise DataError(f"no saved results at {results}; run `gasp analyze` first")
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"cannot read {meta_file}: {exc}") from None
    kind = meta.get("meta", meta).get("study_kind") if isinstance(meta, dict) else None
    return get_study_type(str(kind or DEFAULT_STUDY_KIND))


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
        int, typer.Option(help="Example generations shown per significant word.")
    ] = 50,
) -> None:
    """Re-render the HTML report of a run from its saved results (no model is called)."""
    from gasp.io import locate_run

    if examples_per_word < 1:
        raise ConfigError(f"--examples-per-word must be at least 1, got {examples_per_word}")
    paths = locate_run(run)
    study = study_type_of_results(paths.results)
    note_report(paths.store)
    options = {"examples_per_word": examples_per_word}
    target = out if out is not None else paths.report
    check_writable_folder(
        target, "report folder", f"give a writable report folder with `gasp report {run} --out DIR`"
    )
    path = report_from_results(lambda: study.report(paths.results, target, options), paths.results)
    typer.echo(str(path))


__all__ = ["report_command", "studies_command", "study_type_of_results"]
