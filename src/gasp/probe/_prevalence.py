"""Prevalence of word clusters per group, subject and model (Figure 5 of seed ``000``).

A cluster is *significant* for a group in a subject (an occupation in seed ``000``)
of a model when at least one of its words is significant for that group there. For
every cluster and model, with groups ``A`` and ``B``:

``n_<A>``, ``n_<B>``
    the number of subjects where the cluster is significant for ``A`` (for ``B``).
``n_subjects``
    the number of subjects where the cluster is significant for ``A`` or ``B``
    (the '#' column of Figure 5).
``pct_<A>``, ``pct_<B>``
    ``100 * n_A / (n_A + n_B)`` and ``100 * n_B / (n_A + n_B)``: each group's share of
    the (subject, group) pairs where the cluster is significant. They sum to 100 as
    in every row of Figure 5, and equal the percentage of the ``n_subjects`` subjects
    whenever no subject has the cluster significant for both groups (for example
    2 of 3 subjects gives 66.67 and 33.33). NaN when the cluster is absent.
``dominant_group``
    the group with the larger count, empty when the counts are equal.
``kept``
    the cluster is "at least 50% more prevalent for one gender" and "present in at
    least 3 occupations" for this model (Section 5.3): ``n_subjects >= min_subjects``
    (3) and ``max(n_A, n_B) >= min_ratio * min(n_A, n_B)`` with ``min_ratio`` 1.5.
    When the smaller count is 0 the ratio is infinite and the rule holds (100% vs 0%);
    60% vs 40% is exactly 1.5 and holds (the ``tied`` and ``pursuits`` rows of
    Figure 5 show such rows are kept).
``kept_all_models``
    ``kept`` holds for every model of the table: the clusters shown in Figure 5
    ("present in at least 3 occupations per model"). The dominant group may differ
    between models.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from gasp.errors import ConfigError, DataError

#: Columns of the significant-words table the Probe step reads.
WORD_TABLE_COLUMNS = ("model", "subject", "group", "word")


@dataclass(frozen=True)
class PrevalenceConfig:
    """The selection rule of Section 5.3 of seed ``000``."""

    min_subjects: int = 3
    min_ratio: float = 1.5

    def __post_init__(self) -> None:
        if self.min_subjects < 0:
            raise ConfigError(f"min_subjects must be non-negative, got {self.min_subjects}")
        if self.min_ratio < 1:
            raise ConfigError(f"min_ratio must be at least 1, got {self.min_ratio}")


def check_word_table(table: pd.DataFrame) -> pd.DataFrame:
    """Validate a significant-words table; return its four columns with words as strings.

    A ``significant`` column, when present, keeps only its true rows. The ``model``
    column may be absent (one model, named ``model``).
    """
    if not isinstance(table, pd.DataFrame):
        raise DataError("the significant words must be a pandas DataFrame")
    data = table
    if "significant" in data.columns:
        data = data[data["significant"].astype(bool)]
    if "model" not in data.columns:
        data = data.assign(model="model")
    missing = [c for c in WORD_TABLE_COLUMNS if c not in data.columns]
    if missing:
        raise DataError(
            f"the significant-words table lacks column(s) {', '.join(missing)} "
            f"(needs {', '.join(WORD_TABLE_COLUMNS)})"
        )
    out = data.loc[:, list(WORD_TABLE_COLUMNS)].dropna(subset=["word"])
    out = out.assign(word=out["word"].astype(str).str.lower())
    return out.reset_index(drop=True)


def cluster_prevalence(
    words_table: pd.DataFrame,
    assignments: pd.DataFrame,
    *,
    group_a: str,
    group_b: str,
    config: PrevalenceConfig | None = None,
) -> pd.DataFrame:
    """Prevalence of every cluster per model (columns in the module docstring).

    ``words_table`` has columns model, subject, group, word (one row per significant
    word); ``assignments`` has columns word and cluster. Rows of other groups and
    words without a cluster are ignored. Returns one row per (cluster, model) with
    columns cluster, model, n_<A>, n_<B>, n_subjects, pct_<A>, pct_<B>,
    dominant_group, kept, kept_all_models, sorted by cluster then model.
    """
    cfg = config or PrevalenceConfig()
    a, b = str(group_a), str(group_b)
    if a == b:
        raise ConfigError(f"the two groups must differ, got {a!r} twice")
    table = check_word_table(words_table)
    table = table.assign(group=table["group"].astype(str), model=table["model"].astype(str))
    models = sorted(table["model"].unique())
    clusters = np.sort(assignments["cluster"].unique())
    both = table[table["group"].isin([a, b])]
    hits = both.merge(assignments[["word", "cluster"]], on="word", how="inner")
    pairs = hits.drop_duplicates(["model", "subject", "group", "cluster"])
    index = pd.MultiIndex.from_product([clusters, models], names=["cluster", "model"])
    per_group = (
        pairs.groupby(["cluster", "model", "group"]).size().unstack("group").reindex(columns=[a, b])
    )
    per_group = per_group.reindex(index).fillna(0).astype(np.int64)
    subjects = (
        pairs.drop_duplicates(["model", "subject", "cluster"])
        .groupby(["cluster", "model"])
        .size()
        .reindex(index)
        .fillna(0)
        .astype(np.int64)
    )
    n_a = per_group[a].to_numpy()
    n_b = per_group[b].to_numpy()
    total = n_a + n_b
    with np.errstate(invalid="ignore", divide="ignore"):
        pct_a = np.where(total > 0, 100.0 * n_a / total, np.nan)
        pct_b = np.where(total > 0, 100.0 * n_b / total, np.nan)
    high = np.maximum(n_a, n_b)
    low = np.minimum(n_a, n_b)
    ratio_ok = (high > 0) & (high >= cfg.min_ratio * low)
    n_subjects = subjects.to_numpy()
    kept = ratio_ok & (n_subjects >= cfg.min_subjects)
    dominant = np.where(n_a > n_b, a, np.where(n_b > n_a, b, ""))
    out = pd.DataFrame(
        {
            "cluster": index.get_level_values("cluster").to_numpy(),
            "model": index.get_level_values("model").to_numpy(),
            f"n_{a}": n_a,
            f"n_{b}": n_b,
            "n_subjects": n_subjects,
            f"pct_{a}": np.round(pct_a, 2),
            f"pct_{b}": np.round(pct_b, 2),
            "dominant_group": dominant,
            "kept": kept,
        }
    )
    out["kept_all_models"] = out.groupby("cluster")["kept"].transform("all").astype(bool)
    return out.reset_index(drop=True)
