"""The probe's k: the default rule recovers planted k; ``paper`` is the paper's rule."""

from __future__ import annotations

import numpy as np
import pytest

from gasp.embeddings import unit_rows
from gasp.errors import ConfigError
from gasp.probe import (
    STABILITY_TIE,
    ClusteringConfig,
    choose_k,
    cluster_vectors,
    planted_clusters,
    stability_scores,
)

#: One structure per planted k, alternating two separations (fixed seeds).
STRUCTURES = [(k, 1.0 if k % 2 else 1.3, 100 + k) for k in range(3, 13)]


def test_default_rule_recovers_planted_k() -> None:
    recovered = []
    for k, separation, seed in STRUCTURES:
        points, _ = planted_clusters(k, np.random.default_rng(seed), separation=separation)
        clustering = cluster_vectors(points, ClusteringConfig(k_max=14), rng=seed)
        recovered.append(clustering.k == k)
    assert np.mean(recovered) >= 0.8, recovered


def test_paper_rule_is_the_largest_fall_to_the_next_k() -> None:
    ks = [2, 3, 4, 5, 6, 7]
    scores = [0.40, 0.32, 0.35, 0.20, 0.22, 0.10]
    # falls to the next k: 0.08, -0.03, 0.15, -0.02, 0.12 -> the score falls most after 4
    assert choose_k(ks, scores, "paper") == 4
    assert choose_k(ks, scores, "gap") == 4  # the old name
    assert choose_k(ks, scores, "max") == 2
    assert choose_k([2, 3, 4], [0.75, 0.5, 0.25], "paper") == 2  # equal falls: the smaller k
    assert ClusteringConfig(k_rule="gap").k_rule == "paper"
    assert ClusteringConfig().k_rule == "max" and ClusteringConfig().n_init == 5


def test_stability_rule_ties_go_to_the_silhouette() -> None:
    ks, sil = [2, 3, 4, 5], [0.1, 0.3, 0.2, 0.25]
    # 3 and 4 lie within the tie margin of the best stability: 3 has the larger silhouette
    assert choose_k(ks, sil, "stability", [0.9, 0.99 - STABILITY_TIE / 2, 0.99, 0.5]) == 3
    assert choose_k(ks, sil, "stability", [0.9, 0.8, 0.99, 0.5]) == 4
    with pytest.raises(ConfigError):
        choose_k(ks, sil, "stability")
    with pytest.raises(ConfigError):
        choose_k(ks, sil, "elbow")  # type: ignore[arg-type]


def test_stability_peaks_at_the_planted_k() -> None:
    points, _ = planted_clusters(5, np.random.default_rng(7), separation=1.3)
    grid = [2, 3, 4, 5, 6, 7, 8]
    scores = stability_scores(
        unit_rows(points), grid, rng=np.random.default_rng(0), n_resamples=4, n_init=3
    )
    assert grid[int(np.argmax(scores))] == 5
    assert scores[grid.index(5)] > 0.95
    clustering = cluster_vectors(
        points, ClusteringConfig(k_max=8, k_rule="stability", n_resamples=4), rng=1
    )
    assert clustering.k == 5
    assert clustering.curve["stability"].notna().all()
    with pytest.raises(ConfigError):
        ClusteringConfig(n_resamples=1)
