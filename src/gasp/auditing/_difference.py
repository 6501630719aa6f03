"""The test of one difference: a headline metric of one model against the baseline.

The compared quantity is the metric itself for ``lower``/``higher`` metrics, and its
distance to 0 (or to the reference) for ``closer to 0``/``closer to reference`` ones, so
a negative difference of a distance is an improvement. Each comparison's p-value and
95% interval come from one statistic and one resampling (the interval is the set of
differences its test does not reject), so "the interval excludes 0" and "p < 0.05"
always agree. The test follows the pairing:

* shared units with a 0/1 value and a mean (pairs, triples, stories): exact McNemar on
  the discordant units, with the Clopper-Pearson interval of the discordant split (the
  inversion of that test) turned into a difference of shares;
* other shared units (jobs, occupations, (occupation, associated gender) SRB scores,
  stories for a ratio): a jackknife t-test. The difference is recomputed without each shared unit
  (both models at once); the jackknife standard error and Student's t with n - 1
  degrees of freedom give the p-value and the interval difference +- t se. For a mean
  this is the paired t-test. Leaving units out, rather than swapping the two models'
  values, keeps what the statistic cancels (a level shared by every job cancels in a
  gap between job groups) out of the test's variance;
* counts without units: a two-proportion score test with its score interval, or a
  Wald test of the difference of two Poisson counts;
* summaries only: a Wald z-test from the saved standard errors.

A comparison in which a run tested nothing (no unit, no word, an undefined value) has
no difference, interval or p-value: its test starts with ``none:`` and the scorecard
calls it "not tested".
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import norm
from scipy.stats import t as student_t
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import (
    proportion_confint,
    test_proportions_2indep,
)

from gasp.results import (
    CLOSER_TO_0,
    CLOSER_TO_REFERENCE,
    ColumnMean,
    HeadlineMetric,
    MetricReading,
)

_Z = float(norm.ppf(0.975))


@dataclass(frozen=True)
class DifferenceSettings:
    """Settings of the difference tests: the seed of any random resampling (the tests
    used now, exact McNemar, jackknife t, score and Wald tests, draw no random number,
    so a scorecard is the same for every seed)."""

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


#: The level of the comparisons' intervals (95%).
ALPHA = 0.05


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


def _untested(reason: str, what: str, n: int = 0) -> Difference:
    return Difference(np.nan, np.nan, np.nan, f"none: {reason}", np.nan, what, n)


def _shared(model: MetricReading, base: MetricReading) -> pd.DataFrame | None:
    if model.units is None or base.units is None or model.statistic is None:
        return None
    if model.unit_keys != base.unit_keys or not model.unit_keys:
        return None
    keys = list(model.unit_keys)
    a = model.units.drop_duplicates(keys)
    b = base.units.drop_duplicates(keys)
    return a.merge(b, on=keys, suffixes=("", "__base"))


def _sides(merged: pd.DataFrame, base: MetricReading) -> tuple[pd.DataFrame, pd.DataFrame]:
    assert base.units is not None
    cols = [c for c in base.units.columns]
    keys = set(base.unit_keys)
    a = merged[cols].reset_index(drop=True)
    b = merged[[c if c in keys else f"{c}__base" for c in cols]].reset_index(drop=True)
    b.columns = cols
    return a, b


def jackknife_t(
    estimate: float, leave_one_out: np.ndarray, alpha: float = ALPHA
) -> tuple[float, float, float]:
    """The jackknife t-test of ``estimate`` = 0 and the interval it inverts.

    ``leave_one_out`` holds the estimate recomputed without each unit; its jackknife
    standard error and Student's t with n - 1 degrees of freedom give the p-value and
    the interval ``estimate +- t se``, so the interval excludes 0 exactly when
    p < ``alpha``. Returns (p, low, high); a zero standard error gives p = 1 for a zero
    estimate and p = 0 otherwise (every unit moves by the same amount).
    """
    values = leave_one_out[np.isfinite(leave_one_out)]
    n = len(values)
    se = float(np.sqrt((n - 1) / n * np.sum((values - values.mean()) ** 2))) if n else 0.0
    if se <= 1e-12 * max(1.0, abs(estimate)):
        return (1.0 if estimate == 0 else 0.0), estimate, estimate
    t = abs(estimate) / se
    p = float(2 * student_t.sf(t, n - 1))
    half = float(student_t.ppf(1 - alpha / 2, n - 1)) * se
    return p, estimate - half, estimate + half


def _leave_one_out(
    stat: Callable[[dict[str, np.ndarray]], float],
    g: Callable[[Any], Any],
    ca: dict[str, np.ndarray],
    cb: dict[str, np.ndarray],
    n: int,
) -> tuple[float, np.ndarray]:
    """The difference and the difference recomputed without each shared unit."""
    full = float(g(stat(ca)) - g(stat(cb)))
    keep = np.ones(n, dtype=bool)
    out = np.empty(n, dtype=float)
    for j in range(n):
        keep[j] = False
        ra = {c: v[keep] for c, v in ca.items()}
        rb = {c: v[keep] for c, v in cb.items()}
        out[j] = float(g(stat(ra)) - g(stat(rb)))
        keep[j] = True
    return full, out


def _mcnemar(va: np.ndarray, vb: np.ndarray, n: int, unit: str, what: str) -> Difference:
    ones_a, ones_b = va > 0.5, vb > 0.5
    up = int(np.sum(ones_a & ~ones_b))
    down = int(np.sum(~ones_a & ones_b))
    discordant = up + down
    observed = float(va.mean() - vb.mean())
    test = f"exact McNemar over {n} shared {unit}"
    if discordant == 0:
        return Difference(observed, 0.0, 0.0, test, 1.0, what, n)
    table = [[0, up], [down, 0]]
    p = float(mcnemar(table, exact=True).pvalue)
    # the Clopper-Pearson interval of the discordant split inverts the same exact test
    low, high = proportion_confint(up, discordant, alpha=ALPHA, method="beta")
    scale = discordant / n
    return Difference(observed, scale * (2 * low - 1), scale * (2 * high - 1), test, p, what, n)


def _paired(
    metric: HeadlineMetric,
    model: MetricReading,
    base: MetricReading,
    merged: pd.DataFrame,
) -> Difference:
    g = _transform(metric, base)
    what = quantity(metric, base)
    unit = metric.paired_over or "units"
    if merged.empty:
        return _untested("no shared unit", what)
    a, b = _sides(merged, base)
    stat = model.statistic
    assert stat is not None
    if isinstance(stat, ColumnMean):
        va = pd.to_numeric(a[stat.column], errors="coerce").to_numpy(dtype=float)
        vb = pd.to_numeric(b[stat.column], errors="coerce").to_numpy(dtype=float)
        ok = np.isfinite(va) & np.isfinite(vb)
        va, vb, n = va[ok], vb[ok], int(ok.sum())
        if n == 0:
            return _untested("no shared unit", what)
        if model.binary and what == "value":
            return _mcnemar(va, vb, n, unit, what)
        ca, cb = {stat.column: va}, {stat.column: vb}
    else:
        ca = {c: a[c].to_numpy() for c in a.columns}
        cb = {c: b[c].to_numpy() for c in b.columns}
        n = len(a)
    if isinstance(stat, ColumnMean) and what == "value":
        # a mean: each leave-one-out difference in closed form (the paired t-test)
        d = ca[stat.column] - cb[stat.column]
        observed = float(d.mean())
        loo = (d.sum() - d) / (n - 1) if n > 1 else np.array([np.nan])
    else:
        observed, loo = _leave_one_out(stat, g, ca, cb, n)
    defined = int(np.isfinite(loo).sum())
    if not np.isfinite(observed) or defined < 2:
        return _untested(f"fewer than 2 shared {unit} with a defined value", what, n)
    p, low, high = jackknife_t(observed, loo)
    test = f"paired jackknife t-test over {defined} shared {unit}"
    return Difference(observed, low, high, test, p, what, defined)


def _unpaired(metric: HeadlineMetric, model: MetricReading, base: MetricReading) -> Difference:
    g = _transform(metric, base)
    what = quantity(metric, base)
    observed = float(g(model.value) - g(base.value))
    linear = what == "value"
    counted = model.kind == base.kind and model.kind in ("proportion", "rate")
    if counted and min(model.total, base.total) <= 0:
        return _untested("nothing tested in a run", what)
    if linear and model.kind == base.kind == "proportion":
        args = (model.count, model.total, base.count, base.total)
        test = "two-proportion score test with its score interval (unpaired)"
        same = model.count * base.total == base.count * model.total
        if same and model.count in (0, model.total):
            # both runs all 0 or all 1: the score statistic is undefined at 0
            low, high = _score_interval(args, observed)
            return Difference(observed, low, high, test, 1.0, what, 0)
        p = _score_p(args, 0.0)
        low, high = _score_interval(args, observed)
        return Difference(observed, low, high, test, p, what, 0)
    if linear and model.kind == base.kind == "rate":
        # the difference of two (count - expected) values; Poisson variance of each count
        variance = model.count + base.count
        if variance <= 0:
            variance = model.offset + base.offset
        test = "Wald test of two Poisson counts (unpaired)"
        if variance <= 0:
            return Difference(observed, observed, observed, test, 1.0, what, 0)
        se = float(np.sqrt(variance))
        p = float(2 * norm.sf(abs(observed) / se))
        return Difference(observed, observed - _Z * se, observed + _Z * se, test, p, what, 0)
    se_a, se_b = _se(model), _se(base)
    se = float(np.sqrt(se_a**2 + se_b**2))
    if not np.isfinite(se) or not np.isfinite(observed):
        return _untested("no interval saved", what)
    if se == 0:
        if observed != 0:
            return _untested("zero variance saved for a differing value", what)
        return Difference(0.0, 0.0, 0.0, "Wald z-test (unpaired, zero variance)", 1.0, what, 0)
    p = float(2 * norm.sf(abs(observed) / se))
    return Difference(
        observed, observed - _Z * se, observed + _Z * se, "Wald z-test (unpaired)", p, what, 0
    )


def _score_p(args: tuple[float, float, float, float], value: float) -> float:
    """The score test's p-value of the difference ``value`` (0 where it is undefined:
    a difference the two shares cannot have)."""
    with warnings.catch_warnings():  # its ratio statistics divide by a zero share
        warnings.simplefilter("ignore", RuntimeWarning)
        p = test_proportions_2indep(*args, value=value, method="score").pvalue
    return float(p) if np.isfinite(p) else 0.0


def _score_interval(
    args: tuple[float, float, float, float], estimate: float
) -> tuple[float, float]:
    """The differences the score test does not reject at ``ALPHA`` (each end by
    bisection between the estimate and -1 or 1): the inversion of the score test."""
    ends = []
    for bound in (-1.0 + 1e-9, 1.0 - 1e-9):
        if _score_p(args, bound) >= ALPHA:
            ends.append(bound)
            continue
        inner, outer = estimate, bound
        for _ in range(50):
            mid = 0.5 * (inner + outer)
            if _score_p(args, mid) >= ALPHA:
                inner = mid
            else:
                outer = mid
        ends.append(inner)
    return ends[0], ends[1]


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
    del settings  # every test used is deterministic (see DifferenceSettings)
    if not (np.isfinite(model.value) and np.isfinite(base.value)):
        return _untested("a run's value is undefined (nothing tested)", quantity(metric, base))
    merged = _shared(model, base)
    if merged is not None:
        return _paired(metric, model, base, merged)
    return _unpaired(metric, model, base)


__all__ = [
    "ALPHA",
    "Difference",
    "DifferenceSettings",
    "compare_readings",
    "jackknife_t",
    "quantity",
]
