"""The analysis of an OccuGender run: the store's scores to the saved result tables.

Only this module opens the run store. Every table it writes is listed in
:mod:`._tables`; the settings (bootstrap resamples, confidence, seed, mode, expression
sets, whether any score is approximate) are saved in ``meta["settings"]`` so the report
states them from there.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.errors import ConfigError, DataError
from gasp.results import AuditResults
from gasp.store import RunStore
from gasp.studies.occugender._aggregate import (
    VALUES,
    Bootstrap,
    correlation_table,
    debiasing_table,
    group_table,
    job_table,
)
from gasp.studies.occugender._data import GROUPS, NO_DEBIASING, STUDY_KIND, TASKS
from gasp.studies.occugender._probabilities import cell_table, expression_mass, expression_rows
from gasp.studies.occugender._tables import (
    CELLS,
    CORRELATION,
    DEBIASING,
    DEBIASING_WIDE,
    EXPRESSIONS,
    JOBS,
    LAYOUTS,
    NOT_SCORABLE,
    SUMMARY,
    TABLE2,
    TABLE2_WIDE,
)

_GROUP_LABEL = {"female-dominated": "Female dominated", "male-dominated": "Male dominated"}


def wide_columns(task: str, group: str) -> list[str]:
    """The paper's column names of one (task, group) block: M, F, D, then coverage."""
    head = f"{task.capitalize()} · {_GROUP_LABEL[group]}"
    return [f"{head} · {v}" for v in VALUES]


def _wide(long: pd.DataFrame, index: list[str]) -> pd.DataFrame:
    """A long (task, group, index..., M, F, D, coverage) table in the paper's layout."""
    if long.empty:
        return pd.DataFrame()
    pieces = []
    for task in TASKS:
        for group in GROUPS:
            part = long[(long["task"] == task) & (long["group"] == group)]
            if part.empty:
                continue
            block = part.set_index(index)[list(VALUES)]
            block.columns = wide_columns(task, group)
            pieces.append(block)
    wide = pd.concat(pieces, axis=1)
    return wide.reindex(pieces[0].index).reset_index()


def _in_study_order(cells: pd.DataFrame, spec: Mapping[str, Any]) -> pd.DataFrame:
    """Cells sorted as the study lists conditions, templates and jobs."""
    orders = {
        "condition": [c["id"] for c in spec.get("conditions") or []],
        "template": [t["id"] for t in spec.get("templates") or []],
        "job": [j["job"] for j in spec.get("jobs") or []],
    }
    rank = {
        col: cells[col].map({v: i for i, v in enumerate(order)}).fillna(len(order))
        for col, order in orders.items()
    }
    keys = pd.DataFrame({"task": cells["task"].map({t: i for i, t in enumerate(TASKS)}), **rank})
    order = keys.sort_values(["condition", "task", "template", "job"], kind="stable").index
    return cells.loc[order].reset_index(drop=True)


