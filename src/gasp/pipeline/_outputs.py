"""A run's outputs re-made from what it saved: its report, and its store exported."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from gasp.errors import DataError
from gasp.pipeline._checks import check_writable_folder, report_from_results
from gasp.pipeline._incomplete import note_report
from gasp.pipeline._sources import study_type_of_results


def report_run(run: Path, out: Path | None = None, *, examples_per_word: int = 50) -> Path:
    """Re-render the HTML report of ``run`` (a run folder, store or results folder) from
    its saved results into ``out`` (default: the run's report folder); its path."""
    from gasp.errors import ConfigError
    from gasp.io import locate_run

    if examples_per_word < 1:
        raise ConfigError(f"--examples-per-word must be at least 1, got {examples_per_word}")
    paths = locate_run(run)
    study = study_type_of_results(paths.results)
    note_report(paths.store)
    options = {"examples_per_word": examples_per_word}
    target = out if out is not None else paths.report
    check_writable_folder(
        target, "report folder", f"give a writable report folder with `gasp report {run} --out DIR`"
    )
    return report_from_results(lambda: study.report(paths.results, target, options), paths.results)


@dataclasses.dataclass(frozen=True)
class ExportOutcome:
    """The file :func:`export_run` wrote, or (None) the rows each table holds."""

    path: Path | None
    table: str
    counts: dict[str, int]


def export_run(
    run: Path, out: Path, *, table: str | None = None, include_errors: bool = True
) -> ExportOutcome:
    """Export the samples, scores or items of ``run`` (a run folder or store) to ``out``
    (Parquet, CSV or JSON Lines by its extension). When the table is empty nothing is
    written and the outcome counts the rows of every table instead."""
    from gasp.io import locate_run
    from gasp.store import RunStore, default_table, export

    if not run.exists():
        raise DataError(f"no run store at {run}")
    store = locate_run(run).store
    if store is None:
        raise DataError(f"no run store at {run}; give a run folder or a .sqlite run store")
    path = export(store, out, include_errors=include_errors, table=table)
    if path is not None:
        return ExportOutcome(path, table or "", {})
    with RunStore.open(store) as opened:
        table = table or default_table(opened.manifest() if opened.has_manifest() else {})
        counts = {
            "samples": opened.count_samples(include_errors=include_errors),
            "scores": opened.count_scores(include_errors=include_errors),
            "items": len(opened.item_records()),
        }
    return ExportOutcome(None, table, counts)


__all__ = ["ExportOutcome", "export_run", "report_run"]
