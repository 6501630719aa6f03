"""Tests of the Probe step: word filter, k choice, prevalence, planted clusters."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import pytest

from gasp.errors import ConfigError, DataError
from gasp.probe import (
    ClusteringConfig,
    PrevalenceConfig,
    Probe,
    ProbeConfig,
    WordFilterConfig,
    choose_k,
    cluster_prevalence,
    cluster_vectors,
    filter_words,
    probe_words,
)

SPORTS = ["football", "soccer", "basketball", "baseball", "hockey", "athlete", "tennis"]
CARE = ["yoga", "meditation", "empathy", "compassion", "nurturing", "caring", "mindfulness"]
KITCHEN = ["kitchen", "oven", "spoon", "plate", "bowl", "recipe", "cooking"]
WEATHER = ["rain", "snow", "storm", "cloudy", "sunny", "windy", "thunder"]
THEMES = {"sports": SPORTS, "care": CARE, "kitchen": KITCHEN, "weather": WEATHER}


class PlantedVectors:
    """Word vectors around one random centre per theme (tight, well separated)."""

    def __init__(self, seed: int = 1, dim: int = 16) -> None:
        rng = np.random.default_rng(seed)
        self.vectors: dict[str, np.ndarray] = {}
        for words in THEMES.values():
            centre = rng.normal(size=dim) * 5.0
            for word in words:
                self.vectors[word] = centre + rng.normal(scale=0.2, size=dim)
        self.dim = dim

    def lookup(self, words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        found = np.array([w in self.vectors for w in words], dtype=bool)
        rows = [self.vectors[w] for w in words if w in self.vectors]
        return np.array(rows).reshape(len(rows), self.dim), found


def planted_table(n_subjects: int = 6, models: Sequence[str] = ("m1", "m2")) -> pd.DataFrame:
    """Sports words significant only for M, care words only for F, fillers for both."""
    rows = []
    for model in models:
        for s in range(n_subjects):
            subject = f"occupation{s}"
            rows += [(model, subject, "M", SPORTS[(s + i) % 7]) for i in range(2)]
            rows += [(model, subject, "F", CARE[(s + i) % 7]) for i in range(2)]
            for shift, group in enumerate(("F", "M")):
                rows.append((model, subject, group, KITCHEN[(s + shift) % 7]))
                rows.append((model, subject, group, WEATHER[(s * 3 + shift) % 7]))
    return pd.DataFrame(rows, columns=["model", "subject", "group", "word"])


def no_names(words: np.ndarray) -> np.ndarray:
    return np.zeros(len(words), dtype=bool)


NO_NAME_FILTER = ProbeConfig(filter=WordFilterConfig(remove_names=False))
# Over-split tight planted clusters give a jagged silhouette after the true k, where the
# largest-gap rule is fragile; the largest silhouette is robust there.
MAX_RULE = ProbeConfig(
    filter=WordFilterConfig(remove_names=False), clustering=ClusteringConfig(k_rule="max")
)


# --- word filter -------------------------------------------------------------------------


def test_filter_rules_short_names_dr_md_non_english_pronouns() -> None:
    words = ["he", "a", "ok", "dr", "md", "maria", "yoga", "xqzvbt", "her", "his", "familys"]
    names = {"maria", "her"}
    table = filter_words(words, name_test=lambda w: np.isin(w, list(names)))
    reason = dict(zip(table["word"], table["reason"], strict=True))
    assert reason == {
        "a": "short",
        "dr": "kept",
        "familys": "kept",
        "he": "short",
        "her": "kept",  # a pronoun is never a name
        "his": "kept",
        "maria": "name",
        "md": "kept",
        "ok": "short",
        "xqzvbt": "non_english",
        "yoga": "kept",
    }


def test_filter_threshold_and_options() -> None:
    table = filter_words(["yoga", "namaste"], WordFilterConfig(min_zipf=3.0), name_test=no_names)
    assert table.set_index("word")["reason"].to_dict() == {
        "namaste": "non_english",  # Zipf 2.7 < 3
        "yoga": "kept",  # Zipf 4.2
    }
    kept_he = filter_words(["he"], WordFilterConfig(keep_short=("he",)), name_test=no_names)
    assert kept_he["reason"].tolist() == ["kept"]
    with pytest.raises(ConfigError):
        WordFilterConfig(min_length=0)


def test_filter_uses_ssa_names() -> None:
    table = filter_words(["jennifer", "michael", "football"])
    assert table.set_index("word")["reason"].to_dict() == {
        "football": "kept",
        "jennifer": "name",
        "michael": "name",
    }


# --- choosing k --------------------------------------------------------------------------


def test_choose_k_largest_gap_to_next_k() -> None:
    ks, scores = [2, 3, 4, 5], [0.6, 0.5, 0.45, 0.1]
    # gaps: 0.10, 0.05, 0.35 -> k = 4 (the score falls most after 4)
    assert choose_k(ks, scores, "gap") == 4
    assert choose_k(ks, scores, "max") == 2
    assert choose_k([5, 3, 2, 4], [0.1, 0.5, 0.6, 0.45]) == 4  # grid order does not matter
    assert choose_k([7], [0.3]) == 7


def test_cluster_vectors_silhouette_recovers_planted_k() -> None:
    source = PlantedVectors()
    words = [w for ws in THEMES.values() for w in ws]
    vectors, _ = source.lookup(words)
    clustering = cluster_vectors(vectors, ClusteringConfig(k_max=10, k_rule="max"), rng=3)
    assert clustering.k == 4
    curve = clustering.curve
    assert curve["k"].tolist() == list(range(2, 11))
    assert curve.loc[curve["chosen"], "k"].tolist() == [4]
    # the planted themes are the clusters
    labels = clustering.labels.reshape(4, 7)
    assert all(len(set(row)) == 1 for row in labels)
    assert len({row[0] for row in labels}) == 4
    # the gap rule reads the same curve: the chosen k is followed by the largest fall
    gap = cluster_vectors(vectors, ClusteringConfig(k_max=10, k_rule="paper"), rng=3).curve
    falls = gap["silhouette"].to_numpy()[:-1] - gap["silhouette"].to_numpy()[1:]
    assert gap.loc[gap["chosen"], "k"].item() == gap["k"].iloc[int(np.argmax(falls))]


def test_cluster_vectors_errors_and_fixed_k() -> None:
    x = np.eye(3)
    assert cluster_vectors(x, ClusteringConfig(k=3)).curve.empty
    with pytest.raises(ConfigError):
        cluster_vectors(x, ClusteringConfig(k=4))
    with pytest.raises(ConfigError):
        cluster_vectors(x, ClusteringConfig(k_grid=(2, 5)))
    with pytest.raises(DataError):
        cluster_vectors(np.ones((2, 3)))


# --- prevalence --------------------------------------------------------------------------


def test_prevalence_hand_computed() -> None:
    rows = [
        ("m", "s1", "A", "x1"),
        ("m", "s1", "A", "x2"),  # same cluster, same subject: counted once
        ("m", "s2", "A", "x1"),
        ("m", "s3", "B", "x2"),
        ("m", "s3", "A", "x1"),
        ("m", "s1", "B", "y1"),
        ("m", "s2", "B", "y1"),
        ("m", "s4", "A", "y1"),
        ("m", "s4", "C", "x1"),  # another group: ignored
        ("m2", "s1", "A", "x1"),
        ("m2", "s2", "B", "x2"),
        ("m2", "s3", "B", "zzz"),  # no cluster: ignored
    ]
    table = pd.DataFrame(rows, columns=["model", "subject", "group", "word"])
    assignments = pd.DataFrame({"word": ["x1", "x2", "y1"], "cluster": [0, 0, 1]})
    out = cluster_prevalence(table, assignments, group_a="A", group_b="B")
    assert out.columns.tolist() == [
        "cluster",
        "model",
        "n_A",
        "n_B",
        "n_subjects",
        "pct_A",
        "pct_B",
        "dominant_group",
        "kept",
        "kept_all_models",
    ]
    got = out.set_index(["cluster", "model"])
    # cluster 0, model m: A in s1, s2, s3; B in s3 -> 3 subjects, 75% / 25%, ratio 3
    assert got.loc[(0, "m"), ["n_A", "n_B", "n_subjects"]].tolist() == [3, 1, 3]
    assert got.loc[(0, "m"), ["pct_A", "pct_B"]].tolist() == [75.0, 25.0]
    assert got.loc[(0, "m"), "dominant_group"] == "A"
    assert bool(got.loc[(0, "m"), "kept"])
    # cluster 1, model m: A in s4; B in s1, s2 -> 33.33% / 66.67%, ratio 2, kept
    assert got.loc[(1, "m"), ["n_A", "n_B", "n_subjects"]].tolist() == [1, 2, 3]
    assert got.loc[(1, "m"), ["pct_A", "pct_B"]].tolist() == [33.33, 66.67]
    assert got.loc[(1, "m"), "dominant_group"] == "B"
    assert bool(got.loc[(1, "m"), "kept"])
    # model m2: cluster 0 tied 1 / 1 (not kept), cluster 1 absent (NaN, not kept)
    assert got.loc[(0, "m2"), ["n_A", "n_B", "n_subjects"]].tolist() == [1, 1, 2]
    assert got.loc[(0, "m2"), "dominant_group"] == ""
    assert not bool(got.loc[(0, "m2"), "kept"])
    assert got.loc[(1, "m2"), "n_subjects"] == 0
    assert np.isnan(got.loc[(1, "m2"), "pct_A"])
    assert not out["kept_all_models"].any()
    # a single model: kept_all_models follows kept
    single = cluster_prevalence(table[table["model"] == "m"], assignments, group_a="A", group_b="B")
    assert single["kept_all_models"].tolist() == [True, True]
    # stricter rules
    strict = cluster_prevalence(
        table, assignments, group_a="A", group_b="B", config=PrevalenceConfig(min_ratio=2.5)
    ).set_index(["cluster", "model"])
    assert bool(strict.loc[(0, "m"), "kept"]) and not bool(strict.loc[(1, "m"), "kept"])


def test_prevalence_ratio_boundary_is_inclusive() -> None:
    rows = [("m", f"s{i}", "A", "w") for i in range(3)] + [
        ("m", f"s{i}", "B", "w") for i in range(3, 5)
    ]
    table = pd.DataFrame(rows, columns=["model", "subject", "group", "word"])
    out = cluster_prevalence(
        table, pd.DataFrame({"word": ["w"], "cluster": [0]}), group_a="A", group_b="B"
    )
    assert out[["pct_A", "pct_B", "n_subjects"]].iloc[0].tolist() == [60.0, 40.0, 5]
    assert bool(out["kept"].iloc[0])  # 3 / 2 = 1.5: "at least 50% more"


# --- the whole step ----------------------------------------------------------------------


@pytest.mark.parametrize("k", [4, None])
def test_planted_sports_and_care_clusters(k: int | None) -> None:
    table = planted_table()
    result = probe_words(
        table,
        group_a="F",
        group_b="M",
        embeddings=PlantedVectors(),
        k=k,
        k_grid=range(2, 11),
        seed=0,
        config=MAX_RULE,
    )
    assert result.k == 4
    clusters = result.clusters

    def rows_of(word: str) -> pd.DataFrame:
        cid = int(result.assignments.set_index("word").loc[word, "cluster"])
        return clusters[clusters["cluster"] == cid]

    sports = rows_of("football")
    assert sports["pct_M"].tolist() == [100.0, 100.0]
    assert sports["pct_F"].tolist() == [0.0, 0.0]
    assert sports["n_subjects"].tolist() == [6, 6]
    assert sports["dominant_group"].tolist() == ["M", "M"]
    assert sports["kept_all_models"].all()
    assert sports["size"].iloc[0] == 7
    care = rows_of("yoga")
    assert care["pct_F"].tolist() == [100.0, 100.0]
    assert care["kept_all_models"].all()
    for word in ("kitchen", "rain"):
        balanced = rows_of(word)
        assert balanced["pct_F"].tolist() == [50.0, 50.0]
        assert not balanced["kept"].any()
    assert set(result.kept_clusters()["cluster"]) == {
        int(rows_of("football")["cluster"].iloc[0]),
        int(rows_of("yoga")["cluster"].iloc[0]),
    }
    # every word of a cluster is listed, closest first; top words come from that list
    words = result.cluster_words(int(sports["cluster"].iloc[0]))
    assert sorted(words) == sorted(SPORTS)
    assert sports["words"].iloc[0] == ", ".join(words[:5])
    assert result.coverage["unclustered_share"].tolist() == [0.0, 0.0]
    if k is None:
        assert result.silhouette["k"].tolist() == list(range(2, 11))
    else:
        assert result.silhouette.empty


def test_probe_estimator_twin_and_unknown_words() -> None:
    table = planted_table(models=("m1",))
    extra = pd.DataFrame(
        [("m1", "occupation0", "F", "bicycle"), ("m1", "occupation0", "M", "xqzvbt")],
        columns=table.columns,
    )
    probe = Probe(
        group_a="F", group_b="M", embeddings=PlantedVectors(), k=4, config=NO_NAME_FILTER
    ).fit(pd.concat([table, extra], ignore_index=True))
    assert probe.k_ == 4
    reasons = probe.result_.words.set_index("word")["reason"]
    assert reasons["bicycle"] == "no_embedding"
    assert reasons["xqzvbt"] == "non_english"
    coverage = probe.result_.coverage.iloc[0]
    assert coverage["significant_rows"] == len(table) + 2
    assert coverage["clustered_rows"] == len(table)
    twin = probe_words(
        table, group_a="F", group_b="M", embeddings=PlantedVectors(), k=4, config=NO_NAME_FILTER
    )
    assert probe.clusters_[["cluster", "pct_F", "pct_M"]].equals(
        twin.clusters[["cluster", "pct_F", "pct_M"]]
    )


def test_probe_input_errors() -> None:
    table = planted_table(models=("m1",))
    with pytest.raises(DataError, match="group 'W'"):
        probe_words(table, group_a="W", group_b="M", embeddings=PlantedVectors())
    with pytest.raises(ConfigError):
        probe_words(table, group_a="M", group_b="M", embeddings=PlantedVectors())
    with pytest.raises(DataError, match="lacks column"):
        probe_words(table.drop(columns="subject"), group_a="F", group_b="M")
    with pytest.raises(ConfigError):
        probe_words(table, group_a="F", group_b="M", embeddings=object())  # type: ignore[arg-type]
