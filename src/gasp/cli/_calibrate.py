"""``gasp calibrate``: choose the hyperparameters of Calibrated Marked Words for a dataset."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from gasp.cli._app import app
from gasp.cli._names import OldOutputOption
from gasp.errors import DataError

if TYPE_CHECKING:
    import pandas as pd

    from gasp.stats import CalibrationReport


def _targets(table: pd.DataFrame, target: list[str], each: str | None) -> list[dict[str, str]]:
    from gasp.stats import parse_selector

    selectors = [parse_selector(t) for t in target]
    if each:
        columns = [c.strip() for c in each.split(",") if c.strip()]
        for column in columns:
            if column not in table.columns:
                raise DataError(f"unknown column {column!r} in --each")
        present = table[columns].dropna().astype(str).apply(lambda col: col.str.strip())
        combos = sorted(set(present.itertuples(index=False, name=None)))
        selectors += [dict(zip(columns, combo, strict=True)) for combo in combos]
    if not selectors:
        raise DataError("give at least one --target selector or --each columns")
    return selectors


def _print_report(report: CalibrationReport, console: Console) -> None:
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
    file: Annotated[Path, typer.Argument(help="Table of generations (CSV, TSV, Parquet, JSONL).")],
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
    text_column: Annotated[str, typer.Option(help="Column holding the text.")] = "text",
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
    import pandas as pd

    from gasp.io import read_generations
    from gasp.stats import (
        CalibratedConfig,
        Comparison,
        calibrate,
        group_mask,
        parse_selector,
        selector_name,
    )
    from gasp.text import count_words

    table = read_generations(file, text_column)
    counts = count_words(table[text_column])
    unmarked_masks = {
        selector_name(sel): group_mask(table, sel) for sel in map(parse_selector, unmarked)
    }
    if not unmarked_masks:
        raise DataError("give at least one --unmarked selector")
    comparisons = [
        Comparison(target=group_mask(table, sel), unmarked=unmarked_masks, name=selector_name(sel))
        for sel in _targets(table, target or [], each)
    ]
    report = calibrate(
        counts,
        comparisons,
        config=CalibratedConfig(english_source=english_source),
        n_common=n_common,
        threshold=threshold,
        alpha_step=alpha_step,
    )
    _print_report(report, Console())
    out = out or output
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        report.english_search.to_csv(out / "c_english_search.csv", index=False)
        report.topic_search.to_csv(out / "c_topic_search.csv", index=False)
        report.alpha_sweep.to_csv(out / "alpha_sweep.csv", index=False)
        pd.DataFrame(
            {"parameter": ["c_english", "c_topic"], "value": [report.c_english, report.c_topic]}
        ).to_csv(out / "constants.csv", index=False)
        typer.echo(f"wrote {out}")
