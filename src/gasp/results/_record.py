"""A run's headline metrics as rows, and saved with its results (``results.json``).

:func:`headline_rows` reads every headline metric of a study from a run's saved
results (with the interval from the run's own units, or the sentence saying why there
is none); :func:`record_headline` writes those rows into the ``meta["headline"]`` of
the results' index, so ``results.json`` holds each value with its interval.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gasp.errors import DataError
from gasp.results._container import INDEX_FILE, AuditResults, _read_json, _write_json
from gasp.results._headline import HeadlineMetric

#: The key of ``meta`` holding the headline rows.
HEADLINE_KEY = "headline"
#: The fields of one headline row, in order (``RunResult.metrics`` has these columns).
HEADLINE_FIELDS = (
    "metric", "value", "ci_low", "ci_high", "interval_note", "n", "better", "unit",
    "excluded_share", "note", "meaning",
)  # fmt: skip


def _plain(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def headline_rows(
    metrics: Iterable[HeadlineMetric], results: AuditResults, *, json_ready: bool = False
) -> list[dict[str, Any]]:
    """One row per metric the run's results hold (a metric whose table this run lacks
    is left out); ``json_ready`` writes NaN as None."""
    rows = []
    for metric in metrics:
        try:
            reading = metric.reading(results)
        except DataError:
            continue  # a table this run does not have (a comparison, a skipped step)
        row: dict[str, Any] = {
            "metric": metric.name,
            "value": float(reading.value),
            "ci_low": float(reading.ci_low),
            "ci_high": float(reading.ci_high),
            "interval_note": reading.interval_note,
            "n": int(reading.n),
            "better": metric.better,
            "unit": metric.unit,
            "excluded_share": float(reading.excluded_share),
            "note": reading.note,
            "meaning": metric.meaning,
        }
        rows.append({k: _plain(v) for k, v in row.items()} if json_ready else row)
    return rows


def record_headline(folder: str | Path, metrics: Iterable[HeadlineMetric]) -> list[dict[str, Any]]:
    """Write the headline rows of the results in ``folder`` into its ``results.json``
    (``meta["headline"]``); return them."""
    path = Path(folder) / INDEX_FILE
    rows = headline_rows(metrics, AuditResults.load(folder), json_ready=True)
    index = _read_json(path, f"no audit results in {folder} (results.json is missing)")
    meta = index.get("meta")
    index["meta"] = {**(meta if isinstance(meta, dict) else {}), HEADLINE_KEY: rows}
    _write_json(path, index, indent=2)
    return rows


__all__ = ["HEADLINE_FIELDS", "HEADLINE_KEY", "headline_rows", "record_headline"]
