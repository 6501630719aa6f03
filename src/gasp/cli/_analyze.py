"""``gasp analyze`` and ``gasp compare``: analyse runs and compare them, by the study each
run recorded in its manifest."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from gasp.cli import _generation_options as gen
from gasp.cli import _texts as tx
from gasp.cli._app import app
from gasp.cli._declared import with_settings
from gasp.errors import ConfigError


@app.command()
@with_settings("analysis")
def analyze(
    run: Annotated[
        str,  # kept as typed: a path's "hf://" would lose a slash
        typer.Argument(
            help="The run to analyse: a run folder, a run store (.sqlite), or texts you "
            "already have: a table (.csv, .tsv, .parquet, .jsonl, .xlsx; give --study), an "
            "Inspect AI log (.eval), an lm-eval samples_*.jsonl or a saved datasets folder."
        ),
    ],
    study: Annotated[
        str | None,
        typer.Option(help="The study of a table of generations (runs record their own)."),
    ] = None,
    study_option: gen.StudyOptionOption = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Results folder (default: the run's results folder)."),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Seed of the resampling (default: the run's seed).")
    ] = None,
    column: tx.ColumnOption = None,
    where: tx.WhereOption = None,
    allow_new_groups: tx.AllowNewGroupsOption = False,
    fmt: tx.FormatOption = None,
    **settings: Any,
) -> None:
    """Analyse a run with its study's analysis; options left unset take the values
    ``gasp run`` uses for this run, so re-analysing a run reproduces its results."""
    from rich.console import Console

    import gasp

    result = gasp.analyze(
        run,
        study=study,
        out=out,
        study_options=study_option,
        columns=_assignments(column, "--column"),
        where=_where(where),
        allow_new_groups=allow_new_groups,
        fmt=fmt,
        seed=seed,
        **{k: v for k, v in settings.items() if v is not None and v is not False},
    )
    console = Console()
    for line in result.lines:
        if isinstance(line, str) and line.startswith("warning: "):
            typer.echo(f"gasp: {line}", err=True)  # one line, never wrapped
        else:
            console.print(line)


def _assignments(pairs: list[str] | None, flag: str) -> dict[str, str]:
    """``NAME=VALUE`` texts as a mapping (a later name replaces an earlier one)."""
    found: dict[str, str] = {}
    for pair in pairs or ():
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"{flag} {pair!r} must be NAME=VALUE")
        found[name.strip()] = value
    return found


def _where(pairs: list[str] | None) -> dict[str, list[str]]:
    """``COLUMN=VALUE`` texts as column -> the values kept."""
    found: dict[str, list[str]] = {}
    for pair in pairs or ():
        name, value = next(iter(_assignments([pair], "--where").items()))
        found.setdefault(name, []).append(value)
    return found


@app.command()
def compare(
    runs: Annotated[list[Path], typer.Argument(help="Two or more run stores or results folders.")],
    out: Annotated[
        Path,
        typer.Option(
            "--out", "-o", help="Folder for the comparison tables (its report goes to OUT/report)."
        ),
    ],
    label: Annotated[
        list[str] | None, typer.Option("--label", help="Name of each run, in order.")
    ] = None,
    level: Annotated[
        float | None,
        typer.Option(
            help="False discovery rate of a scorecard (default: the level the audit "
            "folders record, else 0.05)."
        ),
    ] = None,
) -> None:
    """Compare analysed runs of one study (for More of the Same: Table 14, Figure 4) and draw
    the comparison report; audit folders, or runs of several studies, give the audit
    scorecard (scorecard.json and index.html in OUT)."""
    from rich.console import Console

    import gasp

    result = gasp.compare(runs, out=out, labels=label, level=level)
    console = Console()
    for line in result.lines:
        console.print(line)
    typer.echo(str(out / "index.html"))


__all__: list[str] = ["analyze", "compare"]
