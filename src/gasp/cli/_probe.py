"""``gasp probe``: cluster the significant words of two groups into patterns (seed ``000`` §5.3).

``gasp probe FILE`` probes a table of generations; ``gasp probe RUN.results`` adds the
probe's tables to an analysed run's results (both :func:`gasp.probe_words`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

import gasp
from gasp.cli._app import app
from gasp.cli._declared import with_keywords
from gasp.cli._names import MarkedWordsMethod, TextColumnOption


def _print_kept(result: gasp.ProbeResult, console: Console) -> None:
    kept = result.kept_clusters()
    a, b = result.group_a, result.group_b
    table = Table(title=f"Clusters kept ({kept['cluster'].nunique()} of {result.k})")
    for col in ("cluster", "words", "model", f"%{a}", f"%{b}", "#"):
        table.add_column(col)
    for record in kept.to_dict("records"):
        table.add_row(
            str(record["cluster"]),
            str(record["words"]),
            str(record["model"]),
            f"{float(record[f'pct_{a}']):.2f}",
            f"{float(record[f'pct_{b}']):.2f}",
            str(record["n_subjects"]),
        )
    console.print(table)


#: The keywords of :func:`gasp.probe_words` given as options of their own (their types
#: and defaults are the function's).
_KEYWORDS = {
    "group_a": "First group label (e.g. W or F).",
    "group_b": "Second group label (e.g. M).",
    "group_column": "Column holding the group label.",
    "embeddings": "Word embeddings: minilm, glove or a KeyedVectors file.",
    "k": "Fix the number of clusters.",
    "k_max": "Largest k of the silhouette grid.",
    "k_step": "Step of the silhouette grid.",
    "k_rule": "max: best silhouette (default); paper (alias gap): largest silhouette fall to "
    "the next k; stability: most reproducible k over 80% word subsamples.",
    "n_init": "k-means++ runs per k; the best (lowest inertia) is kept.",
    "seed": "Seed of k-means and the silhouette sample.",
    "min_subjects": "Subjects a kept cluster needs.",
    "min_ratio": "Prevalence ratio a kept cluster needs.",
    "min_zipf": "English Zipf frequency a word needs.",
}


@app.command(name="probe")
@with_keywords(gasp.probe_words, _KEYWORDS)
def probe_command(
    file: Annotated[
        Path,
        typer.Argument(
            help="Table of generations (CSV, TSV, Parquet, JSONL, JSON) or an audit results folder."
        ),
    ],
    text_column: TextColumnOption = "text",
    subject_column: Annotated[
        list[str] | None,
        typer.Option(help="Column(s) naming the subject within which the groups are compared."),
    ] = None,
    unit_column: Annotated[
        list[str] | None,
        typer.Option(help="Further column(s) splitting each subject (must not name the group)."),
    ] = None,
    model_column: Annotated[
        str | None, typer.Option(help="Column naming the model (default: 'model' when present).")
    ] = None,
    method: Annotated[
        MarkedWordsMethod,
        typer.Option(help="calibrated or plain (alias marked) Marked Words."),
    ] = MarkedWordsMethod.calibrated,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Output folder (default: <FILE>.probe beside the file)."),
    ] = None,
    **keywords: Any,
) -> None:
    """Cluster the significant words of two groups and measure each cluster's prevalence."""
    console = Console()
    found = gasp.probe_words(
        file,
        text_column=text_column,
        subject_columns=subject_column or (),
        unit_columns=unit_column or (),
        model_column=model_column,
        method="calibrated" if method.calibrated_words else "plain",
        out=out,
        **keywords,
    )
    if found.result is None:
        console.print(found.summary)
        console.print(f"Probe tables added to {file}")
        return
    _print_kept(found.result, console)
    console.print(
        f"Wrote {len(found.written)} files to {found.folder} "
        f"(k = {found.result.k}; {found.excluded_subjects} subject(s) excluded)"
    )
