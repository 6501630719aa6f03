"""Stability of k-means clusterings under resampling of the words, per k.

The ``stability`` rule of :func:`gasp.probe.choose_k` reads k from how reproducible
the partition is rather than from the shape of the silhouette curve: for each k of
the grid, k-means++ clusters ``n_resamples`` subsamples of the words (a share
``fraction`` of them, drawn without replacement; the same subsamples for every k),
and the score of k is the mean adjusted Rand index (Hubert and Arabie 1985) of every
pair of those clusterings, computed on the words the two subsamples share. A k that
splits real groups apart, or merges them, depends on which words were drawn and
scores lower than the k of the groups themselves.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from itertools import combinations

import numpy as np
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score

from gasp.errors import ConfigError

#: Subsamples per k and share of the words in each.
DEFAULT_RESAMPLES = 6
DEFAULT_FRACTION = 0.8


def fit_kmeans(x: np.ndarray, k: int, seed: int, n_init: int, max_iter: int) -> KMeans:
    """k-means++ fitted on ``x`` (convergence warnings silenced: a short run is kept as is)."""
    model = KMeans(
        n_clusters=k, init="k-means++", n_init=n_init, max_iter=max_iter, random_state=seed
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(x)
    return model


def stability_scores(
    x: np.ndarray,
    grid: Sequence[int],
    *,
    rng: np.random.Generator,
    n_resamples: int = DEFAULT_RESAMPLES,
    fraction: float = DEFAULT_FRACTION,
    n_init: int = 5,
    max_iter: int = 300,
) -> np.ndarray:
    """Mean pairwise adjusted Rand index of k-means on subsamples of ``x``, per k of ``grid``.

    NaN for a k larger than a subsample's distinct points. Raises ConfigError for fewer
    than 2 resamples or a fraction outside (0, 1].
    """
    if n_resamples < 2:
        raise ConfigError(f"stability needs at least 2 resamples, got {n_resamples}")
    if not 0.0 < fraction <= 1.0:
        raise ConfigError(f"the subsample fraction must lie in (0, 1], got {fraction}")
    n = x.shape[0]
    size = max(2, round(fraction * n))
    subsets = [np.sort(rng.choice(n, size=size, replace=False)) for _ in range(n_resamples)]
    seeds = [int(s) for s in rng.integers(2**31 - 1, size=n_resamples)]
    pairs = []
    for a, b in combinations(range(n_resamples), 2):
        shared, in_a, in_b = np.intersect1d(subsets[a], subsets[b], return_indices=True)
        pairs.append((a, b, in_a, in_b) if shared.size >= 2 else None)
    points = [x[subset] for subset in subsets]
    distinct = [np.unique(p, axis=0).shape[0] for p in points]
    scores = np.full(len(grid), np.nan)
    for gi, k in enumerate(grid):
        labels = []
        for sample, n_distinct, seed in zip(points, distinct, seeds, strict=True):
            if k > n_distinct:
                break
            labels.append(fit_kmeans(sample, k, seed, n_init, max_iter).labels_)
        if len(labels) < n_resamples:
            continue
        agreement = [
            adjusted_rand_score(labels[p[0]][p[2]], labels[p[1]][p[3]])
            for p in pairs
            if p is not None
        ]
        if agreement:
            scores[gi] = float(np.mean(agreement))
    return scores
