"""``gasp probe``: cluster the significant words of two groups into patterns (seed ``000`` §5.3).

``gasp probe FILE`` reads a table of generations, finds the words significant for
group A against group B (and B against A) within each subject, clusters them and
writes the prevalence of every cluster (Figure 5), the silhouette curve (Figure 8),
the words and a small HTML page. ``gasp probe RUN.results`` adds the Probe tables to
the results folder of an audit (from its marked-words table).
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from gasp.cli._app import app
from gasp.errors import DataError

if TYPE_CHECKING:
    from gasp.probe import ProbeResult


class MethodChoice(StrEnum):
    """How the significant words are found."""

    calibrated = "calibrated"
    marked = "marked"


class KRuleChoice(StrEnum):
    """How k is chosen: from the silhouette curve, or by stability across word subsamples."""

    max = "max"
    paper = "paper"
    gap = "gap"
    stability = "stability"


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


def _write(result: ProbeResult, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "probe_clusters.csv": result.clusters,
        "probe_silhouette.csv": result.silhouette,
        "probe_words.csv": result.words,
        "probe_coverage.csv": result.coverage,
    }
    written = []
    for name, table in files.items():
        table.to_csv(out / name, index=False)
        written.append(out / name)
    return written


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
    text_column: Annotated[str, typer.Option(help="Column holding the text.")] = "text",
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
        MethodChoice, typer.Option(help="Calibrated Marked Words or plain Marked Words.")
    ] = MethodChoice.calibrated,
    embeddings: Annotated[
        str, typer.Option(help="Word embeddings: minilm, glove or a KeyedVectors file.")
    ] = "minilm",
    k: Annotated[int | None, typer.Option(help="Fix the number of clusters.")] = None,
    k_max: Annotated[int, typer.Option(help="Largest k of the silhouette grid.")] = 60,
    k_step: Annotated[int, typer.Option(help="Step of the silhouette grid.")] = 1,
    k_rule: Annotated[
        KRuleChoice,
        typer.Option(
            help="max: best silhouette (default); paper (alias gap): largest silhouette fall "
            "to the next k; stability: most reproducible k over 80% word subsamples."
        ),
    ] = KRuleChoice.max,
    n_init: Annotated[
        int, typer.Option(help="k-means++ runs per k; the best (lowest inertia) is kept.")
    ] = 5,
    seed: Annotated[int, typer.Option(help="Seed of k-means and the silhouette sample.")] = 0,
    min_subjects: Annotated[int, typer.Option(help="Subjects a kept cluster needs.")] = 3,
    min_ratio: Annotated[float, typer.Option(help="Prevalence ratio a kept cluster needs.")] = 1.5,
    min_zipf: Annotated[float, typer.Option(help="English Zipf frequency a word needs.")] = 1.0,
    out: Annotated[
        Path | None, typer.Option(help="Output folder (default: <FILE>.probe beside the file).")
    ] = None,
) -> None:
    """Cluster the significant words of two groups and measure each cluster's prevalence."""
    import pandas as pd

    from gasp.io import read_generations
    from gasp.probe import (
        ClusteringConfig,
        GenerationColumns,
        PrevalenceConfig,
        ProbeConfig,
        WordFilterConfig,
        probe_words,
        significant_words,
    )
    from gasp.report import probe_page
    from gasp.results import AuditResults, build_example_index
    from gasp.studies.more_of_the_same.probe import add_probe_tables

    console = Console()
    config = ProbeConfig(
        filter=WordFilterConfig(min_zipf=min_zipf),
        clustering=ClusteringConfig(
            k=k, k_max=k_max, k_step=k_step, k_rule=k_rule.value, n_init=n_init
        ),
        prevalence=PrevalenceConfig(min_subjects=min_subjects, min_ratio=min_ratio),
    )
    if file.is_dir():
        results = AuditResults.load(file)
        result = add_probe_tables(
            results,
            group_a=group_a,
            group_b=group_b,
            embeddings=embeddings,
            k=k,
            seed=seed,
            config=config,
        )
        results.save(file)
        _print_kept(result, console)
        console.print(f"Probe tables added to {file}")
        return
    subjects = [*(subject_column or []), *(unit_column or [])]
    wanted = [group_column, *subjects] + ([model_column] if model_column else [])
    generations = read_generations(file, text_column, wanted)
    if model_column is None and "model" in generations.columns:
        model_column = "model"
    found = significant_words(
        generations,
        group_a=group_a,
        group_b=group_b,
        columns=GenerationColumns(
            text=text_column,
            group=group_column,
            subject_columns=tuple(subjects),
            model_column=model_column,
        ),
        method=method.value,
    )
    if found.words.empty:
        raise DataError("no word is significant for either group in any subject")
    result = probe_words(
        found.words,
        group_a=group_a,
        group_b=group_b,
        embeddings=embeddings,
        seed=seed,
        config=config,
    )
    folder = out if out is not None else file.with_name(file.name + ".probe")
    written = _write(result, folder)
    found.words.to_csv(folder / "significant_words.csv", index=False)
    found.excluded.to_csv(folder / "excluded_subjects.csv", index=False)
    samples = pd.DataFrame({"text": generations[text_column].astype(str)})
    if subjects:
        samples["subject"] = generations[subjects].astype(str).agg(" | ".join, axis=1)
    kept = result.kept_clusters()
    ids = (kept if not kept.empty else result.clusters)["cluster"].unique()
    shown = result.assignments.loc[result.assignments["cluster"].isin(ids), "word"]
    examples = build_example_index(samples, shown.astype(str).tolist(), seed=seed)
    page = folder / "probe.html"
    page.write_text(probe_page(result, examples), encoding="utf-8")
    _print_kept(result, console)
    console.print(
        f"Wrote {len(written) + 3} files to {folder} "
        f"(k = {result.k}; {len(found.excluded)} subject(s) excluded)"
    )
