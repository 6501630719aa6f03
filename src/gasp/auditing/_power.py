"""Power of the scorecard's tests: the smallest difference a size finds with 80% power,
and the size that finds a given difference.

The level of one comparison is the audit's level divided by the number of comparisons
of the scorecard: Benjamini-Hochberg rejects anything only when the smallest p-value is
at most ``level / m``, so that is the level a difference needs when it is the only real
one (with more real differences the correction is milder and the power higher).

Each test kind of :mod:`gasp.auditing._difference` is planned with the test it uses:

* ``mcnemar`` (a 0/1 share over shared units, compared as a value): the exact McNemar
  test, its power simulated (no library has the exact test's power); the two models'
  answers to one unit are assumed independent given their shares, which makes the
  discordant units as many as they can be at those shares;
* ``paired share`` (a 0/1 share compared as a distance to a reference, the jackknife
  t-test, which is the paired t-test for a mean): the paired t-test's power
  (statsmodels' ``TTestPower``) on the per-unit differences, whose variance is
  ``p0(1-p0) + p1(1-p1)`` under the same independence;
* ``paired units`` (a statistic of jobs or occupations, the jackknife t-test): the
  paired t-test's power with the per-unit standard deviation of the differences stated.

A difference is planted in the worse direction: away from the reference, or up for a
lower-is-better share.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import binom
from statsmodels.stats.power import TTestPower

#: The power a plan asks for.
POWER = 0.8
#: Test kinds the planner knows.
MCNEMAR = "mcnemar"
PAIRED_SHARE = "paired share"
PAIRED_UNITS = "paired units"
#: Replicates of a simulated power.
SIMULATIONS = 4000
#: Most units a plan considers.
MAX_UNITS = 200_000


@dataclass(frozen=True)
class Effect:
    """What a planted difference is measured against: the baseline's share ``p0`` (a
    share metric), the reference it is compared with (None: a value), whether lower is
    better, and the per-unit standard deviation of paired differences (``paired units``)."""

    kind: str
    p0: float = 0.5
    reference: float | None = None
    lower_is_better: bool = True
    sd: float = float("nan")

    def shifted(self, delta: float) -> float:
        """The model's share when it is ``delta`` worse than the baseline."""
        up = self.lower_is_better if self.reference is None else self.p0 >= self.reference
        p1 = self.p0 + delta if up else self.p0 - delta
        if not 0.0 <= p1 <= 1.0:
            p1 = self.p0 - delta if up else self.p0 + delta
        return min(max(p1, 0.0), 1.0)


def _mcnemar_power(n: int, p0: float, p1: float, alpha: float, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    probs = [p1 * (1 - p0), p0 * (1 - p1)]
    probs.append(max(0.0, 1.0 - sum(probs)))
    counts = rng.multinomial(n, probs, size=SIMULATIONS)
    b, c = counts[:, 0], counts[:, 1]
    total = b + c
    p = np.minimum(1.0, 2 * binom.cdf(np.minimum(b, c), np.maximum(total, 1), 0.5))
    p = np.where(total == 0, 1.0, p)
    return float(np.mean(p <= alpha))


def power(effect: Effect, delta: float, n: int, alpha: float) -> float:
    """The power of the scorecard's test to find ``delta`` over ``n`` shared units at
    the per-comparison level ``alpha``."""
    if n < 2 or delta <= 0:
        return 0.0
    if effect.kind == MCNEMAR:
        return _mcnemar_power(n, effect.p0, effect.shifted(delta), alpha)
    if effect.kind == PAIRED_SHARE:
        p0, p1 = effect.p0, effect.shifted(delta)
        sd = math.sqrt(p0 * (1 - p0) + p1 * (1 - p1))
        size = abs(p1 - p0) / sd if sd > 0 else math.inf
    else:
        size = delta / effect.sd if effect.sd > 0 else math.inf
    if not math.isfinite(size):
        return 1.0 if size > 0 else 0.0
    value = float(TTestPower().power(effect_size=size, nobs=n, alpha=alpha))
    # the noncentral t's tail underflows (nan) only far beyond any doubt
    return value if math.isfinite(value) else 1.0


def units_needed(effect: Effect, delta: float, alpha: float) -> int | None:
    """The fewest shared units with which ``delta`` is found with 80% power (None: none
    up to :data:`MAX_UNITS`)."""
    low, high = 1, 2
    while power(effect, delta, high, alpha) < POWER:
        low, high = high, high * 2
        if high > MAX_UNITS:
            return None
    while high - low > 1:
        mid = (low + high) // 2
        if power(effect, delta, mid, alpha) >= POWER:
            high = mid
        else:
            low = mid
    return high


def detectable(effect: Effect, n: int, alpha: float) -> float:
    """The smallest difference found with 80% power over ``n`` units (inf: none)."""
    if effect.kind == PAIRED_UNITS:
        top = 20.0 * (effect.sd if effect.sd > 0 else 1.0)
    else:
        top = max(effect.p0, 1 - effect.p0)
    if power(effect, top, n, alpha) < POWER:
        return math.inf
    low, high = 0.0, top
    for _ in range(20):
        mid = (low + high) / 2
        if power(effect, mid, n, alpha) >= POWER:
            high = mid
        else:
            low = mid
    return high


__all__ = [
    "MCNEMAR",
    "PAIRED_SHARE",
    "PAIRED_UNITS",
    "POWER",
    "Effect",
    "detectable",
    "power",
    "units_needed",
]
