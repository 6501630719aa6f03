"""What the comparisons of paired-prompt runs and of narrative runs share: the
analysed runs they read, the label of each run, and the folder and report they write."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gasp.errors import ConfigError, DataError
from gasp.results import AuditResults


def comparison_runs(
    runs: Sequence[Path], options: Mapping[str, Any], *, kind: str, table: str, what: str
) -> tuple[list[AuditResults], list[str]]:
    """The analysed runs of a comparison (each of study ``kind`` with table ``table``,
    else a :class:`DataError` naming ``what`` it should hold) and their labels: the
    ``labels`` option (one per run), else each run's model, numbered where two agree."""
    from gasp.io import locate_run

    if len(runs) < 2:
        raise ConfigError("a comparison needs at least two runs")
    loaded = [AuditResults.load(locate_run(r).results) for r in runs]
    for path, audit in zip(runs, loaded, strict=True):
        if audit.meta.get("study_kind") != kind or audit.get(table) is None:
            raise DataError(f"{path} holds no analysed {what}")
    labels = list(options.get("labels") or [])
    if labels and len(labels) != len(loaded):
        raise ConfigError(f"give one --label per run ({len(loaded)}), got {len(labels)}")
    if not labels:
        labels = [str(a.meta.get("model_id") or f"run {i + 1}") for i, a in enumerate(loaded)]
    if len(set(labels)) != len(labels):
        labels = [f"{label} ({i + 1})" for i, label in enumerate(labels)]
    return loaded, labels


def comparison_meta(
    kind: str, labels: Sequence[str], runs: Sequence[Path], **more: Any
) -> dict[str, Any]:
    """The meta of a comparison of study ``kind``: its labels, its runs, then ``more``."""
    return {
        "study_kind": kind,
        "kind": "comparison",
        "labels": list(labels),
        "runs": [str(r) for r in runs],
        **more,
    }


def write_comparison(comparison: AuditResults, out: Path, lines: list[str]) -> dict[str, Any]:
    """Save ``comparison`` to ``out`` and render its report inside; the lines to print
    (``lines`` and where both went) and the report's path."""
    from gasp.io import locate_run
    from gasp.studies.pronoun_pairs.report import render

    folder = comparison.save(out)
    report = render(comparison, locate_run(folder).report)
    return {
        "lines": [*lines, f"results written to {folder}", f"report written to {report}"],
        "report": report,
    }


__all__ = ["comparison_meta", "comparison_runs", "write_comparison"]
