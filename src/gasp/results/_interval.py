"""The interval of one run's headline metric, from the run's own units.

A study's reader gives a :class:`~gasp.results.MetricReading`; where it saved no
interval but kept the per-unit values (jobs, occupations, SRB scores, stories,
answers) and the statistic that makes the value from them, :func:`with_interval`
resamples those units:

* a 0/1 value per unit whose mean is the metric (a share of stories or answers): the
  Wilson score interval of the count;
* a mean of per-unit values (:class:`~gasp.results.ColumnMean`): the expanded
  percentile bootstrap of :func:`gasp.stats.mean_interval`, clipped to the reading's
  ``bounds`` (a mean of absolute values is never below 0);
* any other statistic of the units (a gap between two job groups, a rank correlation,
  a share of pooled counts): the percentile bootstrap of the statistic over units drawn
  with replacement, each draw computed on the drawn rows.

Where no interval can be given at the run's size, the reading's ``interval_note`` says
why in words (too few units, a statistic undefined in most draws, no per-unit values
saved); a reading never carries a half interval or NaN bounds without a reason.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from gasp.results._headline import MetricReading, Statistic

#: Bootstrap draws of a single run's headline interval.
HEADLINE_DRAWS = 2000
#: Seed of those draws (fixed, so the saved, shown and returned intervals agree).
HEADLINE_SEED = 0
#: Fewest units a headline interval is resampled from: with fewer, the resamples take
#: only a handful of distinct values and their spread says little about the estimate.
MIN_INTERVAL_UNITS = 3


def _finite(value: float) -> bool:
    return isinstance(value, int | float) and math.isfinite(float(value))


def has_interval(reading: MetricReading) -> bool:
    """True when ``reading`` carries both bounds, finite."""
    return _finite(reading.ci_low) and _finite(reading.ci_high)


def with_interval(reading: MetricReading, unit: str = "units") -> MetricReading:
    """``reading`` with an interval from its own units, or the reason it has none.

    ``unit`` names what one unit is ("jobs", "stories"), for the reason. A reading that
    already holds an interval (one the study saved) is returned as it is.
    """
    if has_interval(reading):
        return reading
    nan = float("nan")
    if not _finite(reading.value):
        why = reading.note or "the value itself is undefined in this run"
        return dataclasses.replace(reading, ci_low=nan, ci_high=nan, interval_note=why)
    low, high, why = unit_interval(reading, unit)
    if not why and not (_finite(low) and _finite(high)):
        why = "the resampling of this run's units gave no interval"
    if why:
        low, high = nan, nan
    return dataclasses.replace(reading, ci_low=low, ci_high=high, interval_note=why)


def unit_interval(reading: MetricReading, unit: str) -> tuple[float, float, str]:
    """``(low, high, reason)``: the 95% interval of ``reading.value`` from its units
    (see the module docstring); empty ``reason`` when the interval is given."""
    from gasp.results._headline import ColumnMean

    nan = float("nan")
    units, statistic = reading.units, reading.statistic
    if units is None or statistic is None:
        return nan, nan, "no per-unit values of this run were saved to resample"
    if reading.binary:
        return _share(units["value"].to_numpy(dtype=float), unit)
    if isinstance(statistic, ColumnMean):
        return _mean(units[statistic.column].to_numpy(dtype=float), unit, reading.bounds)
    return _statistic(units, statistic, float(reading.value), unit)


def _too_few(k: int, unit: str) -> str:
    return (
        f"too few {unit} to resample: {k} in this run (an interval needs at least "
        f"{MIN_INTERVAL_UNITS})"
    )


def _share(values: np.ndarray, unit: str) -> tuple[float, float, str]:
    from gasp.stats import wilson_interval

    x = values[np.isfinite(values)]
    if x.size == 0:
        return float("nan"), float("nan"), f"no {unit} in this run"
    low, high = wilson_interval(float(x.sum()), float(x.size))
    return float(low), float(high), ""


def _mean(
    values: np.ndarray, unit: str, bounds: tuple[float, float] | None
) -> tuple[float, float, str]:
    from gasp.stats import BOOTSTRAP, IntervalScheme, mean_interval

    x = values[np.isfinite(values)]
    if x.size < MIN_INTERVAL_UNITS:
        return float("nan"), float("nan"), _too_few(int(x.size), unit)
    scheme = IntervalScheme(BOOTSTRAP, HEADLINE_DRAWS, HEADLINE_SEED, unit=unit)
    _, low, high = mean_interval(x, scheme, bounds=bounds)
    return float(low), float(high), ""


class _Drawn(Mapping[str, np.ndarray]):
    """The rows ``picks`` of ``columns``, each column drawn when the statistic reads it
    (a statistic reads two columns of a table that may hold several text keys)."""

    def __init__(self, columns: Mapping[str, np.ndarray], picks: np.ndarray) -> None:
        self._columns = columns
        self._picks = picks

    def __getitem__(self, name: str) -> np.ndarray:
        return self._columns[name][self._picks]

    def __iter__(self) -> Iterator[str]:
        return iter(self._columns)

    def __len__(self) -> int:
        return len(self._columns)


#: The most unit picks drawn at once for a headline interval (8 bytes each).
PICKS_AT_ONCE = 4_000_000


def _statistic(
    units: pd.DataFrame, statistic: Statistic, value: float, unit: str
) -> tuple[float, float, str]:
    from gasp.stats import BOOTSTRAP, MIN_DEFINED_SHARE, IntervalScheme, interval_from_draws

    n = len(units)
    if n < MIN_INTERVAL_UNITS:
        return float("nan"), float("nan"), _too_few(n, unit)
    scheme = IntervalScheme(BOOTSTRAP, HEADLINE_DRAWS, HEADLINE_SEED, unit=unit, expanded=False)
    rng = scheme.rng()
    columns = {name: units[name].to_numpy() for name in units.columns}
    # the draws' picks in blocks of about PICKS_AT_ONCE (one matrix of all of them would
    # take 16 GB for a million units); the same picks, in the same order, as at once
    step = max(1, PICKS_AT_ONCE // n)
    draws = np.empty(scheme.draws, dtype=np.float64)
    for start in range(0, scheme.draws, step):
        picks = rng.integers(0, n, size=(min(step, scheme.draws - start), n))
        for offset, row in enumerate(picks):
            draws[start + offset] = statistic(_Drawn(columns, row))
    defined = int(np.isfinite(draws).sum())
    if defined < MIN_DEFINED_SHARE * draws.size:
        return (
            float("nan"),
            float("nan"),
            f"the statistic is defined in only {defined} of {draws.size} resamples of the "
            f"{n} {unit} (too few {unit} to resample it)",
        )
    low, high = interval_from_draws(value, draws, scheme)
    return float(low), float(high), ""


__all__ = [
    "HEADLINE_DRAWS",
    "HEADLINE_SEED",
    "MIN_INTERVAL_UNITS",
    "has_interval",
    "unit_interval",
    "with_interval",
]
