"""``gasp calibrate``: choose the hyperparameters of Calibrated Marked Words for a dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

import gasp
from gasp.cli._app import app
from gasp.cli._names import OldOutputOption, TableArgument, TextColumnOption


def _print_report(report: gasp.CalibrationReport, console: Console) -> None:
    for title, steps in (
        ("C_English search (English prior alone, alpha = 0)", report.english_search),
        ("C_topic search (topic prior alone, alpha = 1)", report.topic_search),
    ):
        table = Table(title=title)
        for column in ("C", "marked", "common", "common words"):
            table.add_column(column)
        for row in steps.itertuples(index=False):
            table.add_row(
                f"{row.c:.4g}", str(row.n_marked), str(row.n_common), str(row.common_words)
            )
        console.print(table)
    sweep = Table(title="alpha sweep")
    for column in ("alpha", "C", "marked", "distinct", "common", "common words"):
        sweep.add_column(column)
    for row in report.alpha_sweep.itertuples(index=False):
        sweep.add_row(
            f"{row.alpha:.2f}",
            f"{row.c:.4g}",
            str(row.n_marked),
            str(row.n_distinct),
            str(row.n_common),
            str(row.common_words),
        )
    console.print(sweep)
    flags = []
    if not report.english_feasible:
        flags.append("C_English: common words even at the smallest C")
    if not report.topic_feasible:
        flags.append("C_topic: common words even at the smallest C")
    console.print(
        f"C_English = {report.c_english:.4g}, C_topic = {report.c_topic:.4g}"
        + (f" ({'; '.join(flags)})" if flags else "")
    )


@app.command(name="calibrate")
def calibrate_command(
    file: TableArgument,
    unmarked: Annotated[
        list[str],
        typer.Option("--unmarked", help="Unmarked group as column=value[,column=value]; repeat."),
    ],
    target: Annotated[
        list[str] | None,
        typer.Option("--target", help="Target group as column=value[,column=value]; repeat."),
    ] = None,
    each: Annotated[
        str | None,
        typer.Option(help="Comma-separated columns: every combination of values is a target."),
    ] = None,
    text_column: TextColumnOption = "text",
    n_common: Annotated[
        int, typer.Option(help="Common words: this many most frequent English words.")
    ] = 100,
    english_source: Annotated[str, typer.Option(help="wordfreq or brown (needs NLTK).")] = (
        "wordfreq"
    ),
    threshold: Annotated[float, typer.Option(help="z-score threshold.")] = 1.96,
    alpha_step: Annotated[float, typer.Option(help="Step of the alpha sweep.")] = 0.05,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Folder to write the search and sweep tables as CSV."),
    ] = None,
    output: OldOutputOption = None,
) -> None:
    """Calibrate C_English and C_topic by binary search, then sweep alpha (seed 000, A.2)."""
    out = out or output
    report = gasp.calibrate(
        file,
        unmarked,
        target or [],
        each=each,
        text_column=text_column,
        n_common=n_common,
        english_source=english_source,
        threshold=threshold,
        alpha_step=alpha_step,
        out=out,
    )
    _print_report(report, Console())
    if out is not None:
        typer.echo(f"wrote {out}")
