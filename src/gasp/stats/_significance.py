"""Hypothesis-test helpers: Welch's t-test, Bernoulli standard errors, percent change,
bootstrap confidence intervals and permutation tests.

Seed ``000`` compares SRB scores of associated women and men across occupations
with Welch's t-test (Appendix B.4, Table 13), compares the scores of two models
per gender the same way (Table 14), reports the standard error of the share of
women per occupation (Table 11) and plots the percent change of SRB scores
between models (Figure 4).

The resampling helpers take an explicit :class:`numpy.random.Generator` and a
caller-supplied statistic, so that any analysis (for example re-running the
SRB score of one occupation on generations resampled within each group) can be
bootstrapped or permuted without global seeding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy import stats

from gasp.errors import ConfigError

Alternative = Literal["two-sided", "less", "greater"]
_ALTERNATIVES: tuple[str, ...] = ("two-sided", "less", "greater")


@dataclass(frozen=True)
class WelchResult:
    """Welch's unequal-variance t-test of ``a`` against ``b``.

    ``mean_difference`` is ``mean_a - mean_b``; ``df`` the Welch-Satterthwaite
    degrees of freedom; ``nan_a`` and ``nan_b`` count the NaN (and infinite) values
    dropped. ``reason`` says in words why ``t``, ``df`` and ``p_value`` are NaN (None
    when the test is defined); :meth:`to_row` carries it into result tables.
    """

    mean_a: float
    mean_b: float
    mean_difference: float
    t: float
    df: float
    p_value: float
    n_a: int
    n_b: int
    nan_a: int
    nan_b: int
    alternative: str = "two-sided"
    reason: str | None = None

    @property
    def defined(self) -> bool:
        """Whether the test could be computed (no ``reason``)."""
        return self.reason is None

    def to_row(self) -> dict[str, Any]:
        """The result as one table row: ``statistic`` (t), ``p_value``, ``df``, the means,
        the counts and ``reason`` (an empty string when the test is defined)."""
        return {
            "statistic": self.t,
            "p_value": self.p_value,
            "df": self.df,
            "mean_a": self.mean_a,
            "mean_b": self.mean_b,
            "n_a": self.n_a,
            "n_b": self.n_b,
            "reason": self.reason or "",
        }


def _finite_part(values: Any) -> tuple[np.ndarray, int]:
    arr = np.asarray(values, dtype=np.float64).ravel()
    keep = np.isfinite(arr)
    return arr[keep], int((~keep).sum())


def _too_few_reason(n_a: int, n_b: int, nan_a: int, nan_b: int, unit: str) -> str:
    """Why a group has too few values for Welch's t-test, in words."""
    parts = []
    for label, n, dropped in (("first", n_a, nan_a), ("second", n_b, nan_b)):
        if n >= 2:
            continue
        text = f"the {label} group has {n or 'none'}"
        if dropped:
            text += f" ({dropped} undefined left out)"
        parts.append(text)
    return f"Welch's t-test needs at least 2 {unit} per group: " + " and ".join(parts)


def _check_alternative(alternative: str) -> None:
    if alternative not in _ALTERNATIVES:
        raise ConfigError(f"alternative must be one of {', '.join(_ALTERNATIVES)}: {alternative!r}")


_RELATIVE_ROUNDING = 1e-12


def welch_t_test(
    a: Any, b: Any, *, alternative: Alternative = "two-sided", unit: str = "values"
) -> WelchResult:
    """Welch's t-test (``scipy.stats.ttest_ind(equal_var=False)``) with NaNs dropped and counted.

    ``t = (mean_a - mean_b) / sqrt(var_a/n_a + var_b/n_b)`` with sample variances
    (ddof 1), and ``df = (var_a/n_a + var_b/n_b)**2 / ((var_a/n_a)**2/(n_a-1) +
    (var_b/n_b)**2/(n_b-1))``. NaN and infinite values are dropped and counted. With
    fewer than two values in a group, or no variance in either, the test is
    undefined: ``t``, ``df`` and ``p_value`` are NaN and ``reason`` says why, naming
    the values by ``unit`` (a plural noun such as ``"occupations"``).
    """
    _check_alternative(alternative)
    xa, nan_a = _finite_part(a)
    xb, nan_b = _finite_part(b)
    n_a, n_b = int(xa.size), int(xb.size)
    mean_a = float(xa.mean()) if n_a else float("nan")
    mean_b = float(xb.mean()) if n_b else float("nan")
    nan = float("nan")

    def result(t: float, df: float, p: float, reason: str | None = None) -> WelchResult:
        return WelchResult(
            mean_a=mean_a,
            mean_b=mean_b,
            mean_difference=mean_a - mean_b,
            t=t,
            df=df,
            p_value=p,
            n_a=n_a,
            n_b=n_b,
            nan_a=nan_a,
            nan_b=nan_b,
            alternative=alternative,
            reason=reason,
        )

    if n_a < 2 or n_b < 2:
        return result(nan, nan, nan, _too_few_reason(n_a, n_b, nan_a, nan_b, unit))
    va, vb = xa.var(ddof=1) / n_a, xb.var(ddof=1) / n_b
    # Values equal up to floating-point rounding (the same score computed along two
    # paths) have no real variance: t would be a meaningless ratio of rounding errors.
    scale = max(1.0, abs(mean_a), abs(mean_b))
    constant = max(np.ptp(xa), np.ptp(xb)) <= _RELATIVE_ROUNDING * scale
    if va + vb == 0 or constant:
        return result(
            nan,
            nan,
            nan,
            f"Welch's t-test is undefined: both groups have zero variance (the first group's "
            f"{n_a} {unit} are all {xa[0]:g}, the second group's {n_b} are all {xb[0]:g})",
        )
    res = stats.ttest_ind(xa, xb, equal_var=False, alternative=alternative)
    df = (va + vb) ** 2 / (va**2 / (n_a - 1) + vb**2 / (n_b - 1))
    return result(float(res.statistic), float(df), float(res.pvalue))


