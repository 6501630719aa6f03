"""A run's headline metrics, read from its saved results by its study's declarations.

Only the tables a metric asks for are read (a run's other tables can be large), the
same way :meth:`gasp.results.AuditResults.load` reads each one.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.errors import GaspError


class _Tables(dict[str, pd.DataFrame]):
    """The saved tables of a results folder, each read from its CSV when first asked for."""

    def __init__(self, folder: Path, names: list[str]) -> None:
        super().__init__()
        self._folder, self._names = folder, list(names)

    def _read(self, name: str) -> pd.DataFrame:
        if not dict.__contains__(self, name):
            try:
                frame = pd.read_csv(self._folder / f"{name}.csv", keep_default_na=True)
            except pd.errors.EmptyDataError:
                frame = pd.DataFrame()
            dict.__setitem__(self, name, frame)
        return dict.__getitem__(self, name)

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name not in self._names:
            raise KeyError(name)
        return self._read(name)

    def get(self, name: str, default: Any = None) -> Any:
        return self._read(name) if name in self._names else default

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def keys(self) -> Any:  # the names, as a plain dict would give them
        return dict.fromkeys(self._names).keys()


def _saved(results: Path) -> Any:
    from gasp.results import INDEX_FILE, AuditResults

    index = json.loads((results / INDEX_FILE).read_text(encoding="utf-8"))
    names = [str(n) for n in index.get("tables", [])]
    meta = index.get("meta") if isinstance(index.get("meta"), dict) else {}
    return AuditResults(tables=_Tables(results, names), meta=dict(meta))


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
    from gasp.studies import get_study_type

    try:
        metrics = get_study_type(study).headline_metrics()
        saved = _saved(results)
    except (GaspError, OSError, ValueError, AttributeError):
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
