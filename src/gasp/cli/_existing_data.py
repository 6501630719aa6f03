"""``gasp associate`` and ``gasp marked-words``: analyse generations the user already has
(:func:`gasp.associate_genders`, :func:`gasp.marked_words`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

import gasp
from gasp.cli._app import app
from gasp.cli._names import MarkedWordsMethod, OldOutputOption, TableArgument, TextColumnOption


@app.command(name="associate")
def associate_command(
    file: TableArgument,
    text_column: TextColumnOption = "text",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="Write the table with the associated gender and counts here."
        ),
    ] = None,
    output: OldOutputOption = None,
) -> None:
    """Associate each text with a gender (F, M, N or unassigned) and print the shares."""
    found = gasp.associate_genders(file, text_column=text_column, out=out or output)
    table, counts = found.table, found.counts
    console = Console()
    console.print(f"Associated gender of {len(table)} texts in {file}")
    view = Table()
    view.add_column("gender")
    view.add_column("texts", justify="right")
    view.add_column("share", justify="right")
    for label, count in counts.items():
        view.add_row(str(label), str(count), f"{count / len(table):.1%}")
    console.print(view)
    if found.written is not None:
        typer.echo(f"wrote {found.written}")


def _print_words(result: Any, names: list[str], top: int, console: Console) -> None:
    view = Table()
    view.add_column("word")
    view.add_column("count", justify="right")
    for name in names:
        view.add_column(f"z {name}", justify="right")
    view.add_column("z sum", justify="right")
    for values in result.head(top).to_dict(orient="records"):
        view.add_row(
            str(values["word"]),
            str(values["count_target"]),
            *(f"{values[f'z_{name}']:.2f}" for name in names),
            f"{values['z_sum']:.2f}",
        )
    console.print(view)


@app.command(name="marked-words")
def marked_words_command(
    file: TableArgument,
    target: Annotated[
        str, typer.Option(help='Target group as column=value[,column=value], e.g. "gender=W".')
    ],
    unmarked: Annotated[
        list[str],
        typer.Option(help="Unmarked group as column=value[,column=value]; repeat for several."),
    ],
    text_column: TextColumnOption = "text",
    threshold: Annotated[float, typer.Option(help="z-score a word must exceed.")] = 1.96,
    fdr: Annotated[
        float | None,
        typer.Option(
            "--level",
            "--fdr",
            help="Benjamini-Hochberg false discovery rate, instead of the threshold (--fdr: "
            "its old name).",
        ),
    ] = None,
    min_count: Annotated[int, typer.Option(help="Least count of a word in the target group.")] = 0,
    method: Annotated[
        MarkedWordsMethod,
        typer.Option(help="plain (Marked Personas) or calibrated (More of the Same, Algorithm 4)."),
    ] = MarkedWordsMethod.plain,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="Write every significant word here (.csv, .json, .jsonl, .parquet)."
        ),
    ] = None,
    output: OldOutputOption = None,
    top: Annotated[int, typer.Option(help="How many top words to print.")] = 20,
) -> None:
    """Find the words that distinguish a target group from every unmarked group."""
    found = gasp.marked_words(
        file,
        target,
        unmarked,
        text_column=text_column,
        threshold=threshold,
        level=fdr,
        min_count=min_count,
        method="calibrated" if method.calibrated_words else "plain",
        out=out or output,
    )
    result = found.words
    against = ", ".join(f"{name} ({n} texts)" for name, n in found.unmarked_sizes.items())
    rule = f"FDR {fdr}" if fdr is not None else f"z > {threshold}"
    variant = "calibrated" if method.calibrated_words else "plain"
    console = Console()
    console.print(
        f"{len(result)} marked words of {target} ({found.target_size} texts) "
        f"against {against}; {variant} Marked Words, {rule}"
    )
    if top > 0 and len(result) > 0:
        _print_words(result, list(found.unmarked_sizes), top, console)
    if found.written is not None:
        typer.echo(f"wrote {found.written}")
