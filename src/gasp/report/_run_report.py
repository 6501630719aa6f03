"""Render the report of a stored run from its saved results (never calls a model).

The report reads the results folder only (tables, settings, examples and the
manifest the analysis saved); it never opens the run store.


A run is found from any of: a run folder made by ``gasp run`` (``run.sqlite``,
``results/``, ``report/``), a run store file (results in ``<store>.results``
beside it), or a results folder (``results.json``). Comparison results (``meta
["kind"] == "comparison"``) get the comparison report.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gasp.errors import DataError
from gasp.report._audit_report import render_audit_report
from gasp.report._comparison_report import render_comparison_report
from gasp.report._options import ReportOptions
from gasp.results import AuditResults

STORE_FILE = "run.sqlite"
RESULTS_DIR = "results"
REPORT_DIR = "report"


@dataclass(frozen=True)
class RunPaths:
    """Where a run's store, results and report live."""

    store: Path | None
    results: Path
    report: Path


def run_folder_paths(folder: str | Path) -> RunPaths:
    """The layout of a run folder made by ``gasp run``."""
    root = Path(folder)
    return RunPaths(root / STORE_FILE, root / RESULTS_DIR, root / REPORT_DIR)


def locate_run(path: str | Path) -> RunPaths:
    """The store, results and report paths of the run at ``path`` (see module docstring)."""
    p = Path(path)
    if p.is_dir() and ((p / STORE_FILE).is_file() or (p / RESULTS_DIR).is_dir()):
        paths = run_folder_paths(p)
        store = paths.store if paths.store is not None and paths.store.is_file() else None
        return RunPaths(store, paths.results, paths.report)
    if p.is_dir() and (p / "results.json").is_file():
        store = (
            p.with_name(p.name.removesuffix(".results")) if p.name.endswith(".results") else None
        )
        if store is not None and not store.is_file():
            store = None
        return RunPaths(store, p, p.with_name(p.name.removesuffix(".results") + ".report"))
    if p.is_file():
        return RunPaths(p, p.with_name(p.name + ".results"), p.with_name(p.name + ".report"))
    raise DataError(f"no run at {p}: expected a run folder, a run store or a results folder")


def render_run_report(
    path: str | Path, out_dir: str | Path | None = None, options: ReportOptions | None = None
) -> Path:
    """Re-render the report of the run (or comparison) at ``path`` from its saved results."""
    paths = locate_run(path)
    results = AuditResults.load(paths.results)
    out = Path(out_dir) if out_dir is not None else paths.report
    if results.meta.get("kind") == "comparison":
        return render_comparison_report(results, out, options)
    return render_audit_report(results, out, options=options)
