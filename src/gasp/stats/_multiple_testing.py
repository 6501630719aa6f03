"""Benjamini-Hochberg false discovery rate control over word-level z-scores."""

from __future__ import annotations

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
