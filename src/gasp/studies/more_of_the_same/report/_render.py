"""Render the report of a stored run from its saved results (never calls a model).

The report reads the results folder only (tables, settings, examples and the
manifest the analysis saved); it never opens the run store. Comparison results
(``meta["kind"] == "comparison"``) get the comparison report.
"""

from __future__ import annotations

from pathlib import Path

from gasp.io import locate_run
from gasp.report import ReportOptions
from gasp.results import AuditResults
from gasp.studies.more_of_the_same.report._audit_report import render_audit_report
from gasp.studies.more_of_the_same.report._comparison_report import render_comparison_report


def render_run_report(
    path: str | Path, out_dir: str | Path | None = None, options: ReportOptions | None = None
) -> Path:
    """Re-render the report of the run (or comparison) at ``path`` from its saved results.

    ``path`` is a run folder, a run store or a results folder (see :func:`gasp.io.locate_run`).
    """
    paths = locate_run(path)
    results = AuditResults.load(paths.results)
    out = Path(out_dir) if out_dir is not None else paths.report
    if results.meta.get("kind") == "comparison":
        return render_comparison_report(results, out, options)
    return render_audit_report(results, out, options=options)
