"""The test of one difference: a headline metric of one model against the baseline.

The compared quantity is the metric itself for ``lower``/``higher`` metrics, and its
distance to 0 (or to the reference) for ``closer to 0``/``closer to reference`` ones, so
a negative difference of a distance is an improvement. The test follows the pairing:

* shared units with a 0/1 value and a mean (pairs, triples, stories): exact McNemar on
  the discordant units, with a paired bootstrap interval;
* other shared units (jobs, occupations): a paired permutation test that swaps the two
  models' values unit by unit (every swap enumerated up to 12 units), with a paired
  percentile bootstrap interval over the units (a statistic that is not a mean of one
  column is recomputed per draw, so it gets a quarter of the draws);
* counts without units: a two-proportion score test (Newcombe interval) or a Poisson
  rate test (normal interval of the count difference);
* summaries only: a Wald z-test from the saved standard errors.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import norm
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import (
    confint_proportions_2indep,
    test_proportions_2indep,
)
from statsmodels.stats.rates import test_poisson_2indep

from gasp.results import (
    CLOSER_TO_0,
    CLOSER_TO_REFERENCE,
    ColumnMean,
    HeadlineMetric,
    MetricReading,
)

#: Most units whose every swap the permutation test enumerates.
EXACT_UNITS = 12
_Z = float(norm.ppf(0.975))


@dataclass(frozen=True)
class DifferenceSettings:
    """Resamples of the permutation tests and bootstrap intervals, and their seed."""

    permutations: int = 2000
    bootstrap: int = 2000
    seed: int = 0


@dataclass(frozen=True)
class Difference:
    """One model minus the baseline on one metric's compared quantity."""

    difference: float
    ci_low: float
    ci_high: float
    test: str
    p_value: float
    quantity: str
    n_shared: int


def quantity(metric: HeadlineMetric, reading: MetricReading) -> str:
    """What is compared: ``value``, ``distance to 0`` or ``distance to <reference>``."""
    if metric.better == CLOSER_TO_0:
        return "distance to 0"
    if metric.better == CLOSER_TO_REFERENCE:
        return f"distance to {reading.reference:g}"
    return "value"


def _transform(metric: HeadlineMetric, reading: MetricReading) -> Callable[[Any], Any]:
    if metric.better == CLOSER_TO_0:
        return np.abs
    if metric.better == CLOSER_TO_REFERENCE:
        ref = reading.reference
        return lambda v: np.abs(np.asarray(v, dtype=float) - ref)
    return lambda v: np.asarray(v, dtype=float)


def _shared(model: MetricReading, base: MetricReading) -> pd.DataFrame | None:
    if model.units is None or base.units is None or model.statistic is None:
        return None
    if model.unit_keys != base.unit_keys or not model.unit_keys:
        return None
    keys = list(model.unit_keys)
    a = model.units.drop_duplicates(keys)
    b = base.units.drop_duplicates(keys)
    merged = a.merge(b, on=keys, suffixes=("", "__base"))
    return merged if len(merged) else None


def _sides(merged: pd.DataFrame, base: MetricReading) -> tuple[pd.DataFrame, pd.DataFrame]:
    assert base.units is not None
    cols = [c for c in base.units.columns]
    keys = set(base.unit_keys)
    a = merged[cols].reset_index(drop=True)
    b = merged[[c if c in keys else f"{c}__base" for c in cols]].reset_index(drop=True)
    b.columns = cols
    return a, b


def _swap_masks(n: int, draws: int, rng: np.random.Generator) -> np.ndarray:
    if n <= EXACT_UNITS:
        return np.array(list(itertools.product((False, True), repeat=n)), dtype=bool)
    return rng.random((draws, n)) < 0.5


def _permutation_p(observed: float, null: np.ndarray, exact: bool) -> float:
    null = null[np.isfinite(null)]
    if not len(null) or not np.isfinite(observed):
        return float("nan")
    extreme = np.abs(null) >= abs(observed) - 1e-12
    if exact:
        return float(extreme.mean())
    return float((1 + extreme.sum()) / (len(null) + 1))


def _percentile(draws: np.ndarray) -> tuple[float, float]:
    draws = draws[np.isfinite(draws)]
    if not len(draws):
        return float("nan"), float("nan")
    low, high = np.quantile(draws, [0.025, 0.975])
    return float(low), float(high)


