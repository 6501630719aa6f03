"""The package's one interval for a proportion: the Wilson score interval."""

from __future__ import annotations

from statsmodels.stats.proportion import proportion_confint


def wilson_interval(count: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of ``count`` successes out of ``n`` trials at
    ``confidence``, within [0, 1] (NaN, NaN when there is no trial)."""
    if n <= 0:
        return float("nan"), float("nan")
    low, high = proportion_confint(count, n, alpha=1 - confidence, method="wilson")
    share = count / n  # the interval holds its estimate (rounding can miss it at 0 and 1)
    return max(0.0, min(float(low), share)), min(1.0, max(float(high), share))


__all__ = ["wilson_interval"]
