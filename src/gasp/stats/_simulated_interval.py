"""Intervals calibrated on simulations of the run's own data (a calibrated parametric bootstrap).

A statistic of marked-word sets (an SRB score) has no formula for its variance, and the
subsample interval's extrapolation to the full size holds in some worlds and not in
others. Here the run's own word model is fitted and simulated (the caller does that):

* level one: ``R`` data sets drawn from the model fitted to the data. Their scores'
  mean ``mu*`` is the expected score of the fitted world (a known truth there), their
  standard deviation ``s*`` the score's spread in that world;
* level two: the model is refitted on a few of those data sets (``worlds``) and ``R``
  data sets are drawn from each: the interval a refitted world gives its data set can
  be checked against the known ``mu*``.

The interval is ``estimate -+ c s*``. ``c`` is the split-conformal quantile (the
``ceil(level (n + 1))``-th smallest) of the factors the ``n`` level-two worlds need to
cover ``mu*`` (``|theta*_j - mu*| / s**_j``), pooled over the scores of the run
(:func:`calibration_ratios`, :func:`calibrate_simulated`): narrower than the normal
quantile (1.96 at 95%) where the simulated worlds show that ``s*`` over-states the
score's variation, wider where it under-states it. The run's simulated coverage is
measured out of sample: the share of the pooled worlds covered by the factor calibrated
on all the others (leave one out). Where fewer than :data:`MIN_CALIBRATION_WORLDS`
worlds are defined, or that
coverage stays below :data:`MIN_SIMULATED_COVERAGE`, or no finite factor covers, every
interval is withheld with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from gasp.stats._resampling import MIN_SET_WORDS

#: Name of the scheme in saved settings and in the ``interval_scheme`` column.
SIMULATED = "simulated"
#: Default number of data sets simulated per level (and per refitted world).
DEFAULT_SIMULATIONS = 30
#: Level-one data sets refitted and simulated again (level two), per unit.
CALIBRATION_WORLDS = 3
#: Fewest pooled level-two ratios that calibrate a run.
MIN_CALIBRATION_WORLDS = 20
#: Pooled level-two worlds aimed at in a run of few units (more worlds per unit).
POOLED_WORLDS = 48


def worlds_per_unit(units: int) -> int:
    """Level-two worlds per unit: :data:`CALIBRATION_WORLDS`, more in a run of few units so
    that the run pools about :data:`POOLED_WORLDS` (two scores per unit)."""
    return max(CALIBRATION_WORLDS, -(-POOLED_WORLDS // max(2 * units, 1)))


#: Below this left-out simulated coverage the intervals are withheld.
MIN_SIMULATED_COVERAGE = 0.90
#: Below this share of defined simulated scores a score gets no interval.
MIN_SIMULATED_SHARE = 0.5


@dataclass(frozen=True)
class SimulatedCalibration:
    """The calibration of a run's simulated intervals.

    ``factor`` is ``c`` (NaN when not calibrated); ``nominal_factor`` the normal quantile an
    uncalibrated interval would use and ``nominal_coverage`` the share of the pooled
    ratios it covers; ``coverage`` the left-out simulated coverage of the calibrated
    interval; ``ratios`` the pooled ratios; ``reason`` why every interval is withheld
    (empty otherwise).
    """

    factor: float
    nominal_factor: float
    nominal_coverage: float
    coverage: float
    ratios: int
    level: float
    reason: str = ""

    def columns(self) -> dict[str, Any]:
        """The columns each score's row carries."""
        return {
            "interval_factor": self.factor,
            "simulated_coverage": self.coverage,
            "nominal_coverage": self.nominal_coverage,
            "calibration_ratios": self.ratios,
        }

    def record(self) -> dict[str, Any]:
        """The calibration as plain values for a results' metadata."""
        return {**self.columns(), "level": self.level, "reason": self.reason}


def _spread(draws: np.ndarray) -> np.ndarray:
    """Standard deviation of the defined draws over the last axis (NaN below two).

    A score whose simulations now and then jump to another word set has a mean between
    its values; the standard deviation sees those jumps, a central quantile does not.
    """
    x = np.asarray(draws, dtype=np.float64)
    k = np.isfinite(x).sum(axis=-1)
    mean = np.nansum(x, axis=-1) / np.maximum(k, 1)
    ss = np.nansum((x - mean[..., None]) ** 2, axis=-1)
    return np.where(k >= 2, np.sqrt(ss / np.maximum(k - 1, 1)), np.nan)


