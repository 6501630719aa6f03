"""Marked Words: hand-computed values, a per-word reference loop, FDR, properties."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from gasp.errors import ConfigError, DataError
from gasp.stats import MarkedWords, marked_words, marked_words_table
from gasp.text import DocTermCounts, count_words


def _reference(
    matrix: np.ndarray,
    target: np.ndarray,
    unmarked: dict[str, np.ndarray],
    threshold: float,
) -> dict[str, tuple[dict[str, float], bool, float]]:
    """Plain per-word loop: z per group, significance (z > threshold in all), summed z."""
    prior = [float(v) for v in matrix.sum(axis=0)]
    n_prior = sum(prior)
    y_t = [float(v) for v in matrix[target].sum(axis=0)]
    n_t = sum(y_t)
    out: dict[str, tuple[dict[str, float], bool, float]] = {}
    for w in range(matrix.shape[1]):
        zs: dict[str, float] = {}
        for name, mask in unmarked.items():
            y_o = [float(v) for v in matrix[mask].sum(axis=0)]
            n_o = sum(y_o)
            l1 = (y_t[w] + prior[w]) / ((n_t + n_prior) - (y_t[w] + prior[w]))
            l2 = (y_o[w] + prior[w]) / ((n_o + n_prior) - (y_o[w] + prior[w]))
            sigma = math.sqrt(1 / (y_t[w] + prior[w]) + 1 / (y_o[w] + prior[w]))
            zs[name] = (math.log(l1) - math.log(l2)) / sigma
        out[str(w)] = (zs, all(z > threshold for z in zs.values()), sum(zs.values()))
    return out


def _counts(matrix: np.ndarray) -> DocTermCounts:
    vocab = np.array([f"w{i:03d}" for i in range(matrix.shape[1])], dtype=object)
    return DocTermCounts(matrix=sp.csr_matrix(matrix.astype(np.int64)), vocabulary=vocab)


def test_hand_computed_z_scores() -> None:
    # Target "a a b", unmarked "b b c"; prior = all texts: a 2, b 3, c 1 (total 6).
    counts = count_words(["a a b", "b b c"])
    table = marked_words(
        counts,
        np.array([True, False]),
        {"u": np.array([False, True])},
        threshold=1.0,
        all_words=True,
    )
    z = dict(zip(table["word"], table["z_u"], strict=True))
    # a: l1 = 4 / (9 - 4), l2 = 2 / (9 - 2), var = 1/4 + 1/2
    assert z["a"] == pytest.approx((math.log(4 / 5) - math.log(2 / 7)) / math.sqrt(0.75))
    # b: l1 = 4 / (9 - 4), l2 = 5 / (9 - 5), var = 1/4 + 1/5
    assert z["b"] == pytest.approx((math.log(4 / 5) - math.log(5 / 4)) / math.sqrt(0.45))
    # c: l1 = 1 / (9 - 1), l2 = 2 / (9 - 2), var = 1/1 + 1/2
    assert z["c"] == pytest.approx((math.log(1 / 8) - math.log(2 / 7)) / math.sqrt(1.5))
    assert z["a"] == pytest.approx(1.18890, abs=1e-5)
    assert table["word"].tolist() == ["a", "b", "c"]  # sorted by z_sum, descending
    assert table["significant"].tolist() == [True, False, False]
    assert table["count_target"].tolist() == [2, 1, 0]
    assert table["count_u"].tolist() == [0, 2, 1]
    assert list(table.columns) == [
        "word",
        "count_target",
        "count_u",
        "z_u",
        "z_sum",
        "significant",
    ]
    # Without all_words only the significant word is kept; at 1.96 none is.
    only = marked_words(counts, np.array([True, False]), {"u": np.array([False, True])})
    assert only.empty
    assert list(only.columns) == list(table.columns)


def test_matches_reference_loop() -> None:
    rng = np.random.default_rng(7)
    matrix = rng.poisson(rng.gamma(0.6, 2.0, size=40), size=(30, 40))
    matrix[0] += 1  # every word occurs in the prior
    groups = rng.integers(0, 3, size=30)
    target = groups == 0
    unmarked = {"u1": groups == 1, "u2": groups == 2}
    table = marked_words(_counts(matrix), target, unmarked, threshold=0.5, all_words=True)
    ref = _reference(matrix, target, unmarked, threshold=0.5)
    by_word = table.set_index("word")
    assert len(by_word) == 40
    for w, (zs, sig, z_sum) in ref.items():
        row = by_word.loc[f"w{int(w):03d}"]
        for name, z in zs.items():
            assert abs(row[f"z_{name}"] - z) < 1e-9
        assert abs(row["z_sum"] - z_sum) < 1e-9
        assert bool(row["significant"]) == sig
    assert table["z_sum"].is_monotonic_decreasing
    assert table["significant"].any()  # the comparison above is not vacuous


def test_intersection_requires_every_comparison() -> None:
    vocab = np.array(["x", "y", "z"], dtype=object)
    table = marked_words_table(
        vocab,
        np.array([5, 5, 5]),
        {"a": np.array([1, 1, 1]), "b": np.array([1, 1, 1])},
        {"a": np.array([3.0, 2.5, 1.0]), "b": np.array([2.0, 1.5, 4.0])},
        threshold=1.96,
        fdr_alpha=None,
        min_count=0,
        all_words=True,
    )
    assert table["word"].tolist() == ["x", "z", "y"]  # ties in z_sum: alphabetical
    assert table["z_sum"].tolist() == [5.0, 5.0, 4.0]
    assert table.set_index("word")["significant"].to_dict() == {"x": True, "y": False, "z": False}


def test_fdr_benjamini_hochberg_by_hand() -> None:
    # Two-sided p of z = 4, 2.5, 2.0, 0.5, -3: 6.3e-5, 0.0124, 0.0455, 0.617, 0.0027.
    # BH at 0.05 with m = 5 rejects ranks 1-3 (p <= k/5 * 0.05): z = 4, -3 and 2.5; only the
    # positive ones are marked, and z = 2.0 (> 1.96) is not.
    vocab = np.array(list("abcde"), dtype=object)
    z = np.array([4.0, 2.5, 2.0, 0.5, -3.0])
    kwargs = {"threshold": 1.96, "min_count": 0, "all_words": True}
    fdr = marked_words_table(
        vocab, np.full(5, 9), {"u": np.ones(5)}, {"u": z}, fdr_alpha=0.05, **kwargs
    )
    assert fdr.set_index("word")["significant"].to_dict() == {
        "a": True,
        "b": True,
        "c": False,
        "d": False,
        "e": False,
    }
    plain = marked_words_table(
        vocab, np.full(5, 9), {"u": np.ones(5)}, {"u": z}, fdr_alpha=None, **kwargs
    )
    assert plain.set_index("word")["significant"].sum() == 3


def test_min_count_filters_target_counts_and_shrinks_the_fdr_family() -> None:
    vocab = np.array(list("abcde"), dtype=object)
    z = np.array([4.0, 2.5, 2.0, 0.5, -3.0])
    target = np.array([9, 9, 9, 1, 1])
    kwargs = {"threshold": 1.96, "all_words": True}
    plain = marked_words_table(
        vocab, target, {"u": np.ones(5)}, {"u": z}, fdr_alpha=None, min_count=10, **kwargs
    )
    assert not plain["significant"].any()
    # Family of a, b, c only (m = 3): p = 6.3e-5, 0.0124, 0.0455 <= 0.0167, 0.0333, 0.05.
    fdr = marked_words_table(
        vocab, target, {"u": np.ones(5)}, {"u": z}, fdr_alpha=0.05, min_count=5, **kwargs
    )
    assert fdr.set_index("word")["significant"].to_dict() == {
        "a": True,
        "b": True,
        "c": True,
        "d": False,
        "e": False,
    }


def test_estimator_twin_and_explicit_prior() -> None:
    counts = count_words(["red red red blue", "green green blue", "red green"])
    target = np.array([True, False, False])
    unmarked = {"rest": np.array([False, True, True])}
    model = MarkedWords(threshold=0.0).fit(counts, target, unmarked)
    expected = marked_words(counts, target, unmarked, threshold=0.0)
    pd.testing.assert_frame_equal(model.table_, expected)
    assert model.words_ == expected["word"].tolist()
    assert model.words_[0] == "red"
    flat = marked_words(counts, target, unmarked, prior=np.ones(3), all_words=True)
    default = marked_words(counts, target, unmarked, all_words=True)
    assert not np.allclose(flat["z_rest"].to_numpy(), default["z_rest"].to_numpy())


def test_bad_input_raises_data_error() -> None:
    counts = count_words(["a b", "b c"])
    target = np.array([True, False])
    other = {"u": np.array([False, True])}
    with pytest.raises(DataError, match="selects no texts"):
        marked_words(counts, np.array([False, False]), other)
    with pytest.raises(DataError, match="selects no texts"):
        marked_words(counts, target, {"u": np.array([False, False])})
    with pytest.raises(DataError, match="one entry per text"):
        marked_words(counts, np.array([True]), other)
    with pytest.raises(DataError, match="at least one unmarked"):
        marked_words(counts, target, {})
    with pytest.raises(DataError, match="prior"):
        marked_words(counts, target, other, prior=np.ones(2))
    # invalid significance options are configuration errors (SignificanceRule)
    with pytest.raises(ConfigError, match="false discovery rate"):
        marked_words(counts, target, other, fdr_alpha=1.5)
    with pytest.raises(ConfigError, match="minimum count"):
        marked_words(counts, target, other, min_count=-1)


_matrices = st.integers(min_value=4, max_value=12).flatmap(
    lambda n_docs: st.integers(min_value=2, max_value=15).flatmap(
        lambda n_words: st.lists(
            st.integers(min_value=0, max_value=6),
            min_size=n_docs * n_words,
            max_size=n_docs * n_words,
        ).map(lambda cells: np.array(cells).reshape(n_docs, n_words))
    )
)


@settings(max_examples=60, deadline=None)
@given(matrix=_matrices, split=st.integers(min_value=1, max_value=3))
def test_swapping_groups_negates_every_z(matrix: np.ndarray, split: int) -> None:
    matrix = matrix.copy()
    matrix[:, 0] += 1  # every document has a word
    a = np.arange(matrix.shape[0]) < split
    b = ~a
    counts = _counts(matrix)
    ab = marked_words(counts, a, {"u": b}, all_words=True).set_index("word")
    ba = marked_words(counts, b, {"u": a}, all_words=True).set_index("word")
    ba = ba.loc[ab.index]
    np.testing.assert_allclose(ab["z_u"], -ba["z_u"], atol=1e-9, equal_nan=True)
    both = ab["significant"].to_numpy() & ba["significant"].to_numpy()
    assert not both.any()


@settings(max_examples=60, deadline=None)
@given(matrix=_matrices)
def test_identical_groups_give_no_marked_words(matrix: np.ndarray) -> None:
    matrix = matrix.copy()
    matrix[:, 0] += 1
    counts = _counts(matrix)
    everyone = np.ones(matrix.shape[0], dtype=bool)
    table = marked_words(counts, everyone, {"u": everyone, "v": everyone}, all_words=True)
    assert not table["significant"].any()
    finite = table["z_u"].dropna()
    np.testing.assert_allclose(finite, 0.0, atol=1e-12)
    assert marked_words(counts, everyone, {"u": everyone}, fdr_alpha=0.05).empty
