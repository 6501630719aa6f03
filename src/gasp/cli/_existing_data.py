"""``gasp associate`` and ``gasp marked-words``: analyse generations the user already has.

Both read a table of generations (CSV, TSV, Parquet, JSON Lines or JSON) with a text
column and, for Marked Words, the columns that define the groups.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from gasp.cli._app import app
from gasp.cli._names import MarkedWordsMethod, OldOutputOption
from gasp.errors import DataError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

#: Columns ``gasp associate`` adds to the table.
ASSOCIATION_COLUMNS = {
    "gender": "associated_gender",
    "female": "female_count",
    "male": "male_count",
    "neutral": "neutral_count",
    "nonbinary_cue": "nonbinary_cue",
}


def _group_slug(selector: dict[str, str], taken: set[str]) -> str:
    """A column-friendly name for a group from its values (``a White`` -> ``a_White``)."""
    base = "_".join(re.sub(r"[^0-9A-Za-z]+", "_", v).strip("_") for v in selector.values())
    base = base or "group"
    name, i = base, 2
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    taken.add(name)
    return name


@app.command(name="associate")
def associate_command(
    file: Annotated[
        Path, typer.Argument(help="Table of generations (CSV, TSV, Parquet, JSONL, JSON).")
    ],
    text_column: Annotated[str, typer.Option(help="Column holding the text.")] = "text",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="Write the table with the associated gender and counts here."
        ),
    ] = None,
    output: OldOutputOption = None,
) -> None:
    """Associate each text with a gender (F, M, N or unassigned) and print the shares."""
    from gasp.associate import GENDER_LABELS, associate_counts
    from gasp.io import read_generations, write_table
    from gasp.text import count_words

    table = read_generations(file, text_column)
    texts = table[text_column].tolist()
    association = associate_counts(texts, count_words(texts))
    added = association.table.rename(columns=ASSOCIATION_COLUMNS)
    for column in added.columns:
        table[column] = added[column].to_numpy()
    labels = [*GENDER_LABELS, "unassigned"]
    n_per_label = association.genders.fillna("unassigned").value_counts().reindex(labels)
    n_per_label = n_per_label.fillna(0).astype(int)
    console = Console()
    console.print(f"Associated gender of {len(texts)} texts in {file}")
    view = Table()
    view.add_column("gender")
    view.add_column("texts", justify="right")
    view.add_column("share", justify="right")
    for label in labels:
        view.add_row(label, str(n_per_label[label]), f"{n_per_label[label] / len(texts):.1%}")
    console.print(view)
    out = out or output
    if out is not None:
        written = write_table(table, out)
        typer.echo(f"wrote {written}")


def _print_words(result: pd.DataFrame, names: list[str], top: int, console: Console) -> None:
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
    file: Annotated[
        Path, typer.Argument(help="Table of generations (CSV, TSV, Parquet, JSONL, JSON).")
    ],
    target: Annotated[
        str, typer.Option(help='Target group as column=value[,column=value], e.g. "gender=W".')
    ],
    unmarked: Annotated[
        list[str],
        typer.Option(help="Unmarked group as column=value[,column=value]; repeat for several."),
    ],
    text_column: Annotated[str, typer.Option(help="Column holding the text.")] = "text",
    threshold: Annotated[float, typer.Option(help="z-score a word must exceed.")] = 1.96,
    fdr: Annotated[
        float | None,
        typer.Option(help="Benjamini-Hochberg false discovery rate, instead of the threshold."),
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
    from gasp.io import read_generations, write_table
    from gasp.stats import calibrated_marked_words, group_mask, marked_words, parse_selector
    from gasp.text import count_words

    target_selector = parse_selector(target)
    unmarked_selectors = [parse_selector(u) for u in unmarked]
    if not unmarked_selectors:
        raise DataError("give at least one --unmarked group")
    columns = {c for s in [target_selector, *unmarked_selectors] for c in s}
    table = read_generations(file, text_column, sorted(columns))
    target_mask = group_mask(table, target_selector)
    taken: set[str] = set()
    unmarked_masks: dict[str, np.ndarray] = {}
    for selector in unmarked_selectors:
        unmarked_masks[_group_slug(selector, taken)] = group_mask(table, selector)
    counts = count_words(table[text_column].tolist())
    run = calibrated_marked_words if method.calibrated_words else marked_words
    result = run(
        counts,
        target_mask,
        unmarked_masks,
        threshold=threshold,
        fdr_alpha=fdr,
        min_count=min_count,
    )
    names = list(unmarked_masks)
    against = ", ".join(
        f"{name} ({int(mask.sum())} texts)" for name, mask in unmarked_masks.items()
    )
    rule = f"FDR {fdr}" if fdr is not None else f"z > {threshold}"
    variant = "calibrated" if method.calibrated_words else "plain"
    console = Console()
    console.print(
        f"{len(result)} marked words of {target} ({int(target_mask.sum())} texts) "
        f"against {against}; {variant} Marked Words, {rule}"
    )
    if top > 0 and len(result) > 0:
        _print_words(result, names, top, console)
    out = out or output
    if out is not None:
        written = write_table(result, out)
        typer.echo(f"wrote {written}")
