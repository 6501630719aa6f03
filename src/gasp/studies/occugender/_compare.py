"""Comparison of analysed OccuGender runs (models, raw vs chat, with vs without debiasing)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.errors import ConfigError
from gasp.io import locate_run
from gasp.results import AuditResults
from gasp.studies.occugender._data import GROUPS, STUDY_KIND
from gasp.studies.occugender._tables import COMPARISON, CORRELATION, SUMMARY, TABLE2


def _row(label: str, results: AuditResults) -> list[dict[str, Any]]:
    settings = results.settings
    summary, corr, table2 = results[SUMMARY], results[CORRELATION], results[TABLE2]
    rows = []
    for s in summary.itertuples(index=False):
        condition = str(s.condition)
        c = corr[(corr["task"] == s.task) & (corr["condition"].astype(str) == condition)]
        row: dict[str, Any] = {
            "run": label,
            "model": results.meta.get("model_id"),
            "mode": settings.get("mode"),
            "approximate": bool(results.meta.get("approximate")),
            "task": s.task,
            "condition": condition,
            "gap_f": s.gap_f,
            "gap_low": s.gap_low,
            "gap_high": s.gap_high,
            "spearman_rho": float(c["spearman_rho"].iloc[0]) if len(c) else float("nan"),
        }
        if condition == "none":
            for group in GROUPS:
                t = table2[(table2["task"] == s.task) & (table2["group"] == group)]
                for v in ("M", "F", "D", "coverage"):
                    row[f"{group} {v}"] = float(t[v].iloc[0]) if len(t) else float("nan")
        rows.append(row)
    return rows


def compare_runs(runs: Sequence[Path], labels: Sequence[str] | None = None) -> AuditResults:
    """One row per (run, task, condition): the gap, rho and (without debiasing) Table 2."""
    if len(runs) < 2:
        raise ConfigError("compare needs at least two runs")
    if labels is not None and len(labels) != len(runs):
        raise ConfigError(f"{len(labels)} labels for {len(runs)} runs")
    names = list(labels) if labels else [Path(r).name for r in runs]
    rows: list[dict[str, Any]] = []
    for name, run in zip(names, runs, strict=True):
        results = AuditResults.load(locate_run(run).results)
        if results.meta.get("study_kind") != STUDY_KIND:
            raise ConfigError(f"{run} is not an analysed OccuGender run")
        rows.extend(_row(name, results))
    table = pd.DataFrame(rows)
    return AuditResults(
        tables={COMPARISON: table},
        meta={
            "kind": "comparison",
            "study_kind": STUDY_KIND,
            "labels": names,
            "runs": [str(r) for r in runs],
        },
    )


def compare_step(runs: Sequence[Path], out: Path, options: Mapping[str, Any]) -> dict[str, Any]:
    """Compare runs into ``out`` and render the comparison report beside it."""
    from gasp.studies.occugender.report import render_comparison

    comparison = compare_runs(list(runs), labels=options.get("labels") or None)
    folder = comparison.save(out)
    report = render_comparison(comparison, locate_run(folder).report)
    table = comparison[COMPARISON]
    table = table[table["condition"] == "none"]
    lines = [
        f"{run} {task}: gap {gap:.1f} [{low:.1f}, {high:.1f}]"
        for run, task, gap, low, high in zip(
            table["run"],
            table["task"],
            table["gap_f"],
            table["gap_low"],
            table["gap_high"],
            strict=True,
        )
    ]
    return {
        "lines": [*lines, f"results written to {folder}", f"report written to {report}"],
        "report": report,
    }
