"""How every interval of every study is obtained: the resampling schemes, in one place.

Three schemes, chosen by what the statistic is:

``bootstrap``
    Percentile bootstrap of a statistic that is a mean of per-unit values (a rate, a
    share, a mean sentiment, an accuracy over test texts): the units are drawn with
    replacement, keeping their number, and the interval is the ``alpha/2`` and
    ``1 - alpha/2`` quantiles of the resampled statistic.

``subsample``
    Subsampling without replacement (within each group of texts) at two fractions,
    ``b = m/n`` and ``b2 = sqrt(b)`` (the size halfway between ``m`` and ``n`` on a log
    scale), for statistics computed from the *set* of significant words (SRB scores,
    word-set sizes). The first half of the draws is taken at ``b``, the second at
    ``b2``. A with-replacement resample repeats texts, which inflates word counts: a
    word with no real difference has a resampled z-score spread around its observed
    one, so about three times as many such words pass a 1.96 threshold, the sets grow
    and Chamfer distances shrink toward 0. A subsample is a genuine smaller sample, so
    its word sets behave like those of a real sample of its size. The spread at the
    full size ``n`` is extrapolated from the two sizes: the variance of the subsample
    statistic at fraction ``x`` is modelled as ``V_n (x^-g - 1)`` (for a mean, ``g = 1``:
    the finite-population correction ``sigma^2 (1/m - 1/n)``, which gives the delete-d
    jackknife factor ``b / (1 - b)`` of Shao and Wu 1989). The rate ``g`` is fitted to
    the ratio of the two variances and kept at least 1: a set chosen by a threshold
    fills in as the sample grows, so its statistic can settle faster than ``1/n``
    (fewer, more variable words at ``m``), and a slower apparent rate comes from words
    flipping at the threshold, which subsamples close to ``n`` overstate. The interval
    is ``est -+ t_{k-1} sqrt(V_n)`` (``k`` draws at ``b``), centred at the estimate.
``cluster``
    Bootstrap of whole clusters (occupations, jobs, templates) for a mean across them:
    each cluster's value is kept as computed and the clusters are drawn with replacement.

A percentile interval of a mean from ``n`` units is too short when ``n`` is small (it
uses the plug-in variance and normal quantiles): :func:`mean_interval` widens it around
the estimate by ``sqrt(n / (n - 1)) * t_{n-1} / z`` (the expanded percentile interval of
Hesterberg 2015), which tends to 1 for many units (1.005 at ``n = 100``) and is 1.22 at
``n = 10``. ``IntervalScheme(expanded=False)`` keeps the plain percentile interval.

:class:`IntervalScheme` records the scheme, the number of draws, the seed, the level
and the fraction; studies store :meth:`IntervalScheme.record` in their results (table
columns or settings) and the reports word it with :func:`describe_interval`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from gasp.errors import ConfigError

BOOTSTRAP = "bootstrap"
SUBSAMPLE = "subsample"
CLUSTER = "cluster"
SCHEMES: tuple[str, ...] = (BOOTSTRAP, SUBSAMPLE, CLUSTER)
DEFAULT_FRACTION = 0.5
#: The range of a share or rate of texts, for :func:`mean_interval`'s ``bounds``.
SHARE_BOUNDS = (0.0, 1.0)
#: Below this share of draws with a defined statistic no interval is given (see
#: :func:`interval_or_reason`).
MIN_DEFINED_SHARE = 0.5
#: A statistic of word sets gets no interval when one of its sets holds fewer words
#: (see :func:`interval_or_reason`).
MIN_SET_WORDS = 2
_BLOCK = 1 << 22


@dataclass(frozen=True)
class IntervalScheme:
    """How an interval is obtained: scheme, draws, seed, level, fraction, what is drawn.

    ``unit`` names what is drawn, as a plural noun (``texts``, ``occupations``, ``jobs
    and templates``); ``fraction`` is the subsample fraction ``b`` (``subsample`` only).
    """

    scheme: str
    draws: int
    seed: int
    confidence: float = 0.95
    fraction: float | None = None
    unit: str = "texts"
    expanded: bool = True

    def __post_init__(self) -> None:
        if self.scheme not in SCHEMES:
            raise ConfigError(f"unknown interval scheme {self.scheme!r}: use {', '.join(SCHEMES)}")
        if self.draws < 0:
            raise ConfigError(f"the number of draws must not be negative, got {self.draws}")
        if not 0.0 < self.confidence < 1.0:
            raise ConfigError(f"the interval level must lie in (0, 1), got {self.confidence}")
        if self.scheme == SUBSAMPLE:
            b = DEFAULT_FRACTION if self.fraction is None else float(self.fraction)
            if not 0.0 < b < 1.0:
                raise ConfigError(f"the subsample fraction must lie in (0, 1), got {b}")
            object.__setattr__(self, "fraction", b)
        elif self.fraction is not None:
            raise ConfigError("a subsample fraction is only meaningful for the subsample scheme")

    def rng(self) -> np.random.Generator:
        """A fresh generator seeded with :attr:`seed`."""
        return np.random.default_rng(self.seed)

    def record(self) -> dict[str, Any]:
        """The scheme as plain values for result settings (read by :func:`describe_interval`)."""
        return {
            "interval_scheme": self.scheme,
            "interval_draws": int(self.draws),
            "interval_seed": int(self.seed),
            "interval_level": float(self.confidence),
            "interval_fraction": self.fraction,
            "interval_unit": self.unit,
            "interval_expanded": self.expanded and self.scheme != SUBSAMPLE,
        }

    def columns(self) -> dict[str, Any]:
        """The three columns every interval table carries: scheme, draws and seed."""
        return {
            "interval_scheme": self.scheme,
            "interval_draws": int(self.draws),
            "interval_seed": int(self.seed),
        }

    def describe(self) -> str:
        """One sentence saying how the interval was obtained."""
        return describe_interval(self.record())

    def interval(self, estimate: float, draws: np.ndarray) -> tuple[float, float]:
        """The interval from the draws of this scheme (see :func:`interval_from_draws`)."""
        return interval_from_draws(estimate, draws, self)


def describe_interval(record: Mapping[str, Any] | None) -> str:
    """One sentence for a report from a saved :meth:`IntervalScheme.record`.

    For example "95% interval from 1,000 subsamples of texts without replacement (within
    each group), half of 50% and half of 70.71%, spread extrapolated to the full size;
    seed 0".
    """
    if not record or not record.get("interval_scheme"):
        return "how the interval was obtained was not saved with these results"
    scheme = str(record["interval_scheme"])
    draws = int(record.get("interval_draws") or 0)
    level = float(record.get("interval_level") or 0.95)
    unit = str(record.get("interval_unit") or "texts")
    seed = record.get("interval_seed")
    if draws == 0:
        return "no resampling was run, so there is no interval"
    pct = f"{level * 100:.4g}%"
    if scheme == SUBSAMPLE:
        frac = float(record.get("interval_fraction") or DEFAULT_FRACTION)
        what = (
            f"{draws:,} subsamples of {unit} without replacement (within each group), half "
            f"of {frac * 100:.4g}% and half of {second_fraction(frac) * 100:.4g}%, spread "
            "extrapolated to the full size"
        )
    else:
        kind = "expanded percentile" if record.get("interval_expanded") else "percentile"
        whole = "whole " if scheme == CLUSTER else ""
        what = f"{draws:,} bootstrap resamples of {whole}{unit} with replacement ({kind})"
    return f"{pct} interval from {what}; seed {seed}"


def subsample_size(n: int, fraction: float) -> int:
    """Subsample size ``m`` for ``n`` units at fraction ``b``: ``round(b n)`` kept in [1, n-1]."""
    if n < 2:
        return n
    return int(min(n - 1, max(1, round(fraction * n))))


def draw_weights(
    scheme: IntervalScheme, rng: np.random.Generator, n: int, draws: int | None = None
) -> np.ndarray:
    """(draws x n) multiplicities of ``n`` units in each draw of ``scheme``, all at once.

    Subsamples hold 0 or 1 (``subsample_size(n, b)`` ones per row); resamples hold how
    many times each unit was drawn (rows sum to ``n``).
    """
    rows = scheme.draws if draws is None else draws
    out = np.zeros((rows, n), dtype=np.float64)
    if rows == 0 or n == 0:
        return out
    if scheme.scheme == SUBSAMPLE:
        b = float(scheme.fraction or DEFAULT_FRACTION)
        first = first_size_draws(rows)
        ranks = np.argsort(np.argsort(rng.random((rows, n)), axis=1), axis=1)
        m = np.full(rows, subsample_size(n, b))
        m[first:] = subsample_size(n, second_fraction(b))
        out[ranks < m[:, None]] = 1.0
        return out
    picks = rng.integers(0, n, size=(rows, n))
    np.add.at(out, (np.repeat(np.arange(rows), n), picks.ravel()), 1.0)
    return out


def subsample_scale(fraction: float) -> float:
    """The factor ``sqrt(b / (1 - b))`` that turns the spread of subsamples at fraction ``b``
    into the spread at the full size, for a statistic whose variance falls like ``1/n``."""
    return float(np.sqrt(fraction / (1.0 - fraction)))


def second_fraction(fraction: float) -> float:
    """The second subsample fraction ``sqrt(b)``: halfway between ``m`` and ``n`` on a log scale."""
    return float(np.sqrt(fraction))


def first_size_draws(draws: int) -> int:
    """How many of ``draws`` subsamples are taken at the first fraction (the rest at the second)."""
    return (draws + 1) // 2


_RATES = np.linspace(1.0, 8.0, 400)


def extrapolated_variance(first: np.ndarray, second: np.ndarray, fraction: float) -> np.ndarray:
    """Variance of a statistic at the full size from subsample draws at two fractions.

    ``first`` and ``second`` hold draws (last axis; NaN left out) at ``b = fraction`` and
    ``b2 = sqrt(b)``. The subsample variance at fraction ``x`` is modelled as
    ``V_n (x^-g - 1)`` with ``g`` in [1, 8] fitted to the ratio of the two variances
    (``g = 1`` where fewer than two draws of the second size are defined); returns ``V_n``
    for every leading index.
    """
    b, b2 = fraction, second_fraction(fraction)
    with np.errstate(invalid="ignore", divide="ignore"):
        v1 = _variance(first)
        v2 = _variance(second)
        curve = (b**-_RATES - 1.0) / (b2**-_RATES - 1.0)  # increases with the rate
        rate = np.interp(np.where(v2 > 0, v1 / v2, np.inf), curve, _RATES)
        rate = np.where(np.isfinite(v2), rate, 1.0)
    return np.asarray(v1 / (b**-rate - 1.0))


def _variance(values: np.ndarray) -> np.ndarray:
    """Sample variance over the last axis with NaN left out (NaN below two values)."""
    x = np.asarray(values, dtype=np.float64)
    k = np.isfinite(x).sum(axis=-1)
    mean = np.nansum(x, axis=-1) / np.maximum(k, 1)
    ss = np.nansum((x - mean[..., None]) ** 2, axis=-1)
    return np.where(k >= 2, ss / np.maximum(k - 1, 1), np.nan)


def interval_from_draws(
    estimate: float, draws: np.ndarray, scheme: IntervalScheme
) -> tuple[float, float]:
    """The interval of ``estimate`` from the ``draws`` of ``scheme`` (NaN ones left out);
    NaN without any.

    Bootstrap and cluster schemes give percentile intervals. The subsample scheme takes
    the draws in the order :func:`draw_weights` made them (the first
    :func:`first_size_draws` at ``b``, the others at ``sqrt(b)``) and gives
    ``est -+ t_{k-1} sqrt(V_n)`` with ``V_n`` from :func:`extrapolated_variance`.
    """
    values = np.asarray(draws, dtype=np.float64).ravel()
    if not np.isfinite(values).any() or not np.isfinite(estimate):
        return float("nan"), float("nan")
    alpha = (1.0 - scheme.confidence) / 2.0
    if scheme.scheme != SUBSAMPLE:
        finite = values[np.isfinite(values)]
        q_low, q_high = (float(q) for q in np.quantile(finite, [alpha, 1.0 - alpha]))
        return q_low, q_high
    split = first_size_draws(values.size)
    first = values[:split]
    k = int(np.isfinite(first).sum())
    if k < 2:
        return float("nan"), float("nan")
    variance = float(
        extrapolated_variance(first, values[split:], float(scheme.fraction or DEFAULT_FRACTION))
    )
    half = float(stats.t.ppf(1.0 - alpha, k - 1)) * float(np.sqrt(variance))
    return estimate - half, estimate + half


def interval_or_reason(
    estimate: float,
    draws: np.ndarray,
    scheme: IntervalScheme,
    set_sizes: Mapping[str, int] | None = None,
) -> tuple[float, float, str]:
    """The interval of ``estimate`` from ``draws`` (NaN where a draw is undefined), or NaN
    bounds and the reason no interval can cover.

    A statistic of a word set is undefined where the set is empty. When the estimate is
    undefined, or fewer than :data:`MIN_DEFINED_SHARE` of the draws are defined, the
    defined draws are a selection (the samples in which some word passed) and their
    spread says nothing about the estimate's: the interval is withheld and the reason
    returned. The reason is empty when the interval is given.

    ``set_sizes`` names the word sets the statistic is computed from (as the report
    calls them) with their sizes in the observed sample. A set of fewer than
    :data:`MIN_SET_WORDS` words makes the statistic that word's value: which word passed
    the threshold is then most of its variation between samples, and subsamples of one
    sample keep the word that passed, so their spread misses that part (in
    ``bench/bench_coverage.py`` such intervals covered 82% to 86% where 95% was
    claimed). The interval is withheld for it too.
    """
    values = np.asarray(draws, dtype=np.float64).ravel()
    defined = int(np.isfinite(values).sum())
    nan = float("nan")
    if values.size == 0:
        return nan, nan, ""
    if not np.isfinite(estimate):
        return nan, nan, "the statistic itself is undefined"
    small = [
        f"{name} holds {size}" for name, size in (set_sizes or {}).items() if size < MIN_SET_WORDS
    ]
    if small:
        return (
            nan,
            nan,
            f"rests on too few words ({', '.join(small)}): which word passes the threshold "
            "changes from sample to sample, and subsamples of this sample keep the one that "
            "passed, so no interval can cover it",
        )
    parts = [values]
    if scheme.scheme == SUBSAMPLE:
        split = first_size_draws(values.size)
        parts = [values[:split], values[split:]]
    if any(np.isfinite(p).sum() < MIN_DEFINED_SHARE * p.size for p in parts):
        return (
            nan,
            nan,
            f"defined in only {defined} of {values.size} draws (an empty word set in the "
            "others), so no interval can cover it",
        )
    if scheme.scheme == SUBSAMPLE and np.isfinite(parts[0]).sum() < 2:
        return nan, nan, "fewer than two subsamples of the first size, so no spread to measure"
    low, high = interval_from_draws(estimate, values, scheme)
    return low, high, ""


def bootstrap_mean(values: Any, scheme: IntervalScheme, rng: np.random.Generator) -> np.ndarray:
    """Draws of the mean of per-unit ``values`` (NaN left out) under a bootstrap scheme.

    Vectorized over blocks of draws (at most about four million drawn indices at a
    time, whatever the number of units). Used for the
    ``bootstrap`` scheme (units are texts, answers, triples) and the ``cluster`` scheme
    (units are whole clusters whose values were computed before).
    """
    if scheme.scheme == SUBSAMPLE:
        raise ConfigError("bootstrap_mean resamples with replacement: not the subsample scheme")
    x = np.asarray(values, dtype=np.float64).ravel()
    x = x[np.isfinite(x)]
    if x.size == 0 or scheme.draws == 0:
        return np.empty(0)
    block = max(1, _BLOCK // x.size)
    out = np.empty(scheme.draws)
    for start in range(0, scheme.draws, block):
        rows = min(block, scheme.draws - start)
        out[start : start + rows] = x[rng.integers(0, x.size, size=(rows, x.size))].mean(axis=1)
    return out


def mean_interval(
    values: Any,
    scheme: IntervalScheme,
    rng: np.random.Generator | None = None,
    bounds: tuple[float, float] | None = None,
) -> tuple[float, float, float]:
    """The mean of ``values`` (NaN left out) and its interval: ``(estimate, low, high)``.

    The percentile interval is widened by :func:`expansion` unless the scheme says
    ``expanded=False``; ``bounds`` (the range the statistic can take, e.g. ``(0, 1)``
    for a share) clip what the widening pushes past them. A constant sample gives the
    estimate as both bounds (every resample equals it).
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    x = x[np.isfinite(x)]
    if x.size == 0:
        return (float("nan"),) * 3
    estimate = float(x.mean())
    if x.min() == x.max() or scheme.draws == 0:
        same = estimate if x.min() == x.max() else float("nan")
        return estimate, same, same
    draws = bootstrap_mean(x, scheme, rng if rng is not None else scheme.rng())
    low, high = interval_from_draws(estimate, draws, scheme)
    if scheme.expanded:
        f = expansion(int(x.size), scheme.confidence)
        low, high = estimate - f * (estimate - low), estimate + f * (high - estimate)
    if bounds is not None:
        low, high = max(bounds[0], low), min(bounds[1], high)
    return estimate, low, high


def expansion(n: int, confidence: float = 0.95) -> float:
    """``sqrt(n / (n - 1)) * t_{n-1} / z``: the widening of a percentile interval of a mean
    of ``n`` units (1 for fewer than 2 units)."""
    if n < 2:
        return 1.0
    q = 0.5 + confidence / 2.0
    return float(np.sqrt(n / (n - 1)) * stats.t.ppf(q, n - 1) / stats.norm.ppf(q))
