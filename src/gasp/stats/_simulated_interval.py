"""Intervals calibrated on the run's own data: simulated spread, width set on split halves.

A statistic of marked-word sets (an SRB score) has no formula for its variance, and the
subsample interval's extrapolation to the full size holds in some worlds and not in
others. Here a world is fitted to the run's own data and simulated (the caller does
that):

* the spread: ``R`` data sets drawn from the world fitted to the data at its size, and
  ``R`` at half its size; their scores' standard deviations ``s*`` and ``s*_half`` are the
  score's spread in the fitted world. How far they misstate the real spread depends on
  the world (a fitted world is never the true one);
* the halves: each unit's generations are split at random into two halves (within each
  group), ``K`` times. Two disjoint halves of independent generations are two
  independent samples of half the size from the true world, so their scores' difference
  ``theta_A - theta_B`` has the real spread of a half-size score, model-free
  (:func:`split_spread`).

A score's spread is the larger of ``s*`` and what its halves show, scaled to the full
size as a mean's (the interval never claims less variation than the run's halves show).
The factor a split needs is ``|theta_A - theta_B| / (sqrt(2) spread_half)`` with the same
floor at half the size, that split left out (:func:`half_ratios`): about 1.96 at 95%
where the spread is right, 1.96 / k where it over-states it k times. The interval is
``estimate -+ c spread``, ``c`` the split-conformal quantile (the
``ceil(level (n + 1))``-th smallest) of the ``n`` ratios pooled over the scores of the
run (:func:`calibrate_simulated`): the width is set by how the spread compares with the
real one on the run's own data, measured at half the size and applied at the full size.
The run's coverage is measured out of sample: the share of the pooled split halves
covered by the factor calibrated on all the others (leave one out). Where fewer than
:data:`MIN_CALIBRATION_RATIOS` ratios are defined, or that coverage stays below
:data:`MIN_SIMULATED_COVERAGE`, or no finite factor covers, every interval is withheld
with the reason.
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
#: Default number of data sets simulated from each fitted model (the run's and each half's).
DEFAULT_SIMULATIONS = 30
#: Random splits of each unit's generations into two halves.
CALIBRATION_SPLITS = 4
#: Fewest pooled split-half ratios that calibrate a run.
MIN_CALIBRATION_RATIOS = 20
#: Pooled split-half ratios aimed at in a run of few units (more splits per unit).
POOLED_RATIOS = 48
#: Below this many units a run is small: its scores' half-size word sets are often empty,
#: so it splits each unit's generations many more times (:data:`SMALL_RUN_RATIOS`).
SMALL_RUN_UNITS = 6
#: Split-half ratios a small run aims at (before the undefined ones are left out): 24
#: splits per unit in a run of 4 occupations, whose weak stereotypes leave most halves
#: without a score. A split costs one data set per half, no model call.
SMALL_RUN_RATIOS = 192


def splits_per_unit(units: int) -> int:
    """Splits per unit: :data:`CALIBRATION_SPLITS`, more in a run of few units so that the
    run pools about :data:`POOLED_RATIOS` ratios (two scores per unit), and in a run of
    fewer than :data:`SMALL_RUN_UNITS` units about :data:`SMALL_RUN_RATIOS`."""
    aim = SMALL_RUN_RATIOS if units < SMALL_RUN_UNITS else POOLED_RATIOS
    return max(CALIBRATION_SPLITS, -(-aim // max(2 * units, 1)))


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


def split_spread(differences: np.ndarray) -> float:
    """The spread of a half-size score shown by its split halves: the root mean square of
    the halves' differences over sqrt(2) (NaN when none is defined). Two disjoint halves
    are two independent samples of half the size, so this needs no model."""
    d = np.asarray(differences, dtype=np.float64).ravel()
    d = d[np.isfinite(d)]
    return float(np.sqrt(np.mean(d * d) / 2.0)) if d.size else float("nan")


def _floored(simulated: float, shown: float) -> float:
    """The larger of a simulated spread and the spread the split halves show (the
    simulated one where the halves show none)."""
    return max(simulated, shown) if np.isfinite(shown) else simulated


def half_ratios(halves: np.ndarray, half_draws: np.ndarray) -> np.ndarray:
    """The factor each split needs for its halves' interval to cover, for one score.

    ``halves`` (splits x 2) are the scores of the two halves of each split of the data;
    ``half_draws`` (sims) the scores of data sets of half the size simulated from the
    model fitted to the whole data. A half's spread is the larger of their standard
    deviation ``s*`` and the spread the other splits' halves show (:func:`split_spread`,
    leaving this split out): the rule :func:`simulated_interval` applies at the full size.
    The ratio is ``|theta_A - theta_B| / (sqrt(2) spread)``: an interval whose spread is
    right covers its truth about as often as the factor exceeds it. NaN where a half's
    score or the spread is undefined, or fewer than :data:`MIN_SIMULATED_SHARE` of the
    simulated scores are defined; infinite where the halves differ but no spread is seen.
    """
    halves = np.asarray(halves, dtype=np.float64).reshape(-1, 2)
    draws = np.asarray(half_draws, dtype=np.float64).ravel()
    if halves.shape[0] == 0:
        return np.empty(0)
    if draws.size == 0 or np.isfinite(draws).mean() < MIN_SIMULATED_SHARE:
        return np.full(halves.shape[0], np.nan)
    sd = float(_spread(draws))
    # a spread at rounding level is none: such a score never varies
    sd = 0.0 if sd <= 1e-9 * max(1.0, float(np.nanmax(np.abs(draws)))) else sd
    diff = halves[:, 0] - halves[:, 1]
    out = np.full(diff.size, np.nan)
    for k in range(diff.size):
        scale = np.sqrt(2.0) * _floored(sd, split_spread(np.delete(diff, k)))
        if np.isfinite(diff[k]) and np.isfinite(scale):
            miss = abs(float(diff[k]))
            out[k] = 0.0 if miss == 0 else (miss / scale if scale > 0 else np.inf)
    return out


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
    """The factor ``c`` of a run from its pooled ratios (:func:`half_ratios`).

    ``c`` is the smallest factor that covers ``level`` of the split halves, narrower than
    the normal quantile where the halves show that the simulated spread ``s*`` over-states
    the score's real variation, wider where it under-states it.
    """
    r = np.asarray(ratios, dtype=np.float64).ravel()
    r = r[~np.isnan(r)]
    nominal = _nominal_factor(level)
    nan = float("nan")
    if r.size < MIN_CALIBRATION_RATIOS:
        return SimulatedCalibration(
            nan, nominal, nan, nan, int(r.size), level,
            f"only {r.size} split halves with a defined score and spread (fewer than "
            f"{MIN_CALIBRATION_RATIOS}): too few to calibrate an interval",
        )  # fmt: skip
    nominal_coverage = float(np.mean(np.isfinite(r) & (r <= nominal)))
    coverage = _left_out_coverage(r, level)
    k = _conformal_rank(r.size, level)
    factor = float(np.sort(r)[k - 1]) if k <= r.size else float("inf")
    reason = ""
    stuck = float(np.mean(np.isinf(r)))
    if coverage < MIN_SIMULATED_COVERAGE or not np.isfinite(factor):
        why = (
            f"in {stuck:.0%} of the splits the halves' scores differed yet their simulated "
            "scores never varied (a score that jumps between a few values), so no width covers"
            if stuck > 1.0 - level
            else "the halves' scores differ too unevenly against their simulated spread"
        )
        reason = (
            f"the calibrated interval covered {coverage:.0%} of the split halves (below "
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
    halves: np.ndarray | None = None,
) -> tuple[float, float, str]:
    """``estimate -+ c spread``, or NaN bounds and the reason no interval is given.

    The spread is the larger of the standard deviation ``s*`` of the score's simulated
    scores ``first`` and the spread its split ``halves`` (splits x 2) show, scaled to the
    full size as a mean's (over sqrt(2)): the interval never claims less variation than
    the run's own halves show. No interval where the score or the calibration is
    undefined, the score
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
    shown = float("nan")
    if halves is not None:
        pairs = np.asarray(halves, dtype=np.float64).reshape(-1, 2)
        shown = split_spread(pairs[:, 0] - pairs[:, 1]) / np.sqrt(2.0)
    half = calibration.factor * _floored(float(_spread(values)), shown)
    return estimate - half, estimate + half, ""