def calibration_ratios(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The factor each refitted world needs to cover the known truth, for one score.

    ``first`` (sims) are the level-one scores, their mean ``mu*`` the truth of the
    fitted world; ``second`` (worlds x sims) the scores of the worlds refitted on the
    first ``worlds`` of them. The interval ``theta*_j -+ c s**_j`` of a level-one score
    (``s**_j``: the standard deviation of its refitted world's scores) covers ``mu*`` for
    ``c`` at least ``|theta*_j - mu*| / s**_j``. NaN where a score or a spread is
    undefined, or fewer than :data:`MIN_SIMULATED_SHARE` of a level's scores are defined;
    infinite where a world's scores never vary but miss the truth.
    """
    first = np.asarray(first, dtype=np.float64).ravel()
    second = np.asarray(second, dtype=np.float64)
    worlds = second.shape[0]
    if first.size == 0 or worlds == 0:
        return np.empty(0)
    if np.isfinite(first).mean() < MIN_SIMULATED_SHARE:
        return np.full(worlds, np.nan)
    mu = float(np.nanmean(first))
    sd = _spread(second)
    # a spread at rounding level is none: such a world never varies
    sd = np.where(sd <= 1e-9 * max(1.0, abs(mu)), 0.0, sd)
    miss = np.abs(first[:worlds] - mu)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(miss == 0, 0.0, miss / sd)
    share = np.isfinite(second).mean(axis=1)
    return np.where((share >= MIN_SIMULATED_SHARE) & np.isfinite(sd), ratio, np.nan)


def _conformal_rank(n: int, level: float) -> int:
    """The rank (1-based) of the factor among ``n`` sorted ratios: ``ceil(level (n + 1))``.

    A new ratio exchangeable with the ``n`` is at most the ratio of that rank with
    probability at least ``level`` (the split-conformal quantile); above ``n`` no ratio of
    the ``n`` is large enough.
    """
    return int(np.ceil(level * (n + 1) - 1e-9))


def _nominal_factor(level: float) -> float:
    """The factor of an uncalibrated interval: the normal quantile of ``level`` (1.96 at 95%)."""
    return float(stats.norm.ppf(0.5 + level / 2.0))


def _left_out_coverage(ratios: np.ndarray, level: float) -> float:
    """Share of the ratios within the factor calibrated on all the others (leave one out).

    Without ratio ``i`` the others' factor is their ``k``-th smallest, ``k`` the conformal
    rank of ``n - 1`` ratios: ``r[k]`` of the sorted ``r`` when ``i`` sorts below it,
    ``r[k - 1]`` otherwise; infinite when ``k`` exceeds ``n - 1``.
    """
    r = np.sort(ratios)
    n = r.size
    k = _conformal_rank(n - 1, level)
    if k > n - 1:
        return 0.0
    index = np.arange(n)
    factor = np.where(index < k, r[min(k, n - 1)], r[k - 1])
    return float(np.mean(np.isfinite(r) & (r <= factor)))


def calibrate_simulated(ratios: np.ndarray, level: float = 0.95) -> SimulatedCalibration:
    """The factor ``c`` of a run from its pooled ratios (:func:`calibration_ratios`).

    ``c`` is the smallest factor that covers ``level`` of the simulated worlds, narrower
    than the normal quantile where the simulated worlds show that the spread ``s*``
    over-states the score's variation, wider where it under-states it.
    """
    r = np.asarray(ratios, dtype=np.float64).ravel()
    r = r[~np.isnan(r)]
    nominal = _nominal_factor(level)
    nan = float("nan")
    if r.size < MIN_CALIBRATION_WORLDS:
        return SimulatedCalibration(
            nan, nominal, nan, nan, int(r.size), level,
            f"only {r.size} simulated worlds with a defined score (fewer than "
            f"{MIN_CALIBRATION_WORLDS}): too few to calibrate an interval",
        )  # fmt: skip
    nominal_coverage = float(np.mean(np.isfinite(r) & (r <= nominal)))
    coverage = _left_out_coverage(r, level)
    k = _conformal_rank(r.size, level)
    factor = float(np.sort(r)[k - 1]) if k <= r.size else float("inf")
    reason = ""
    stuck = float(np.mean(np.isinf(r)))
    if coverage < MIN_SIMULATED_COVERAGE or not np.isfinite(factor):
        why = (
            f"in {stuck:.0%} of the refitted worlds the score never varied yet missed the "
            "simulated truth (a score that jumps between a few values), so no width covers"
            if stuck > 1.0 - level
            else "the scores vary too much between simulated worlds"
        )
        reason = (
            f"the calibrated interval covered {coverage:.0%} of the simulated truths (below "
            f"{MIN_SIMULATED_COVERAGE:.0%}): {why}"
        )
    return SimulatedCalibration(
        factor, nominal, nominal_coverage, coverage, int(r.size), level, reason
    )


def simulated_interval(
    estimate: float,
    first: np.ndarray,
    calibration: SimulatedCalibration,
    set_sizes: Mapping[str, int] | None = None,
) -> tuple[float, float, str]:
    """``estimate -+ c s*`` from a score's level-one simulated scores, or NaN bounds and
    the reason no interval is given: the score or the calibration undefined, the score
    defined in fewer than :data:`MIN_SIMULATED_SHARE` of the simulations, or one of its
    word sets (``set_sizes``, named as the report calls them) holding fewer than
    :data:`MIN_SET_WORDS` words (the score is then one word's distance, and which word
    passed the threshold is most of its variation)."""
    nan = float("nan")
    values = np.asarray(first, dtype=np.float64).ravel()
    if values.size == 0:
        return nan, nan, ""
    if not np.isfinite(estimate):
        return nan, nan, "the statistic itself is undefined"
    small = [f"{k} holds {v}" for k, v in (set_sizes or {}).items() if v < MIN_SET_WORDS]
    if small:
        return (
            nan,
            nan,
            f"rests on too few words ({', '.join(small)}): which word passes the threshold "
            "is most of its variation, so no interval is given",
        )
    defined = int(np.isfinite(values).sum())
    if defined < max(2, MIN_SIMULATED_SHARE * values.size):
        return (
            nan,
            nan,
            f"defined in only {defined} of {values.size} simulations of this run's data (an "
            "empty word set in the others), so no interval can cover it",
        )
    if calibration.reason:
        return nan, nan, calibration.reason
    half = calibration.factor * float(_spread(values))
    return estimate - half, estimate + half, ""


def describe_simulated(settings: Mapping[str, Any], calibration: Mapping[str, Any]) -> str:
    """The report's sentence: simulations, refitted worlds, nominal level, simulated coverage.

    ``settings`` is the saved interval record, ``calibration`` the run's calibration
    columns (``simulated_coverage``, ``calibration_ratios``, and where recorded
    ``interval_factor`` and ``nominal_coverage``: the calibrated factor beside the share
    the uncalibrated normal factor covers; a ``reason`` when every interval was withheld).
    """
    sims = int(settings.get("interval_draws") or 0)
    level = float(settings.get("interval_level") or 0.95)
    worlds = calibration.get("calibration_ratios")
    coverage = _number(calibration.get("simulated_coverage"))
    measured = bool(np.isfinite(coverage))
    covered = (
        f"simulated coverage {coverage * 100:.0f}%"
        if measured
        else "no simulated coverage (" + str(calibration.get("reason") or "no score") + ")"
    )
    factor = _number(calibration.get("interval_factor"))
    nominal = _number(calibration.get("nominal_coverage"))
    if measured and np.isfinite(factor) and np.isfinite(nominal):
        covered += (
            f" (score ± {factor:.2f} simulated SDs; the uncalibrated ± "
            f"{_nominal_factor(level):.2f} would have covered {nominal * 100:.0f}%)"
        )
    refitted = (
        f" and {int(worlds):,} worlds refitted on simulated data"
        if worlds is not None and np.isfinite(float(worlds))
        else ""
    )
    return (
        f"intervals calibrated on {sims:,} simulations of this run's data per score"
        f"{refitted}; nominal {level * 100:.4g}%, {covered}; seed {settings.get('interval_seed')}"
    )


def _number(value: Any) -> float:
    """A recorded figure as a float (NaN when absent)."""
    try:
        return float(value) if value is not None else float("nan")
    except (TypeError, ValueError):
        return float("nan")
