"""A run's headline metrics, read from its saved results by its study's declarations."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from gasp.errors import GaspError


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def run_metrics(study: str | None, results: Path | None) -> list[dict[str, Any]]:
    """One row per headline metric of ``study`` (``metric``, ``value``, ``ci_low``,
    ``ci_high``, ``n``, ``better``, ``unit``); empty where the study is unknown or its
    results cannot be read (the run's page says why)."""
    if not study or results is None:
        return []
    from gasp.results import AuditResults
    from gasp.studies import get_study_type

    try:
        metrics = get_study_type(study).headline_metrics()
        saved = AuditResults.load(results)
    except (GaspError, OSError, ValueError):
        return []
    rows = []
    for metric in metrics:
        try:
            reading = metric.reading(saved)
        except (GaspError, ValueError, KeyError):
            continue
        rows.append(
            {
                "study": study,
                "metric": metric.name,
                "value": _number(reading.value),
                "ci_low": _number(reading.ci_low),
                "ci_high": _number(reading.ci_high),
                "n": reading.n,
                "better": metric.better,
                "unit": metric.unit,
            }
        )
    return rows


__all__ = ["run_metrics"]
