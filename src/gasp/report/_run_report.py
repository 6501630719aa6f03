"""Render the report of a stored run from its saved results (never calls a model).

A run is found from any of: a run folder made by ``gasp run`` (``run.sqlite``,
``results/``, ``report/``), a run store file (results in ``<store>.results``
beside it), or a results folder (``results.json``). Comparison results (``meta
["kind"] == "comparison"``) get the comparison report.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.analysis._results import AuditResults
from gasp.errors import DataError
from gasp.report._audit_report import ReportOptions, render_audit_report
from gasp.report._comparison_report import render_comparison_report

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


def load_run_inputs(store: Path | None) -> tuple[pd.DataFrame | None, dict[str, Any] | None]:
    """The generations (errors left out) and the manifest of the run store, if there is one."""
    if store is None or not store.is_file():
        return None, None
    from gasp.store import RunStore

    with RunStore.open(store) as run:
        samples = run.samples()
        manifest = run.manifest() if run.has_manifest() else None
    return samples, manifest


def render_run_report(
    path: str | Path, out_dir: str | Path | None = None, options: ReportOptions | None = None
) -> Path:
    """Re-render the report of the run (or comparison) at ``path`` from its saved results."""
    paths = locate_run(path)
    results = AuditResults.load(paths.results)
    out = Path(out_dir) if out_dir is not None else paths.report
    if results.meta.get("kind") == "comparison":
        return render_comparison_report(results, out, options)
    samples, manifest = load_run_inputs(paths.store)
    return render_audit_report(results, out, samples=samples, manifest=manifest, options=options)
