"""``gasp probe``: cluster the significant words of two groups into patterns (seed ``000`` §5.3).

``gasp probe FILE`` probes a table of generations (:func:`gasp.pipeline.probe_table`);
``gasp probe RUN.results`` adds the probe's tables to an analysed run's results
(:func:`gasp.pipeline.probe_results`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from gasp.cli._app import app
from gasp.cli._names import MarkedWordsMethod, TextColumnOption

if TYPE_CHECKING:
    from gasp.probe import ProbeResult


def _print_kept(result: ProbeResult, console: Console) -> None:
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
    from gasp.pipeline import probe_results, probe_table
    from gasp.probe import (
        ClusteringConfig,
        GenerationColumns,
        PrevalenceConfig,
        ProbeConfig,
        WordFilterConfig,
    )

    console = Console()
    grid: dict[str, Any] = {"k": k, "k_max": k_max, "k_step": k_step, "k_rule": k_rule}
    config = ProbeConfig(
        filter=WordFilterConfig(min_zipf=min_zipf),
        clustering=ClusteringConfig(**grid, n_init=n_init),  # k_rule checked there
        prevalence=PrevalenceConfig(min_subjects=min_subjects, min_ratio=min_ratio),
    )
    if file.is_dir():
        given = {"group_a": group_a, "group_b": group_b, "embeddings": embeddings}
        line = probe_results(file, {**given, "k": k, "seed": seed, "config": config})
        console.print(line)
        console.print(f"Probe tables added to {file}")
        return
    columns = GenerationColumns(
        text=text_column,
        group=group_column,
        subject_columns=(*(subject_column or []), *(unit_column or [])),
        model_column=model_column,
    )
    outcome = probe_table(
        file,
        group_a=group_a,
        group_b=group_b,
        columns=columns,
        method="calibrated" if method.calibrated_words else "marked",
        embeddings=embeddings,
        seed=seed,
        config=config,
        out=out,
    )
    _print_kept(outcome.result, console)
    console.print(
        f"Wrote {len(outcome.written)} files to {outcome.folder} "
        f"(k = {outcome.result.k}; {outcome.excluded_subjects} subject(s) excluded)"
    )
