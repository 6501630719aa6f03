"""Paired tests of two scores measured on the same units (e.g. SRB of women and men per occupation).

When each unit (an occupation) carries one score of each kind, the two scores are
correlated (they share the unit's named word sets), and a two-sample test such as
Welch's treats them as independent: its null spread is too wide by ``sqrt(1 - rho)``
and it loses power. The paired tests here work on the differences ``d_i = a_i - b_i``
of the units that have both scores:

* the paired t-test: ``t = mean(d) / (sd(d) / sqrt(n))`` with ``n - 1`` degrees of
  freedom (``scipy.stats.ttest_rel``), and the t interval of the mean difference
  ``mean(d) +- t_{n-1} sd(d) / sqrt(n)`` (it excludes 0 exactly when the test rejects
  at the matching level);
* the sign-flip permutation test: under the null hypothesis that the two scores of a
  unit are exchangeable, each difference is as likely to be ``+d_i`` as ``-d_i``. The
  statistic is ``|mean(d)|``; its null distribution is every assignment of signs
  (``2**n`` of them, enumerated exactly when ``n`` is at most :data:`EXACT_UNITS`) or
  ``draws`` random assignments from a seeded :class:`numpy.random.Generator`, all at
  once. Exact p-value: the share of sign assignments (the observed one included) whose
  statistic is at least the observed one; Monte Carlo p-value:
  ``(1 + #{stat* >= stat}) / (1 + draws)``. With ``n`` units the smallest exact
  p-value is ``2 / 2**n`` (0.0625 for five units: fewer than six units cannot reject
  at 5%).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import stats

#: Up to this many units the sign-flip test enumerates every assignment of signs.
EXACT_UNITS = 16
#: Sign assignments per block of the Monte Carlo test (memory cap: block x units).
_BLOCK = 1 << 14
_TIE = 1e-12


@dataclass(frozen=True)
class SignFlipResult:
    """The sign-flip permutation test of mean differences: ``statistic`` is ``mean(d)``,
    ``method`` ``exact`` or ``monte carlo``, ``draws`` the sign assignments compared."""

    statistic: float
    p_value: float
    method: str
    draws: int


@dataclass(frozen=True)
class PairedResult:
    """A paired comparison of ``a`` and ``b`` over the units that have both values.

    ``n`` counts those units, ``n_unpaired`` the units left out (a value missing);
    ``mean_a``, ``mean_b`` are means over the paired units, ``mean_difference`` is
    ``mean(a - b)`` with its t interval ``[low, high]`` at ``level``; ``correlation``
    is Pearson's r of ``a`` and ``b``; ``t``, ``df``, ``p_t`` the paired t-test;
    ``sign_flip`` the permutation test. ``reason`` says why the t-test is undefined.
    """

    n: int
    n_unpaired: int
    mean_a: float
    mean_b: float
    mean_difference: float
    sd_difference: float
    low: float
    high: float
    level: float
    correlation: float
    t: float
    df: float
    p_t: float
    sign_flip: SignFlipResult
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The fields as a flat dict (the sign-flip fields prefixed ``sign_flip_``)."""
        row = asdict(self)
        flip = row.pop("sign_flip")
        row.update({f"sign_flip_{k}": v for k, v in flip.items()})
        return row


def sign_flip_test(
    differences: Any, rng: np.random.Generator, draws: int = 9999, exact_units: int = EXACT_UNITS
) -> SignFlipResult:
    """Two-sided sign-flip permutation test of ``mean(differences) = 0`` (NaN dropped).

    Exact (every sign assignment) with at most ``exact_units`` differences, otherwise
    ``draws`` random assignments from ``rng``. NaN p-value without any difference.
    """
    d = np.asarray(differences, dtype=np.float64).ravel()
    d = d[np.isfinite(d)]
    n = int(d.size)
    if n == 0:
        return SignFlipResult(float("nan"), float("nan"), "none", 0)
    observed = float(d.mean())
    target = abs(observed) - _TIE * max(1.0, float(np.abs(d).max()))
    if n <= exact_units:
        codes = np.arange(1 << n, dtype=np.int64)[:, None] >> np.arange(n)
        signs = 1.0 - 2.0 * (codes & 1)
        null = np.abs(signs @ d) / n
        return SignFlipResult(observed, float((null >= target).mean()), "exact", int(1 << n))
    hits = 0
    for start in range(0, draws, _BLOCK):
        rows = min(_BLOCK, draws - start)
        signs = rng.integers(0, 2, size=(rows, n)) * 2.0 - 1.0
        hits += int((np.abs(signs @ d) / n >= target).sum())
    return SignFlipResult(observed, (1 + hits) / (1 + draws), "monte carlo", int(draws))


def paired_test(
    a: Any,
    b: Any,
    rng: np.random.Generator,
    *,
    level: float = 0.95,
    draws: int = 9999,
    exact_units: int = EXACT_UNITS,
) -> PairedResult:
    """The paired t-test, the t interval of ``mean(a - b)`` and the sign-flip test.

    ``a`` and ``b`` hold one value per unit in the same order; units missing either
    value are left out and counted. Fewer than two units, or differences without
    variance, leave the t-test and interval undefined (``reason`` says why); the
    sign-flip test is still run on what there is.
    """
    xa = np.asarray(a, dtype=np.float64).ravel()
    xb = np.asarray(b, dtype=np.float64).ravel()
    if xa.shape != xb.shape:
        raise ValueError(f"paired values need one value of each per unit: {xa.size} != {xb.size}")
    keep = np.isfinite(xa) & np.isfinite(xb)
    xa, xb = xa[keep], xb[keep]
    d = xa - xb
    n = int(d.size)
    nan = float("nan")
    flip = sign_flip_test(d, rng, draws, exact_units)
    mean_a = float(xa.mean()) if n else nan
    mean_b = float(xb.mean()) if n else nan
    mean = float(d.mean()) if n else nan
    sd = float(d.std(ddof=1)) if n > 1 else nan
    corr = nan
    if n > 2 and xa.std() > 0 and xb.std() > 0:
        corr = float(np.corrcoef(xa, xb)[0, 1])
    t = df = p = low = high = nan
    reason = None
    if n < 2:
        reason = f"a paired test needs at least 2 units with both scores, got {n}"
    elif not sd > _TIE * max(1.0, abs(mean)):
        reason = "the differences have no variance"
    else:
        se = sd / np.sqrt(n)
        df = float(n - 1)
        t = mean / se
        p = float(2.0 * stats.t.sf(abs(t), df))
        half = float(stats.t.ppf(0.5 + level / 2.0, df)) * se
        low, high = float(mean - half), float(mean + half)
    return PairedResult(
        n=n,
        n_unpaired=int((~keep).sum()),
        mean_a=mean_a,
        mean_b=mean_b,
        mean_difference=mean,
        sd_difference=sd,
        low=low,
        high=high,
        level=level,
        correlation=corr,
        t=float(t),
        df=df,
        p_t=p,
        sign_flip=flip,
        reason=reason,
    )
