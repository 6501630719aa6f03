"""The Probe step of GAS(P): cluster the significant words into patterns (seed ``000`` §5.3).

:func:`probe_words` (and its estimator twin :class:`Probe`) takes a long table of
significant words, one row per (model, subject, group, word), and

1. pools the distinct words of every model, subject and group, and removes names,
   short words and non-English words (:mod:`gasp.probe._word_filter`);
2. embeds the remaining words (MiniLM by default, any provider of
   :func:`gasp.embeddings.load_embeddings` or any object with a ``lookup`` method)
   and clusters them with K-means++, k fixed or chosen by the silhouette score
   (:mod:`gasp.probe._clustering`);
3. measures, per cluster and model, in how many subjects the cluster is significant
   for each of the two groups, and keeps the clusters at least 50% more prevalent
   for one group and present in at least 3 subjects (:mod:`gasp.probe._prevalence`).

Tables of a :class:`ProbeResult` (``clusters`` is stored as
:data:`gasp.studies.more_of_the_same.analysis.PROBE_CLUSTERS`, ``silhouette`` as
:data:`gasp.studies.more_of_the_same.analysis.PROBE_SILHOUETTE`):

``clusters`` (one row per cluster and model, Figure 5)
    ``cluster`` (id), ``words`` (the ``n_top_words`` words closest to the centroid,
    joined by ``", "``), ``size`` (words in the cluster), ``model``, ``n_<A>``,
    ``n_<B>``, ``n_subjects`` ('#'), ``pct_<A>``, ``pct_<B>``, ``dominant_group``,
    ``kept``, ``kept_all_models`` (definitions in :mod:`gasp.probe._prevalence`),
    where ``<A>`` and ``<B>`` are the two group labels. Sorted by cluster then model;
    clusters are numbered by decreasing size.
``silhouette`` (Figure 8)
    ``k``, ``silhouette`` (sampled silhouette score), ``chosen`` (the k used);
    empty when k was fixed.
``assignments``
    ``word``, ``cluster``, ``distance`` (to the centroid of unit-length vectors).
``words``
    every distinct input word with ``reason`` (``kept``, ``short``, ``name``,
    ``non_english``, ``no_embedding``), ``zipf`` and ``cluster`` (-1 when removed).
``coverage`` (one row per model)
    ``model``, ``significant_rows`` (rows of the two groups), ``clustered_rows``
    (rows whose word has a cluster), ``unclustered_share`` (the share left out).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np
import pandas as pd

from gasp.errors import ConfigError, DataError
from gasp.probe._clustering import Clustering, ClusteringConfig, cluster_vectors
from gasp.probe._prevalence import PrevalenceConfig, check_word_table, cluster_prevalence
from gasp.probe._word_filter import KEPT, WordFilterConfig, filter_words

NO_EMBEDDING = "no_embedding"
#: The embeddings the probe clusters words with unless told otherwise.
PROBE_EMBEDDINGS = "minilm"


class WordVectorSource(Protocol):
    """Anything that maps words to vectors: ``lookup(words) -> (vectors, found_mask)``.

    As :class:`gasp.embeddings.WordEmbeddings`: ``vectors`` holds one row per found
    word in input order (a row for every word is accepted too).
    """

    def lookup(self, words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Vectors of the found words and a boolean found-mask over ``words``."""
        ...


@dataclass(frozen=True)
class ProbeConfig:
    """Every option of the Probe step besides the groups, the embeddings, k and the seed."""

    filter: WordFilterConfig = field(default_factory=WordFilterConfig)
    clustering: ClusteringConfig = field(default_factory=ClusteringConfig)
    prevalence: PrevalenceConfig = field(default_factory=PrevalenceConfig)
    n_top_words: int = 5

    def __post_init__(self) -> None:
        if self.n_top_words < 1:
            raise ConfigError(f"n_top_words must be at least 1, got {self.n_top_words}")


@dataclass(frozen=True)
class ProbeResult:
    """The tables of the Probe step (columns in the module docstring) and the k used."""

    clusters: pd.DataFrame
    silhouette: pd.DataFrame
    assignments: pd.DataFrame
    words: pd.DataFrame
    coverage: pd.DataFrame
    k: int
    group_a: str
    group_b: str
    settings: dict[str, Any] = field(default_factory=dict)

    def kept_clusters(self) -> pd.DataFrame:
        """The rows of the clusters kept for every model (the clusters of Figure 5)."""
        return self.clusters[self.clusters["kept_all_models"]].reset_index(drop=True)

    def cluster_words(self, cluster: int) -> list[str]:
        """All words of ``cluster``, closest to the centroid first."""
        rows = self.assignments[self.assignments["cluster"] == cluster]
        return rows.sort_values(["distance", "word"])["word"].tolist()

    def meta(self) -> dict[str, Any]:
        """Metadata to store beside the tables (groups, k, filter counts)."""
        reasons = self.words["reason"].value_counts().to_dict()
        return {
            "group_a": self.group_a,
            "group_b": self.group_b,
            "k": self.k,
            "words": {str(key): int(value) for key, value in reasons.items()},
        }


