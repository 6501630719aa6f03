"""``gasp calibrate``: choose the hyperparameters of Calibrated Marked Words for a dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

import gasp
from gasp.cli._app import app
from gasp.cli._declared import with_keywords
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


#: The keywords of :func:`gasp.calibrate` given as options of their own (their types
#: and defaults are the function's).
_KEYWORDS = {
    "n_common": "Common words: this many most frequent English words.",
    "english_source": "wordfreq or brown (needs NLTK).",
    "threshold": "z-score threshold.",
    "alpha_step": "Step of the alpha sweep.",
}


@app.command(name="calibrate")
@with_keywords(gasp.calibrate, _KEYWORDS)
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
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Folder to write the search and sweep tables as CSV."),
    ] = None,
    output: OldOutputOption = None,
    **keywords: Any,
) -> None:
    """Calibrate C_English and C_topic by binary search, then sweep alpha (seed 000, A.2)."""
    out = out or output
    report = gasp.calibrate(
        file, unmarked, target or [], each=each, text_column=text_column, out=out, **keywords
    )
    _print_report(report, Console())
    if out is not None:
        typer.echo(f"wrote {out}")
