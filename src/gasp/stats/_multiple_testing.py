"""The package's one home of the Benjamini-Hochberg procedure: rejections of word-level
z-scores (:func:`bh_reject`), adjusted p-values (:func:`bh_q_values`) and the p-value
line of a set of tests (:func:`bh_p_cutoff`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.stats import norm
from statsmodels.stats.multitest import multipletests


def two_sided_p(z: np.ndarray) -> np.ndarray:
    """Two-sided p-values of standard normal z-scores (NaN stays NaN)."""
    z_arr = np.asarray(z, dtype=np.float64)
    return 2.0 * norm.sf(np.abs(z_arr))


def bh_reject(z: np.ndarray, alpha: float, tested: np.ndarray | None = None) -> np.ndarray:
    """Benjamini-Hochberg rejections of two-sided tests of ``z`` along the last axis.

    Each row of ``z`` (the last axis holds the words of one comparison) is one family
    of hypotheses. Only entries where ``tested`` is True and ``z`` is finite are in a
    family; every other entry is never rejected. Returns a boolean array shaped like ``z``.
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"the false discovery rate must lie in (0, 1), got {alpha}")
    z2 = np.atleast_2d(np.asarray(z, dtype=np.float64))
    in_family = np.isfinite(z2)
    if tested is not None:
        in_family &= np.broadcast_to(np.asarray(tested, dtype=bool), z2.shape)
    p = two_sided_p(z2)
    reject = np.zeros(z2.shape, dtype=bool)
    for row in range(z2.shape[0]):  # one family per comparison (a handful), not per word
        members = in_family[row]
        if members.any():
            reject[row, members] = multipletests(p[row, members], alpha=alpha, method="fdr_bh")[0]
    return reject.reshape(np.shape(z))


def bh_q_values(p_values: Any) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (q-values) of ``p_values``, one family."""
    return np.asarray(multipletests(np.asarray(p_values, dtype=np.float64), method="fdr_bh")[1])


def bh_p_cutoff(p_values: Any, alpha: float) -> float:
    """The p-value line of the Benjamini-Hochberg procedure at level ``alpha``.

    ``k alpha / m`` for ``m`` p-values of which BH rejects ``k`` (those at most that
    line), ``alpha / m`` when it rejects none; ``alpha`` when there is no p-value.
    NaN p-values are left out of ``m``.
    """
    p = np.asarray(p_values, dtype=np.float64).ravel()
    p = np.sort(p[np.isfinite(p)])
    m = p.size
    if m == 0:
        return float(alpha)
    line = alpha * np.arange(1, m + 1) / m
    below = np.flatnonzero(p <= line)
    k = int(below[-1]) + 1 if below.size else 0
    return float(max(k, 1) * alpha / m)