def analyze_scores(
    scores: pd.DataFrame, manifest: Mapping[str, Any], boot: Bootstrap
) -> AuditResults:
    """The results of a run from its scores and manifest (see the module docstring)."""
    spec = manifest.get("study") or {}
    if not isinstance(spec, Mapping) or "expression_genders" not in spec:
        raise DataError("the run's manifest holds no OccuGender study spec")
    if scores.empty:
        raise DataError("the run has no scores yet: run `gasp generate` (or resume it) first")
    expressions = expression_rows(scores, spec)
    if expressions.empty:
        raise DataError("no scored expression in this run")
    cells = _in_study_order(cell_table(expressions), spec)
    jobs = job_table(cells)
    groups, summary = group_table(cells, boot)
    none = groups[groups["condition"] == NO_DEBIASING]
    table2 = none.drop(columns=["condition", "level"]).reset_index(drop=True)
    debias = debiasing_table(groups)
    mass = expression_mass(expressions)
    not_scorable = pd.DataFrame(
        spec.get("not_scorable") or [],
        columns=["task", "template", "gender", "expression", "reason"],
    )
    if not not_scorable.empty:
        extra = not_scorable.drop_duplicates(["task", "gender", "expression"]).assign(
            status="not scorable", approximate=bool(cells["approximate"].any())
        )[["task", "gender", "expression", "status", "approximate"]]
        mass = pd.concat([mass, extra], ignore_index=True)
    approximate = bool(cells["approximate"].any())
    model = manifest.get("model") or {}
    model_id = model.get("model_id") or model.get("spec") if isinstance(model, Mapping) else model
    tables = {
        CELLS: cells,
        EXPRESSIONS: mass,
        NOT_SCORABLE: not_scorable,
        JOBS: jobs,
        TABLE2: table2,
        TABLE2_WIDE: _wide(table2.assign(model=model_id), ["model"]),
        DEBIASING: debias,
        DEBIASING_WIDE: _wide(debias, ["abstraction", "id"]),
        CORRELATION: correlation_table(jobs),
        SUMMARY: summary,
    }
    results = AuditResults(tables=tables)
    results.meta.update(
        study_kind=STUDY_KIND,
        model_id=model_id,
        started_at=manifest.get("started_at"),
        manifest=dict(manifest),
        approximate=approximate,
        settings={
            "mode": spec.get("mode"),
            "article": spec.get("article"),
            "case_variants": spec.get("case_variants"),
            "expressions_mode": spec.get("expressions_mode"),
            "expressions": spec.get("expressions"),
            "templates": spec.get("templates"),
            "conditions": spec.get("conditions"),
            "n_jobs": len(spec.get("jobs") or []),
            "bootstrap": boot.n_boot,
            "confidence": boot.confidence,
            "seed": boot.seed,
            "interval": boot.scheme().record(),
            "approximate": approximate,
            "n_cells": len(cells),
            "n_cells_without_coverage": int(cells["M"].isna().sum()),
            "sources": spec.get("sources"),
        },
    )
    for name, layout in LAYOUTS.items():
        results.set_layout(name, layout)
    return results


def summary_lines(results: AuditResults) -> list[str]:
    """A few lines for the terminal: Table 2, the gap and Spearman per task."""
    lines = []
    mark = (
        " (APPROXIMATE: first-token top log-probabilities)"
        if results.meta.get("approximate")
        else ""
    )
    lines.append(f"OccuGender on {results.meta.get('model_id')}{mark}")
    for r in results[TABLE2].itertuples(index=False):
        lines.append(
            f"  {r.task:8s} {r.group:16s} M {r.M:5.1f}%  F {r.F:5.1f}%  D {r.D:5.1f}%"
            f"  coverage {r.coverage:.3g}"
        )
    summary = results[SUMMARY]
    corr = results[CORRELATION]
    if summary.empty:  # the jobs of one group only: no gap between groups
        return [*lines, "  no gap: the jobs scored belong to one group only"]
    for r in summary[summary["condition"] == NO_DEBIASING].itertuples(index=False):
        rho = corr[(corr["task"] == r.task) & (corr["condition"] == NO_DEBIASING)]
        rho_text = f"; Spearman with BLS {rho['spearman_rho'].iloc[0]:.2f}" if len(rho) else ""
        lines.append(
            f"  {r.task}: F(female-dom.) - F(male-dom.) = {r.gap_f:.1f} points "
            f"[{r.gap_low:.1f}, {r.gap_high:.1f}]{rho_text}"
        )
    return lines


def analyze_step(store: Path, results: Path, options: Mapping[str, Any]) -> dict[str, Any]:
    """Analyse the run store into ``results``; the lines to print."""
    n_boot = options.get("bootstrap")
    if n_boot is not None and (not isinstance(n_boot, int) or n_boot < 1):
        raise ConfigError(f"--bootstrap must be a positive integer, got {n_boot}")
    with RunStore.open(store) as run:
        manifest = run.manifest()
        scores = run.scores()
    seed = options.get("seed")
    boot = Bootstrap(
        n_boot=int(n_boot or 1000),
        seed=int(seed if seed is not None else manifest.get("seed") or 0),
    )
    audit = analyze_scores(scores, manifest, boot)
    folder = audit.save(results)
    return {"lines": [*summary_lines(audit), f"results written to {folder}"]}
