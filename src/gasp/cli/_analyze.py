"""``gasp analyze`` and ``gasp compare``: analyse runs and compare models."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from gasp.analysis import analyze_run, compare_runs, default_results_dir
from gasp.cli._app import app
from gasp.report import locate_run, render_comparison_report
from gasp.results import (
    CAPTURE_RATE,
    EXCLUDED,
    MODEL_COMPARISON,
    REPRESENTATION,
    SRB_SCORES,
    SRB_TEST,
    AuditResults,
)


def _fmt(value: object, digits: int = 3) -> str:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return str(value)
    if np.isnan(number):
        return "-"
    if number != 0 and abs(number) < 10 ** (-digits):
        return f"{number:.2e}"
    return f"{number:.{digits}f}"


def _table(title: str, columns: Sequence[str], rows: Iterable[Sequence[str]]) -> Table:
    """A rich table titled ``title`` with these columns and rows."""
    table = Table(title=title)
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    return table


def _summary(results: AuditResults, console: Console) -> None:
    """Print the headline figures of an audit."""
    meta = results.meta
    console.print(
        f"model {meta.get('model_id')}: {meta.get('n_valid')} valid of "
        f"{meta.get('n_samples')} samples, {meta.get('n_subjects')} subjects"
    )
    cap = results.get(CAPTURE_RATE)
    if cap is not None and not cap.empty:
        row = cap[(cap["condition"] == "unspecified") & (cap["template"] == "all")]
        if not row.empty:
            r = row.iloc[0]
            console.print(
                f"association capture rate (unspecified): {100 * r['capture_rate']:.1f}% "
                f"(unassigned {100 * r['unassigned_share']:.1f}%)"
            )
    rep = results.get(REPRESENTATION)
    if rep is not None and not rep.empty:
        pooled = rep[rep["template"] == "all"]
        above = pooled["pct_female_minus_bls"] > 0
        known = pooled["bls_pct_female"].notna()
        line = (
            f"mean share of women {100 * pooled['share_F'].mean():.1f}% "
            f"(unassigned {100 * pooled['share_unassigned'].mean():.1f}%)"
        )
        if known.any():
            line += (
                f"; above the BLS figure in {int((above & known).sum())} of "
                f"{int(known.sum())} subjects"
            )
        console.print(line)
    srb = results.get(SRB_SCORES)
    excluded = results.get(EXCLUDED)
    n_excluded = 0 if excluded is None else len(excluded)
    if srb is not None:
        console.print(
            f"subjects in the SRB analysis: {srb['subject'].nunique()} "
            f"({n_excluded} excluded, see {EXCLUDED}.csv)"
        )
    tests = results.get(SRB_TEST)
    if tests is not None and not tests.empty:
        rows = [
            (
                str(r["template"]),
                str(r["test"]),
                _fmt(r["statistic"]),
                _fmt(r["p_value"], 4),
                _fmt(r["mean_F"]),
                _fmt(r["mean_M"]),
                str(r["n_subjects_F"]),
            )
            for _, r in tests.iterrows()
        ]
        console.print(
            _table(
                "SRB: associated women vs associated men (Table 13)",
                ("template", "test", "statistic", "p-value", "mean F", "mean M", "n"),
                rows,
            )
        )


@app.command()
def analyze(
    run: Annotated[Path, typer.Argument(help="The run store to analyse.")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Results folder (default: RUN.results beside the run)."),
    ] = None,
    min_samples: Annotated[
        int | None,
        typer.Option(help="Generations each associated gender needs (default: the study's n)."),
    ] = None,
    min_share: Annotated[
        float | None, typer.Option(help="Share of unspecified generations each gender needs.")
    ] = None,
    per_template: Annotated[
        bool, typer.Option("--per-template", help="Marked words and SRB per template.")
    ] = False,
    threshold: Annotated[
        float | None, typer.Option(help="z-score a marked word must exceed (default 1.96).")
    ] = None,
    fdr: Annotated[
        float | None, typer.Option(help="Benjamini-Hochberg FDR level instead of a z threshold.")
    ] = None,
    plain: Annotated[
        bool, typer.Option("--plain", help="Plain Marked Words instead of calibrated.")
    ] = False,
    embeddings: Annotated[
        str | None, typer.Option(help="Word embeddings for SRB (default glove).")
    ] = None,
    bootstrap: Annotated[
        int | None, typer.Option(help="Bootstrap resamples per SRB score.")
    ] = None,
    permutations: Annotated[int | None, typer.Option(help="Label shuffles of the test.")] = None,
    seed: Annotated[
        int | None, typer.Option(help="Seed of the resampling (default: the run's seed).")
    ] = None,
    examples_per_word: Annotated[
        int | None, typer.Option(help="Example generations saved per significant word.")
    ] = None,
) -> None:
    """Analyse a run: who is represented, how (marked words, SRB), word tables.

    Options left unset take the values ``gasp run`` uses for this run (the study's n,
    the run's seed), so re-analysing a run reproduces its results.
    """
    overrides = {
        "min_samples": min_samples,
        "min_share": min_share,
        "pool_templates": False if per_template else None,
        "threshold": threshold,
        "fdr_alpha": fdr,
        "calibrated": False if plain else None,
        "embeddings": embeddings,
        "n_bootstrap": bootstrap,
        "n_permutations": permutations,
        "seed": seed,
        "examples_per_word": examples_per_word,
    }
    results = analyze_run(run, overrides=overrides)
    folder = results.save(out if out is not None else default_results_dir(run))
    console = Console()
    _summary(results, console)
    console.print(f"results written to {folder}")


@app.command()
def compare(
    runs: Annotated[list[Path], typer.Argument(help="Two or more run stores or results folders.")],
    out: Annotated[
        Path,
        typer.Option(
            "--out", help="Folder for the comparison tables (the report goes to OUT.report)."
        ),
    ],
    label: Annotated[
        list[str] | None, typer.Option("--label", help="Name of each run, in order.")
    ] = None,
) -> None:
    """Compare the SRB scores of runs of one study (Table 14, Figure 4) and draw its report."""
    results = compare_runs(runs, labels=label or None)
    folder = results.save(out)
    report = render_comparison_report(results, locate_run(folder).report)
    console = Console()
    rows = [
        (
            str(r["template"]),
            str(r["gender"]),
            str(r["model_a"]),
            str(r["model_b"]),
            _fmt(r["statistic"]),
            _fmt(r["p_value"], 4),
        )
        for _, r in results[MODEL_COMPARISON].iterrows()
    ]
    console.print(
        _table(
            "SRB scores between models (Welch's t-test)",
            ("template", "gender", "model a", "model b", "t", "p-value"),
            rows,
        )
    )
    console.print(f"results written to {folder}")
    console.print(f"report written to {report}")


__all__: list[str] = ["analyze", "compare"]