def resolve_embeddings(embeddings: str | WordVectorSource) -> WordVectorSource:
    """An embedding provider from a spec (``minilm``, ``glove``, a path) or an object."""
    if isinstance(embeddings, str):
        from gasp.embeddings import load_embeddings

        source: WordVectorSource = load_embeddings(embeddings)
        return source
    if not callable(getattr(embeddings, "lookup", None)):
        raise ConfigError("embeddings must be a spec string or an object with a lookup method")
    return embeddings


def _relabel_by_size(clustering: Clustering) -> np.ndarray:
    """Cluster ids renumbered by decreasing size (ties by smallest old id)."""
    sizes = np.bincount(clustering.labels, minlength=clustering.k)
    order = np.lexsort((np.arange(clustering.k), -sizes))
    new_id = np.empty(clustering.k, dtype=np.int64)
    new_id[order] = np.arange(clustering.k)
    return new_id[clustering.labels]


def _cluster_summary(assignments: pd.DataFrame, n_top_words: int) -> pd.DataFrame:
    ranked = assignments.sort_values(["cluster", "distance", "word"], kind="mergesort")
    top = ranked.groupby("cluster", sort=True)["word"].agg(
        lambda words: ", ".join(words.iloc[:n_top_words])
    )
    size = ranked.groupby("cluster", sort=True).size()
    return pd.DataFrame({"cluster": top.index, "words": top.to_numpy(), "size": size.to_numpy()})


def _coverage(table: pd.DataFrame, clustered: set[str], groups: list[str]) -> pd.DataFrame:
    rows = table[table["group"].astype(str).isin(groups)]
    has = rows["word"].isin(clustered)
    per_model = (
        pd.DataFrame({"model": rows["model"].astype(str), "has": has})
        .groupby("model")["has"]
        .agg(["size", "sum"])
    )
    total = per_model["size"].to_numpy()
    hit = per_model["sum"].to_numpy()
    return pd.DataFrame(
        {
            "model": per_model.index.to_numpy(),
            "significant_rows": total.astype(np.int64),
            "clustered_rows": hit.astype(np.int64),
            "unclustered_share": np.where(total > 0, 1.0 - hit / np.maximum(total, 1), np.nan),
        }
    )


def probe_words(
    words_table: pd.DataFrame,
    *,
    group_a: str,
    group_b: str,
    embeddings: str | WordVectorSource = PROBE_EMBEDDINGS,
    k: int | None = None,
    k_grid: Sequence[int] | None = None,
    seed: int | np.random.Generator = 0,
    config: ProbeConfig | None = None,
) -> ProbeResult:
    """Cluster the significant words of two groups and measure each cluster's prevalence.

    ``words_table`` has columns model (optional), subject, group and word (and an
    optional boolean ``significant``); only the rows of ``group_a`` and ``group_b``
    are used. ``k`` fixes the number of clusters; otherwise it is chosen by the
    silhouette score over ``k_grid`` (default 2..min(60, n - 1)). ``seed`` seeds
    k-means and the silhouette sample. See the module docstring for the tables.
    """
    cfg = config or ProbeConfig()
    clustering_cfg = cfg.clustering
    if k is not None or k_grid is not None:
        clustering_cfg = replace(
            clustering_cfg,
            k=k if k is not None else clustering_cfg.k,
            k_grid=tuple(int(v) for v in k_grid) if k_grid is not None else clustering_cfg.k_grid,
        )
    a, b = str(group_a), str(group_b)
    if a == b:
        raise ConfigError(f"the two groups must differ, got {a!r} twice")
    table = check_word_table(words_table)
    table = table.assign(group=table["group"].astype(str))
    present = set(table["group"].unique())
    for label in (a, b):
        if label not in present:
            shown = ", ".join(sorted(present)[:20])
            raise DataError(f"group {label!r} has no significant words (groups: {shown})")
    pooled = table.loc[table["group"].isin([a, b]), "word"].unique()
    words = filter_words(pooled, cfg.filter)
    kept_words = words.loc[words["reason"] == KEPT, "word"].tolist()
    if not kept_words:
        raise DataError("no significant word is left to cluster after filtering")
    source = resolve_embeddings(embeddings)
    vectors, found = source.lookup(kept_words)
    found = np.asarray(found, dtype=bool)
    lost = np.array(kept_words, dtype=object)[~found]
    words.loc[words["word"].isin(lost), "reason"] = NO_EMBEDDING
    embedded = [w for w, ok in zip(kept_words, found, strict=True) if ok]
    if not embedded:
        raise DataError("none of the significant words has an embedding")
    matrix = np.asarray(vectors, dtype=np.float64)
    if matrix.shape[0] != len(embedded):  # a provider returning a row for every word
        matrix = matrix[found]
    clustering = cluster_vectors(matrix, clustering_cfg, rng=seed)
    assignments = pd.DataFrame(
        {
            "word": embedded,
            "cluster": _relabel_by_size(clustering),
            "distance": clustering.distances,
        }
    ).sort_values(["cluster", "distance", "word"], kind="mergesort", ignore_index=True)
    words = words.merge(assignments[["word", "cluster"]], on="word", how="left")
    words["cluster"] = words["cluster"].fillna(-1).astype(np.int64)
    prevalence = cluster_prevalence(table, assignments, group_a=a, group_b=b, config=cfg.prevalence)
    summary = _cluster_summary(assignments, cfg.n_top_words)
    clusters = summary.merge(prevalence, on="cluster", how="right")
    clusters = clusters.sort_values(["cluster", "model"], kind="mergesort", ignore_index=True)
    coverage = _coverage(table, set(embedded), [a, b])
    settings = probe_settings(cfg, clustering_cfg, embeddings, seed)
    settings["k"] = clustering.k
    return ProbeResult(
        clusters=clusters,
        silhouette=clustering.curve.reset_index(drop=True),
        assignments=assignments,
        words=words,
        coverage=coverage,
        k=clustering.k,
        group_a=a,
        group_b=b,
        settings=settings,
    )