def bernoulli_se(p: Any, n: Any) -> np.ndarray:
    """Standard error ``sqrt(p (1 - p) / n)`` of a proportion ``p`` estimated from ``n`` trials.

    Vectorized over broadcastable ``p`` and ``n``; NaN where ``n == 0`` or ``p`` is NaN.
    Raises :class:`~gasp.errors.ConfigError` for ``p`` outside [0, 1] or negative ``n``.
    """
    p_arr = np.asarray(p, dtype=np.float64)
    n_arr = np.asarray(n, dtype=np.float64)
    if np.any((p_arr < 0) | (p_arr > 1)):
        raise ConfigError("a proportion must lie in [0, 1]")
    if np.any(n_arr < 0):
        raise ConfigError("a number of trials cannot be negative")
    p_b, n_b = np.broadcast_arrays(p_arr, n_arr)
    out = np.full(p_b.shape, np.nan)
    ok = n_b > 0
    np.sqrt(p_b * (1.0 - p_b) / np.where(ok, n_b, 1.0), out=out, where=ok)
    return out


def percent_change(old: Any, new: Any) -> np.ndarray:
    """Percent change ``100 * (new - old) / old`` (vectorized; NaN where ``old == 0``).

    Sign convention: the change is relative to ``old`` itself, not to its
    absolute value, so a positive result means ``new`` moved *away from zero in
    the direction of old's sign* (its magnitude grew), and a negative result
    means it moved toward zero or across it. For SRB scores this is the reading
    of Figure 4 of seed ``000``: a female score going from -0.1 to -0.2 and a
    male score going from 0.1 to 0.2 are both +100% (more similar to the
    corresponding specified gender). For positive quantities it is the usual
    percent increase.
    """
    old_arr = np.asarray(old, dtype=np.float64)
    new_arr = np.asarray(new, dtype=np.float64)
    o, nw = np.broadcast_arrays(old_arr, new_arr)
    out = np.full(o.shape, np.nan)
    ok = o != 0
    np.divide(100.0 * (nw - o), o, out=out, where=ok)
    return out


def _take(group: Any, idx: np.ndarray) -> Any:
    """Rows ``idx`` of a group: arrays, sparse matrices, pandas objects, or ``.subset`` holders."""
    if isinstance(group, pd.DataFrame | pd.Series):
        return group.iloc[idx]
    if hasattr(group, "subset") and callable(group.subset):
        return group.subset(idx)
    return group[idx]


def _as_group(group: Any) -> Any:
    if isinstance(group, np.ndarray | pd.DataFrame | pd.Series) or sp.issparse(group):
        return group
    if hasattr(group, "subset") and hasattr(group, "n_documents"):
        return group
    return np.asarray(group, dtype=object) if isinstance(group, list | tuple) else group


def _length(group: Any) -> int:
    if hasattr(group, "n_documents"):
        return int(group.n_documents)
    if hasattr(group, "shape"):
        return int(group.shape[0])
    return len(group)


@dataclass(frozen=True)
class BootstrapResult:
    """A bootstrap confidence interval of a statistic.

    ``estimate`` is the statistic on the original data, ``low`` and ``high`` the
    interval, ``n_failed`` the resamples whose statistic was NaN (dropped before
    taking percentiles), ``distribution`` the finite resampled statistics.
    """

    estimate: float
    low: float
    high: float
    confidence: float
    n_resamples: int
    n_failed: int
    method: str
    distribution: np.ndarray


