"""First-name gender and person-name detection from US Social Security birth records."""

from __future__ import annotations

import math
import time

import numpy as np
import pyarrow.parquet as pq
import pytest

from gasp.errors import ConfigError
from gasp.names import (
    babynames_path,
    first_name_gender,
    is_person_name,
    name_statistics,
    remove_person_names,
    total_births,
)


def test_first_name_gender_known_names() -> None:
    table = first_name_gender(["Mary", "john", "JORDAN", "qwxzv", "Mary Ann"])
    assert table["name"].tolist() == ["Mary", "john", "JORDAN", "qwxzv", "Mary Ann"]
    assert table["gender"].tolist() == ["F", "M", None, None, "F"]
    assert table.loc[0, "share_female"] > 0.99
    assert table.loc[1, "share_female"] < 0.01
    assert 0.1 < table.loc[2, "share_female"] < 0.9
    assert table.loc[3, "total"] == 0 and math.isnan(table.loc[3, "share_female"])
    assert table.loc[0, "total"] > 4_000_000


def test_threshold_moves_ambiguous_names() -> None:
    # Taylor is about 74% female over all years
    assert first_name_gender(["taylor"])["gender"].tolist() == [None]
    assert first_name_gender(["taylor"], threshold=0.7)["gender"].tolist() == ["F"]
    with pytest.raises(ConfigError):
        first_name_gender(["taylor"], threshold=0.4)


def test_name_statistics_shape_and_totals() -> None:
    stats = name_statistics()
    assert {"female", "male", "total"} <= set(stats.columns)
    # the per-name sums keep every birth of the raw records, per sex
    raw = pq.read_table(babynames_path(), columns=["sex", "n"]).to_pandas()
    by_sex = raw.groupby("sex")["n"].sum()
    assert int(stats["female"].sum()) == int(by_sex["F"])
    assert int(stats["male"].sum()) == int(by_sex["M"])
    assert total_births() == int(raw["n"].sum())
    assert stats.index.str.islower().all()


def test_person_names_versus_common_words() -> None:
    words = ["mary", "John", "sarah", "emily", "james", "table", "doctor", "the", "she"]
    assert is_person_name(words).tolist() == [True, True, True, True, True] + [False] * 4
    common = ["will", "grace", "hope", "mark", "may", "young", "bill", "christian"]
    assert not is_person_name(common).any()


def test_possessive_names_after_apostrophe_stripping() -> None:
    assert is_person_name(["sarahs", "marks", "roses", "johns"]).tolist() == [
        True,
        False,
        False,
        True,
    ]
    assert not is_person_name(["sarahs"], possessive=False).any()


def test_rule_parameters() -> None:
    # a huge ratio treats every common word as a word, a zero min_count changes nothing for
    # words never given as names
    assert not is_person_name(["john"], name_ratio=1e9).any()
    assert is_person_name(["grace"], name_ratio=10).all()
    assert not is_person_name(["table"], min_count=0).any()
    assert not is_person_name(["emily"], min_count=10**8).any()
    assert is_person_name([]).shape == (0,)
    with pytest.raises(ConfigError):
        is_person_name([], name_ratio=0)
    assert remove_person_names(["sarah", "surgeon", "hope", "Emily"]) == ["surgeon", "hope"]


def test_cached_lookups_are_fast() -> None:
    is_person_name(["mary"])
    start = time.perf_counter()
    out = is_person_name(np.array(["mary", "table"] * 2000).tolist())
    assert time.perf_counter() - start < 1.0
    assert out.sum() == 2000