def describe_simulated(settings: Mapping[str, Any], calibration: Mapping[str, Any]) -> str:
    """The report's sentence: simulations, split halves, nominal level, simulated coverage.

    ``settings`` is the saved interval record, ``calibration`` the run's calibration
    columns (``simulated_coverage``, ``calibration_ratios``, and where recorded
    ``interval_factor`` and ``nominal_coverage``: the calibrated factor beside the share
    the uncalibrated normal factor covers; a ``reason`` when every interval was withheld).
    """
    sims = int(settings.get("interval_draws") or 0)
    level = float(settings.get("interval_level") or 0.95)
    pooled = calibration.get("calibration_ratios")
    coverage = _number(calibration.get("simulated_coverage"))
    measured = bool(np.isfinite(coverage))
    covered = (
        f"simulated coverage {coverage * 100:.0f}% on held-out split halves"
        if measured
        else "no simulated coverage (" + str(calibration.get("reason") or "no score") + ")"
    )
    factor = _number(calibration.get("interval_factor"))
    nominal = _number(calibration.get("nominal_coverage"))
    if measured and np.isfinite(factor) and np.isfinite(nominal):
        covered += (
            f" (score ± {factor:.2f} spreads, each the larger of the simulated SD and the "
            f"halves' spread; the uncalibrated ± "
            f"{_nominal_factor(level):.2f} would have covered {nominal * 100:.0f}%)"
        )
    halves = (
        f" and {int(pooled):,} random splits of its generations into halves"
        if pooled is not None and np.isfinite(float(pooled)) and float(pooled) > 0
        else ""
    )
    return (
        f"intervals calibrated on {sims:,} simulations of this run's data per score"
        f"{halves}; nominal {level * 100:.4g}%, {covered}; seed {settings.get('interval_seed')}"
    )


def _number(value: Any) -> float:
    """A recorded figure as a float (NaN when absent)."""
    try:
        return float(value) if value is not None else float("nan")
    except (TypeError, ValueError):
        return float("nan")
