"""K-means++ clustering of word vectors, with k chosen by the silhouette score.

Seed ``000`` (Appendix C.3.1) clusters the significant words with scikit-learn's
K-means++ and picks the number of clusters from the silhouette score (Rousseeuw
1987) plotted against k (Figure 8): "1500 clusters is the optimal number since it
is the value of k that has the largest gap between subsequent values of k".

Rules choosing k (``k_rule``; a grid of one k picks that k):

``paper`` (``gap`` is accepted as its old name): the paper's reading. Over the grid
``k_1 < k_2 < ... < k_m`` with silhouette scores ``s_i``, the gap after ``k_i`` is
``s_i - s_{i+1}``, the fall of the score from ``k_i`` to the next k of the grid; the
chosen k is the ``k_i`` (``i < m``) with the largest gap, the last k before the
steepest fall of the curve. Ties go to the smaller k.

``max`` (the default): the k with the largest silhouette.

``stability``: the k whose clusterings agree most across subsamples of the words
(mean pairwise adjusted Rand index, :mod:`gasp.probe._stability`); scores within
``STABILITY_TIE`` of the best count as tied and the tie goes to the larger silhouette.
It costs ``n_resamples`` more k-means fits per k.

On planted structures of known k (``bench/bench_probe_k.py``, ``docs/probe-k.md``)
the noise of the silhouette curve comes mostly from k-means runs stuck in a poor local
optimum: with the best of 5 k-means++ runs per k (``n_init=5``, the default) the
largest silhouette recovers the planted k in about 93% of the structures, as the
stability rule does at several times the cost, while the paper's rule recovers it in
about 40% and a single run per k brings the largest silhouette down to about 60%.

Vectors are scaled to unit length first, so the Euclidean geometry of k-means and
of the silhouette follows the cosine similarity of the embeddings. Each fit uses
``init="k-means++"`` and keeps the best (lowest inertia) of ``n_init`` runs (default
5; scikit-learn's own default for k-means++ is 1). The silhouette is
computed on a random sample of ``sample_size`` words (2,000; the same sample for
every k), on all words when there are fewer.

Fits run on ``n_threads`` threads (default 1): on a busy machine, OpenMP threads that
wait for each other make k-means several times slower than one thread, and the grid
fits many small problems, where more threads gain little.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from sklearn.metrics import silhouette_score
from threadpoolctl import threadpool_limits

from gasp.embeddings import unit_rows
from gasp.errors import ConfigError, DataError
from gasp.probe._stability import (
    DEFAULT_FRACTION,
    DEFAULT_RESAMPLES,
    fit_kmeans,
    stability_scores,
)

KRule = Literal["stability", "paper", "gap", "max"]

#: The rules of :func:`choose_k` (``gap`` is the old name of ``paper``).
K_RULES: tuple[str, ...] = ("stability", "paper", "max", "gap")

#: Stability scores within this much of the best are tied (the tie goes to the silhouette).
STABILITY_TIE = 0.05

#: Largest k of the default grid (the grid stops earlier when there are fewer words).
DEFAULT_MAX_K = 60


@dataclass(frozen=True)
class ClusteringConfig:
    """How :func:`cluster_vectors` fits k-means and chooses k.

    ``k`` fixes the number of clusters (no silhouette grid). Otherwise the grid is
    ``k_grid`` when given, else ``range(k_min, min(k_max, n - 1) + 1, k_step)``.
    """

    k: int | None = None
    k_grid: tuple[int, ...] | None = None
    k_min: int = 2
    k_max: int = DEFAULT_MAX_K
    k_step: int = 1
    k_rule: KRule = "max"
    n_init: int = 5
    n_resamples: int = DEFAULT_RESAMPLES
    resample_fraction: float = DEFAULT_FRACTION
    sample_size: int | None = 2000
    max_iter: int = 300
    n_threads: int | None = 1

    def __post_init__(self) -> None:
        if self.k is not None and self.k < 1:
            raise ConfigError(f"k must be at least 1, got {self.k}")
        if self.k_min < 2:
            raise ConfigError(f"the smallest k of the silhouette grid is 2, got {self.k_min}")
        if self.k_step < 1:
            raise ConfigError(f"k_step must be at least 1, got {self.k_step}")
        if self.k_rule not in K_RULES:
            raise ConfigError(f"k_rule must be one of {', '.join(K_RULES)}, got {self.k_rule!r}")
        if self.k_rule == "gap":
            object.__setattr__(self, "k_rule", "paper")
        if self.n_resamples < 2:
            raise ConfigError(f"n_resamples must be at least 2, got {self.n_resamples}")
        if not 0.0 < self.resample_fraction <= 1.0:
            raise ConfigError(f"resample_fraction must lie in (0, 1], got {self.resample_fraction}")
        if self.n_init < 1:
            raise ConfigError(f"n_init must be at least 1, got {self.n_init}")
        if self.n_threads is not None and self.n_threads < 1:
            raise ConfigError(f"n_threads must be at least 1, got {self.n_threads}")
        if self.sample_size is not None and self.sample_size < 2:
            raise ConfigError(f"sample_size must be at least 2, got {self.sample_size}")

    def grid(self, n_points: int) -> list[int]:
        """The k values the silhouette is computed for, for ``n_points`` vectors."""
        if self.k_grid is not None:
            bad = [k for k in self.k_grid if k < 2 or k > n_points - 1]
            if bad:
                raise ConfigError(
                    f"k_grid values must lie in 2..{n_points - 1} for {n_points} words, got {bad}"
                )
            return sorted(set(self.k_grid))
        top = min(self.k_max, n_points - 1)
        return list(range(self.k_min, top + 1, self.k_step))


@dataclass(frozen=True)
class Clustering:
    """A k-means partition of the rows of a matrix.

    ``labels`` gives the cluster (0..k-1) of each row, ``centers`` the (k, dim)
    centroids, ``distances`` each row's distance to its centroid, ``curve`` the
    silhouette table (columns ``k``, ``silhouette``, ``stability`` (NaN unless the
    stability rule chose k), ``chosen``; empty when k was fixed).
    """

    k: int
    labels: np.ndarray
    centers: np.ndarray
    distances: np.ndarray
    curve: pd.DataFrame


def choose_k(
    ks: Sequence[int],
    scores: Sequence[float],
    rule: KRule = "paper",
    stability: Sequence[float] | np.ndarray | None = None,
) -> int:
    """The k chosen from a silhouette curve (see the module docstring for the rules).

    ``stability`` (one score per k, :func:`gasp.probe._stability.stability_scores`) is
    required by the ``stability`` rule; ties within :data:`STABILITY_TIE` of the best go
    to the larger silhouette (then the smaller k).
    """
    k_arr = np.asarray(ks, dtype=np.int64)
    s_arr = np.asarray(scores, dtype=np.float64)
    if k_arr.size == 0:
        raise DataError("no k to choose from: the silhouette grid is empty")
    if rule not in K_RULES:
        raise ConfigError(f"k_rule must be one of {', '.join(K_RULES)}, got {rule!r}")
    order = np.argsort(k_arr, kind="stable")
    k_arr, s_arr = k_arr[order], s_arr[order]
    if k_arr.size == 1:
        return int(k_arr[0])
    if rule == "max":
        return int(k_arr[int(np.nanargmax(s_arr))])
    if rule == "stability":
        if stability is None:
            raise ConfigError("the stability rule needs a stability score per k")
        st = np.asarray(stability, dtype=np.float64)[order]
        if np.all(np.isnan(st)):
            raise DataError("the stability score is undefined for every k of the grid")
        tied = st >= np.nanmax(st) - STABILITY_TIE
        sil = np.where(tied & np.isfinite(s_arr), s_arr, -np.inf)
        best = np.flatnonzero(tied)[0] if np.all(np.isinf(sil)) else int(np.argmax(sil))
        return int(k_arr[best])
    gaps = s_arr[:-1] - s_arr[1:]
    return int(k_arr[int(np.nanargmax(gaps))])


def _fit(x: np.ndarray, k: int, seed: int, config: ClusteringConfig) -> KMeans:
    return fit_kmeans(x, k, seed, config.n_init, config.max_iter)


def cluster_vectors(
    vectors: np.ndarray,
    config: ClusteringConfig | None = None,
    *,
    rng: np.random.Generator | int | None = 0,
) -> Clustering:
    """Cluster the rows of ``vectors`` with K-means++ and k fixed or chosen by silhouette."""
    cfg = config or ClusteringConfig()
    with threadpool_limits(limits=cfg.n_threads):
        return _cluster(vectors, cfg, np.random.default_rng(rng))


def _cluster(
    vectors: np.ndarray, cfg: ClusteringConfig, generator: np.random.Generator
) -> Clustering:
    x = unit_rows(vectors)
    n = x.shape[0]
    if n == 0:
        raise DataError("no words to cluster")
    kmeans_seed = int(generator.integers(2**31 - 1))
    sample_seed = int(generator.integers(2**31 - 1))
    n_distinct = np.unique(x, axis=0).shape[0]
    if cfg.k is not None:
        if cfg.k > n_distinct:
            raise ConfigError(f"k={cfg.k} is larger than the {n_distinct} distinct words")
        model = _fit(x, cfg.k, kmeans_seed, cfg)
        curve = pd.DataFrame(
            {
                "k": pd.Series(dtype="int64"),
                "silhouette": pd.Series(dtype="float64"),
                "stability": pd.Series(dtype="float64"),
            }
        )
        curve["chosen"] = pd.Series(dtype=bool)
    else:
        grid = [k for k in cfg.grid(n) if k <= n_distinct]
        if not grid:
            raise DataError(
                f"{n} words ({n_distinct} distinct vectors) are too few to choose k by "
                "silhouette; fix k instead"
            )
        sample = None if cfg.sample_size is None or cfg.sample_size >= n else cfg.sample_size
        models: dict[int, KMeans] = {}
        scores: list[float] = []
        for k in grid:
            model_k = _fit(x, k, kmeans_seed, cfg)
            models[k] = model_k
            labels_k = model_k.labels_
            if np.unique(labels_k).size < 2:
                scores.append(float("nan"))
                continue
            scores.append(
                float(silhouette_score(x, labels_k, sample_size=sample, random_state=sample_seed))
            )
        if np.all(np.isnan(scores)):
            raise DataError("the silhouette score is undefined for every k of the grid")
        stability = np.full(len(grid), np.nan)
        if cfg.k_rule == "stability":
            stability = stability_scores(
                x,
                grid,
                rng=np.random.default_rng(sample_seed),
                n_resamples=cfg.n_resamples,
                fraction=cfg.resample_fraction,
                n_init=cfg.n_init,
                max_iter=cfg.max_iter,
            )
        chosen = choose_k(grid, scores, cfg.k_rule, stability)
        model = models[chosen]
        curve = pd.DataFrame({"k": grid, "silhouette": scores, "stability": stability})
        curve["chosen"] = curve["k"] == chosen
    labels = np.asarray(model.labels_, dtype=np.int64)
    centers = np.asarray(model.cluster_centers_, dtype=np.float64)
    distances = np.linalg.norm(x - centers[labels], axis=1)
    return Clustering(
        k=int(centers.shape[0]), labels=labels, centers=centers, distances=distances, curve=curve
    )
