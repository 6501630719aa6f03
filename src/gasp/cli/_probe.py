"""``gasp probe``: cluster the significant words of two groups into patterns (seed ``000`` §5.3).

``gasp probe FILE`` probes a table of generations; ``gasp probe RUN.results`` adds the
probe's tables to an analysed run's results (both :func:`gasp.probe_words`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

import gasp
from gasp.cli._app import app
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


@app.command(name="probe")
def probe_command(
    file: Annotated[
        Path,
        typer.Argument(
            help="Table of generations (CSV, TSV, Parquet, JSONL, JSON) or an audit results folder."
        ),
    ],
    group_a: Annotated[str, typer.Option(help="First group label (e.g. W or F).")] = "F",
    group_b: Annotated[str, typer.Option(help="Second group label (e.g. M).")] = "M",
    text_column: TextColumnOption = "text",
    group_column: Annotated[str, typer.Option(help="Column holding the group label.")] = "gender",
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
    embeddings: Annotated[
        str, typer.Option(help="Word embeddings: minilm, glove or a KeyedVectors file.")
    ] = "minilm",
    k: Annotated[int | None, typer.Option(help="Fix the number of clusters.")] = None,
    k_max: Annotated[int, typer.Option(help="Largest k of the silhouette grid.")] = 60,
    k_step: Annotated[int, typer.Option(help="Step of the silhouette grid.")] = 1,
    k_rule: Annotated[
        str,
        typer.Option(
            help="max: best silhouette (default); paper (alias gap): largest silhouette fall "
            "to the next k; stability: most reproducible k over 80% word subsamples."
        ),
    ] = "max",
    n_init: Annotated[
        int, typer.Option(help="k-means++ runs per k; the best (lowest inertia) is kept.")
    ] = 5,
    seed: Annotated[int, typer.Option(help="Seed of k-means and the silhouette sample.")] = 0,
    min_subjects: Annotated[int, typer.Option(help="Subjects a kept cluster needs.")] = 3,
    min_ratio: Annotated[float, typer.Option(help="Prevalence ratio a kept cluster needs.")] = 1.5,
    min_zipf: Annotated[float, typer.Option(help="English Zipf frequency a word needs.")] = 1.0,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Output folder (default: <FILE>.probe beside the file)."),
    ] = None,
) -> None:
    """Cluster the significant words of two groups and measure each cluster's prevalence."""
    console = Console()
    found = gasp.probe_words(
        file,
        group_a=group_a,
        group_b=group_b,
        text_column=text_column,
        group_column=group_column,
        subject_columns=subject_column or (),
        unit_columns=unit_column or (),
        model_column=model_column,
        method="calibrated" if method.calibrated_words else "plain",
        embeddings=embeddings,
        k=k,
        k_max=k_max,
        k_step=k_step,
        k_rule=k_rule,
        n_init=n_init,
        seed=seed,
        min_subjects=min_subjects,
        min_ratio=min_ratio,
        min_zipf=min_zipf,
        out=out,
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
