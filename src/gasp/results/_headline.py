"""Headline metrics: what a study declares once so runs of it can be compared.

A :class:`HeadlineMetric` names one number of a study's saved results, says what it
means, its unit, which direction is better, where its value and interval come from
(the interval scheme named), its denominator and what it leaves out; its ``read``
function turns a run's :class:`~gasp.results.AuditResults` into a :class:`MetricReading`.
A reading carries the value and, for the difference tests between runs, either the
values per shared unit (jobs, occupations, pairs, stories ...) with the statistic
that makes the value from them, or the standard error (or counts) of an unpaired test.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from gasp.errors import DataError
from gasp.results._container import AuditResults

LOWER = "lower"
HIGHER = "higher"
CLOSER_TO_0 = "closer to 0"
CLOSER_TO_REFERENCE = "closer to reference"
#: A metric read beside others, with no better side of its own (a signed shift, say):
#: a significant difference "differs", never "better" or "worse".
NEITHER = "neither"
#: The directions a headline metric may declare.
DIRECTIONS = (LOWER, HIGHER, CLOSER_TO_0, CLOSER_TO_REFERENCE, NEITHER)

#: A statistic of the per-unit table giving the metric's value: it reads columns by name
#: (``units[column]``, array-like, one entry per unit) from a DataFrame or a mapping of
#: NumPy arrays (the audit resamples with the latter).
Statistic = Callable[[Any], float]


@dataclass(frozen=True)
class MetricReading:
    """One run's value of a headline metric, with what its difference tests need.

    ``units`` (one row per shared unit, the unit's key in ``unit_keys``) and
    ``statistic`` (the value from those rows) allow paired tests between runs with the
    same units; ``binary`` says every unit's value is 0/1 in column ``value`` and the
    statistic is their mean (McNemar on shared units). Without units, ``se`` gives an
    unpaired Wald test, and ``count``/``total`` a two-proportion or Poisson-rate test
    (``kind`` says which: ``"wald"``, ``"proportion"`` or ``"rate"``).
    """

    value: float
    ci_low: float = float("nan")
    ci_high: float = float("nan")
    n: int = 0
    excluded_share: float = float("nan")
    units: pd.DataFrame | None = None
    unit_keys: tuple[str, ...] = ()
    statistic: Statistic | None = None
    binary: bool = False
    se: float = float("nan")
    count: float = float("nan")
    total: float = float("nan")
    offset: float = 0.0
    kind: str = "wald"
    #: The reference of a ``closer to reference`` metric for this run (e.g. BLS share).
    reference: float = float("nan")
    note: str = ""
    #: Why the reading has no interval (empty when it has one): read by the page, the
    #: API's metrics and ``results.json`` in place of the bounds.
    interval_note: str = ""
    #: The range the value can take (for example ``(0, inf)`` for a mean of absolute
    #: values): an interval from the run's units is clipped to it (None: unbounded).
    bounds: tuple[float, float] | None = None

    @classmethod
    def proportion(cls, count: float, total: float) -> MetricReading:
        """``count`` of ``total`` as a share with its Wilson interval, read for a
        two-proportion test (NaN for a zero total)."""
        from gasp.stats import wilson_interval

        low, high = wilson_interval(count, total)
        value = count / total if total else float("nan")
        return cls(value, low, high, n=int(total), count=count, total=total, kind="proportion")


#: Reads one run's value of a metric from its saved results.
Reader = Callable[[AuditResults], MetricReading]


@dataclass(frozen=True)
class HeadlineMetric:
    """One headline metric of a study (see the module docstring)."""

    study: str
    name: str
    meaning: str
    unit: str
    better: str
    interval_scheme: str
    denominator: str
    leaves_out: str
    read: Reader
    #: What one unit of the paired tests is ("jobs", "he/she/they triples", ...).
    paired_over: str = ""
    #: A metric of the same study that can move this one without a better model: where
    #: its comparison "differs" or is "worse", this one's "better" reads "differs" (a
    #: gap between job groups shrinks when a model erases either gender, for example).
    guard: str = ""
    #: Standard deviation of the per-unit paired differences (in the metric's unit) that
    #: an audit plan assumes for a ``paired units`` metric where no pilot gives one.
    unit_sd: float | None = None
    #: The difference an audit sized by ``--detect`` plans to find in this metric when
    #: ``--detect`` names no metric of its study (at most one metric of a study has one).
    default_detect: float | None = None
    #: What an audit plan counts for this metric when the study's size counts coarser
    #: units than ``paired_over`` (empty: ``paired_over``): the plan sizes on these.
    planned_over: str = ""

    def __post_init__(self) -> None:
        if self.better not in DIRECTIONS:
            raise ValueError(f"metric {self.name}: better must be one of {DIRECTIONS}")

    def reading(self, results: AuditResults) -> MetricReading:
        """The metric read from ``results``, with its interval from the run's own units
        where the study saved none (or the reason there is none, see
        :func:`~gasp.results.with_interval`); a missing table is a :class:`DataError`."""
        from gasp.results._interval import with_interval

        try:
            reading = self.read(results)
        except (KeyError, ValueError, IndexError) as exc:
            raise DataError(
                f"{self.study}: cannot read metric {self.name!r} from the saved results: {exc}"
            ) from None
        return with_interval(reading, self.paired_over or "units")


def table(results: AuditResults, name: str) -> pd.DataFrame:
    """Saved table ``name``; a :class:`KeyError` naming it when the analysis lacks it."""
    frame = results.get(name)
    if frame is None:
        raise KeyError(f"table {name!r} is missing")
    return frame


@dataclass(frozen=True)
class ColumnMean:
    """The statistic "mean of ``column`` over the units" (NaN for no unit); linear in
    the per-unit values, so the audit resamples it without pandas."""

    column: str

    def __call__(self, units: Any) -> float:
        values = np.asarray(units[self.column], dtype=float)
        values = values[np.isfinite(values)]
        return float(values.mean()) if len(values) else float("nan")


def mean_of(column: str) -> ColumnMean:
    """The statistic "mean of ``column`` over the units"."""
    return ColumnMean(column)


def share_reading(
    units: pd.DataFrame,
    keys: tuple[str, ...],
    column: str,
    *,
    excluded_share: float = float("nan"),
    ci: tuple[float, float] | None = None,
) -> MetricReading:
    """A share over units (0/1 in ``column``): value, n and a McNemar-ready reading."""
    frame = units[list(keys)].copy()
    frame["value"] = units[column].astype(float).to_numpy()
    frame = frame.dropna(subset=["value"])
    value = float(frame["value"].mean()) if len(frame) else float("nan")
    low, high = ci if ci is not None else (float("nan"), float("nan"))
    return MetricReading(
        value=value,
        ci_low=low,
        ci_high=high,
        n=len(frame),
        excluded_share=excluded_share,
        units=frame,
        unit_keys=keys,
        statistic=mean_of("value"),
        binary=True,
    )