def bootstrap_ci(
    groups: Sequence[Any],
    statistic: Callable[..., float],
    *,
    rng: np.random.Generator,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    method: Literal["percentile", "basic"] = "percentile",
) -> BootstrapResult:
    """Bootstrap interval of ``statistic(*groups)``, resampling rows within each group.

    Every group (a NumPy array, list, sparse matrix, pandas object or anything
    with ``.subset(rows)`` such as :class:`gasp.text.DocTermCounts`) is resampled
    independently with replacement, keeping its size; ``statistic`` receives
    the resampled groups in order and returns a float. For example, the SRB
    score of one occupation is bootstrapped by passing the generations of each
    gender group and a statistic that recomputes the significant words and the
    score. ``method`` is ``percentile`` (quantiles of the resampled statistics)
    or ``basic`` (reflected around the estimate). Resamples whose statistic is
    NaN are dropped and counted in ``n_failed``.
    """
    if n_resamples < 1:
        raise ConfigError("n_resamples must be at least 1")
    if not 0 < confidence < 1:
        raise ConfigError("confidence must lie strictly between 0 and 1")
    if method not in ("percentile", "basic"):
        raise ConfigError(f"unknown bootstrap method {method!r}: use 'percentile' or 'basic'")
    data = [_as_group(g) for g in groups]
    sizes = [_length(g) for g in data]
    if not data or any(size == 0 for size in sizes):
        raise ConfigError("bootstrap needs at least one group and no empty group")
    estimate = float(statistic(*data))
    values = np.empty(n_resamples)
    for i in range(n_resamples):
        resampled = [
            _take(g, rng.integers(0, size, size)) for g, size in zip(data, sizes, strict=True)
        ]
        values[i] = float(statistic(*resampled))
    finite = values[~np.isnan(values)]
    n_failed = n_resamples - int(finite.size)
    alpha = (1.0 - confidence) / 2.0
    if finite.size == 0:
        low = high = float("nan")
    else:
        q_low, q_high = np.quantile(finite, [alpha, 1.0 - alpha])
        if method == "basic":
            low, high = 2 * estimate - float(q_high), 2 * estimate - float(q_low)
        else:
            low, high = float(q_low), float(q_high)
    return BootstrapResult(
        estimate=estimate,
        low=low,
        high=high,
        confidence=confidence,
        n_resamples=n_resamples,
        n_failed=n_failed,
        method=method,
        distribution=finite,
    )


@dataclass(frozen=True)
class PermutationResult:
    """A permutation test of a statistic under shuffled labels.

    ``p_value`` includes the observed labelling (``(1 + k) / (1 + B)``), so it is
    never zero; ``null_distribution`` holds the finite permuted statistics and
    ``n_failed`` counts the permutations whose statistic was NaN.
    """

    statistic: float
    p_value: float
    n_permutations: int
    n_failed: int
    alternative: str
    null_distribution: np.ndarray


def permutation_test(
    data: Any,
    labels: Any,
    statistic: Callable[[Any, np.ndarray], float],
    *,
    rng: np.random.Generator,
    n_permutations: int = 1000,
    alternative: Alternative = "two-sided",
) -> PermutationResult:
    """Permutation test of ``statistic(data, labels)`` under random shuffles of ``labels``.

    ``data`` is passed unchanged; only ``labels`` (one per row, for example the
    associated gender of each generation) is permuted with ``rng``. The p-value
    counts permuted statistics at least as extreme as the observed one:
    ``greater`` counts ``T* >= T``, ``less`` counts ``T* <= T``, ``two-sided`` is
    twice the smaller one-sided p-value, capped at 1. Each count includes the
    observed labelling, ``p = (1 + k) / (1 + B)``.
    """
    _check_alternative(alternative)
    if n_permutations < 1:
        raise ConfigError("n_permutations must be at least 1")
    label_arr = np.asarray(labels)
    observed = float(statistic(data, label_arr))
    if np.isnan(observed):
        raise ConfigError("the statistic is NaN on the observed labels; nothing to test")
    null = np.empty(n_permutations)
    for i in range(n_permutations):
        null[i] = float(statistic(data, rng.permutation(label_arr)))
    finite = null[~np.isnan(null)]
    n_failed = n_permutations - int(finite.size)
    b = finite.size
    # Relative tolerance so that a permuted statistic equal to the observed one up to
    # floating-point rounding counts as "at least as extreme" (as scipy does).
    gamma = abs(1e-14 * observed)
    p_greater = (1 + int((finite >= observed - gamma).sum())) / (1 + b)
    p_less = (1 + int((finite <= observed + gamma).sum())) / (1 + b)
    if alternative == "greater":
        p = p_greater
    elif alternative == "less":
        p = p_less
    else:
        p = min(1.0, 2.0 * min(p_greater, p_less))
    return PermutationResult(
        statistic=observed,
        p_value=float(p),
        n_permutations=n_permutations,
        n_failed=n_failed,
        alternative=alternative,
        null_distribution=finite,
    )