def probe_settings(
    config: ProbeConfig,
    clustering: ClusteringConfig,
    embeddings: str | WordVectorSource,
    seed: int | np.random.Generator,
) -> dict[str, Any]:
    """The settings of a probe as plain values (saved as ``settings["probe"]``).

    ``k_fixed`` is the fixed number of clusters (None when chosen by ``k_rule`` over the
    silhouette grid ``k_grid`` or ``k_min``..``k_max`` by ``k_step``).
    """
    emb = embeddings if isinstance(embeddings, str) else type(embeddings).__name__
    return {
        "embeddings": emb,
        "seed": seed if isinstance(seed, int) else None,
        "k_fixed": clustering.k,
        "k_rule": clustering.k_rule,
        "n_init": clustering.n_init,
        "n_resamples": clustering.n_resamples if clustering.k_rule == "stability" else None,
        "resample_fraction": (
            clustering.resample_fraction if clustering.k_rule == "stability" else None
        ),
        "k_grid": list(clustering.k_grid) if clustering.k_grid is not None else None,
        "k_min": clustering.k_min,
        "k_max": clustering.k_max,
        "k_step": clustering.k_step,
        "min_ratio": config.prevalence.min_ratio,
        "min_subjects": config.prevalence.min_subjects,
        "min_zipf": config.filter.min_zipf,
        "min_length": config.filter.min_length,
        "remove_names": config.filter.remove_names,
        "n_top_words": config.n_top_words,
    }


class Probe:
    """The Probe step as an estimator: options here, :meth:`fit` fills the ``*_`` results.

    After :meth:`fit`: ``result_`` (the :class:`ProbeResult`), ``clusters_``,
    ``silhouette_``, ``assignments_`` and ``k_``.
    """

    result_: ProbeResult
    clusters_: pd.DataFrame
    silhouette_: pd.DataFrame
    assignments_: pd.DataFrame
    k_: int

    def __init__(
        self,
        *,
        group_a: str,
        group_b: str,
        embeddings: str | WordVectorSource = PROBE_EMBEDDINGS,
        k: int | None = None,
        k_grid: Sequence[int] | None = None,
        seed: int = 0,
        config: ProbeConfig | None = None,
    ) -> None:
        self.group_a = group_a
        self.group_b = group_b
        self.embeddings = embeddings
        self.k = k
        self.k_grid = k_grid
        self.seed = seed
        self.config = config

    def fit(self, words_table: pd.DataFrame) -> Probe:
        """Run :func:`probe_words` on ``words_table``; return ``self``."""
        self.result_ = probe_words(
            words_table,
            group_a=self.group_a,
            group_b=self.group_b,
            embeddings=self.embeddings,
            k=self.k,
            k_grid=self.k_grid,
            seed=self.seed,
            config=self.config,
        )
        self.clusters_ = self.result_.clusters
        self.silhouette_ = self.result_.silhouette
        self.assignments_ = self.result_.assignments
        self.k_ = self.result_.k
        return self