def _paired(
    metric: HeadlineMetric,
    model: MetricReading,
    base: MetricReading,
    merged: pd.DataFrame,
    settings: DifferenceSettings,
) -> Difference:
    g = _transform(metric, base)
    a, b = _sides(merged, base)
    stat = model.statistic
    assert stat is not None
    n = len(a)
    rng = np.random.default_rng(settings.seed)
    what = quantity(metric, base)
    if isinstance(stat, ColumnMean):
        va = pd.to_numeric(a[stat.column], errors="coerce").to_numpy(dtype=float)
        vb = pd.to_numeric(b[stat.column], errors="coerce").to_numpy(dtype=float)
        ok = np.isfinite(va) & np.isfinite(vb)
        va, vb, n = va[ok], vb[ok], int(ok.sum())
        if n == 0:
            return Difference(np.nan, np.nan, np.nan, "none: no shared unit", np.nan, what, 0)
        observed = float(g(va.mean()) - g(vb.mean()))
        idx = rng.integers(0, n, size=(settings.bootstrap, n))
        boot = g(va[idx].mean(axis=1)) - g(vb[idx].mean(axis=1))
        low, high = _percentile(np.asarray(boot, dtype=float))
        if model.binary and what == "value":
            ones_a, ones_b = va > 0.5, vb > 0.5
            table = [
                [int(np.sum(ones_a & ones_b)), int(np.sum(ones_a & ~ones_b))],
                [int(np.sum(~ones_a & ones_b)), int(np.sum(~ones_a & ~ones_b))],
            ]
            discordant = table[0][1] + table[1][0]
            p = 1.0 if discordant == 0 else float(mcnemar(table, exact=True).pvalue)
            test = f"exact McNemar over {n} shared {metric.paired_over or 'units'}"
            return Difference(observed, low, high, test, p, what, n)
        masks = _swap_masks(n, settings.permutations, rng)
        pa = np.where(masks, vb, va).mean(axis=1)
        pb = np.where(masks, va, vb).mean(axis=1)
        null = np.asarray(g(pa) - g(pb), dtype=float)
    else:
        ca = {c: a[c].to_numpy() for c in a.columns}
        cb = {c: b[c].to_numpy() for c in b.columns}
        # only the columns where the two runs differ need swapping
        moving = [c for c in ca if not np.array_equal(ca[c], cb[c])]
        observed = float(g(stat(ca)) - g(stat(cb)))
        boots = []
        for _ in range(settings.bootstrap // 4):
            idx = rng.integers(0, n, size=n)
            ra = {c: v[idx] for c, v in ca.items()}
            rb = {c: v[idx] for c, v in cb.items()}
            boots.append(g(stat(ra)) - g(stat(rb)))
        low, high = _percentile(np.asarray(boots, dtype=float))
        null_list = []
        for mask in _swap_masks(n, settings.permutations // 4, rng):
            sa = ca | {c: np.where(mask, cb[c], ca[c]) for c in moving}
            sb = cb | {c: np.where(mask, ca[c], cb[c]) for c in moving}
            null_list.append(g(stat(sa)) - g(stat(sb)))
        null = np.asarray(null_list, dtype=float)
    exact = n <= EXACT_UNITS
    p = _permutation_p(observed, null, exact)
    kind = "exact" if exact else f"{len(null)}-draw"
    test = f"paired permutation ({kind}) over {n} shared {metric.paired_over or 'units'}"
    return Difference(observed, low, high, test, p, what, n)


def _unpaired(metric: HeadlineMetric, model: MetricReading, base: MetricReading) -> Difference:
    g = _transform(metric, base)
    what = quantity(metric, base)
    observed = float(g(model.value) - g(base.value))
    linear = what == "value"
    if linear and model.kind == base.kind == "proportion" and model.total > 0 and base.total > 0:
        args = (model.count, model.total, base.count, base.total)
        same = model.count * base.total == base.count * model.total
        if same and model.count in (0, model.total):
            p = 1.0  # both runs all 0 or all 1: the score test is undefined
        else:
            with warnings.catch_warnings():  # its ratio statistics divide by a zero share
                warnings.simplefilter("ignore", RuntimeWarning)
                p = float(test_proportions_2indep(*args, method="score").pvalue)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            low, high = confint_proportions_2indep(*args, method="newcomb")
        test = "two-proportion score test (unpaired)"
        return Difference(observed, float(low), float(high), test, p, what, 0)
    if model.kind == base.kind == "rate" and min(model.total, base.total) <= 0:
        return Difference(
            observed, np.nan, np.nan, "none: nothing tested in a run", np.nan, what, 0
        )
    if linear and model.kind == base.kind == "rate":
        if model.count + base.count == 0:
            p = 1.0  # no event in either run
        else:
            args = (model.count, model.total, base.count, base.total)
            p = float(test_poisson_2indep(*args, method="score").pvalue)
        half = _Z * float(np.sqrt(model.count + base.count))
        test = "Poisson rate score test (unpaired)"
        return Difference(observed, observed - half, observed + half, test, p, what, 0)
    se_a, se_b = _se(model), _se(base)
    se = float(np.sqrt(se_a**2 + se_b**2))
    if not np.isfinite(se) or not np.isfinite(observed):
        return Difference(observed, np.nan, np.nan, "none: no interval saved", np.nan, what, 0)
    if se == 0:
        p = 1.0 if observed == 0 else float("nan")
        return Difference(observed, observed, observed, "none: zero variance", p, what, 0)
    p = float(2 * norm.sf(abs(observed) / se))
    return Difference(
        observed, observed - _Z * se, observed + _Z * se, "Wald z-test (unpaired)", p, what, 0
    )


def _se(reading: MetricReading) -> float:
    if np.isfinite(reading.se):
        return float(reading.se)
    if reading.kind == "proportion" and reading.total > 0:
        p = reading.value
        return float(np.sqrt(p * (1 - p) / reading.total))
    if np.isfinite(reading.ci_low) and np.isfinite(reading.ci_high):
        return float((reading.ci_high - reading.ci_low) / (2 * _Z))
    return float("nan")


def compare_readings(
    metric: HeadlineMetric,
    model: MetricReading,
    base: MetricReading,
    settings: DifferenceSettings | None = None,
) -> Difference:
    """The difference of ``model`` minus ``base`` on ``metric``, its 95% interval and the
    p-value of the test suited to the pairing (see the module docstring)."""
    settings = settings or DifferenceSettings()
    if not (np.isfinite(model.value) and np.isfinite(base.value)):
        what = quantity(metric, base)
        return Difference(np.nan, np.nan, np.nan, "none: value undefined", np.nan, what, 0)
    merged = _shared(model, base)
    if merged is not None:
        return _paired(metric, model, base, merged, settings)
    return _unpaired(metric, model, base)


__all__ = ["Difference", "DifferenceSettings", "compare_readings", "quantity"]
