"""Welch's t-test, Bernoulli standard errors, percent change, bootstrap and permutation tests."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from gasp.errors import ConfigError
from gasp.stats import (
    bernoulli_se,
    bootstrap_ci,
    percent_change,
    permutation_test,
    welch_t_test,
)
from gasp.text import count_words


def test_welch_hand_computed() -> None:
    # a = [1, 2, 3]: mean 2, variance 1, var/n = 1/3
    # b = [2, 4, 6, 8]: mean 5, variance 20/3, var/n = 5/3
    # t = (2 - 5) / sqrt(1/3 + 5/3) = -3 / sqrt(2)
    # df = (1/3 + 5/3)^2 / ((1/3)^2 / 2 + (5/3)^2 / 3) = 4 / (1/18 + 25/27) = 216/53
    r = welch_t_test([1, 2, 3], [2, 4, 6, 8])
    assert r.t == pytest.approx(-3 / math.sqrt(2), rel=1e-12)
    assert r.df == pytest.approx(216 / 53, rel=1e-12)
    assert r.p_value == pytest.approx(2 * stats.t.sf(3 / math.sqrt(2), 216 / 53), rel=1e-10)
    assert r.mean_difference == pytest.approx(-3.0)
    assert (r.n_a, r.n_b, r.nan_a, r.nan_b) == (3, 4, 0, 0)
    assert r.reason is None
    assert welch_t_test([1, 2, 3], [2, 4, 6, 8], alternative="less").p_value == pytest.approx(
        r.p_value / 2
    )


def test_welch_drops_and_counts_nans() -> None:
    r = welch_t_test([1, np.nan, 2, 3], [2, 4, np.nan, np.nan, 6, 8])
    assert (r.nan_a, r.nan_b, r.n_a, r.n_b) == (1, 2, 3, 4)
    assert r.t == pytest.approx(-3 / math.sqrt(2))


def test_welch_undefined_cases_have_reasons() -> None:
    r = welch_t_test([1.0], [2.0, 3.0, 4.0])
    assert math.isnan(r.t) and math.isnan(r.p_value) and math.isnan(r.df)
    assert r.reason is not None and "at least 2" in r.reason
    assert r.mean_difference == pytest.approx(-2.0)
    flat = welch_t_test([1.0, 1.0], [2.0, 2.0])
    assert math.isnan(flat.p_value) and flat.reason is not None
    with pytest.raises(ConfigError):
        welch_t_test([1, 2], [3, 4], alternative="bigger")  # type: ignore[arg-type]


def test_bernoulli_se_by_hand() -> None:
    out = bernoulli_se([0.5, 0.2, 0.0, 0.3], [100, 4, 10, 0])
    np.testing.assert_allclose(out[:3], [0.05, 0.2, 0.0])
    assert math.isnan(out[3])
    np.testing.assert_allclose(bernoulli_se(0.5, [25, 100]), [0.1, 0.05])
    with pytest.raises(ConfigError):
        bernoulli_se(1.5, 10)


def test_percent_change_by_hand() -> None:
    out = percent_change([10.0, -0.1, 0.1, -0.1, 0.0], [15.0, -0.2, 0.05, 0.1, 3.0])
    np.testing.assert_allclose(out[:4], [50.0, 100.0, -50.0, -200.0])
    assert math.isnan(out[4])


def test_bootstrap_matches_a_manual_replication() -> None:
    x = np.array([1.0, 4.0, 2.0, 8.0, 5.0])
    y = np.array([3.0, 3.5, 9.0])

    def diff(a: np.ndarray, b: np.ndarray) -> float:
        return float(a.mean() - b.mean())

    res = bootstrap_ci([x, y], diff, rng=np.random.default_rng(42), n_resamples=200)
    rng = np.random.default_rng(42)
    manual = []
    for _ in range(200):
        ia = rng.integers(0, 5, 5)
        ib = rng.integers(0, 3, 3)
        manual.append(x[ia].mean() - y[ib].mean())
    low, high = np.quantile(manual, [0.025, 0.975])
    assert res.estimate == pytest.approx(diff(x, y))
    assert (res.low, res.high) == pytest.approx((low, high))
    assert res.n_failed == 0
    basic = bootstrap_ci(
        [x, y], diff, rng=np.random.default_rng(42), n_resamples=200, method="basic"
    )
    assert (basic.low, basic.high) == pytest.approx(
        (2 * res.estimate - high, 2 * res.estimate - low)
    )


def test_bootstrap_resamples_lists_frames_and_counts_and_drops_nan() -> None:
    texts = ["she is a nurse", "he is a pilot", "she flies", "he cooks"]
    counts = count_words(texts)

    def share_she(c: object) -> float:
        return float(c.word_counts(["she"]).sum() / c.n_documents)  # type: ignore[attr-defined]

    res = bootstrap_ci([counts], share_she, rng=np.random.default_rng(0), n_resamples=50)
    assert res.estimate == pytest.approx(0.5)
    assert 0.0 <= res.low <= res.high <= 1.0
    frame = pd.DataFrame({"v": [1.0, 2.0, 3.0]})
    const = bootstrap_ci(
        [frame], lambda f: float(f["v"].min()), rng=np.random.default_rng(1), n_resamples=100
    )
    assert const.low >= 1.0 and const.high <= 3.0

    def sometimes_nan(words: np.ndarray) -> float:
        return float("nan") if "b" not in set(words.tolist()) else 1.0

    res2 = bootstrap_ci(
        [["a", "a", "b"]], sometimes_nan, rng=np.random.default_rng(5), n_resamples=400
    )
    # P(no "b" in a resample of 3) = (2/3)^3 = 8/27, so about 119 of 400 fail
    assert 70 < res2.n_failed < 170
    # the same resamples drawn by hand: exactly those without "b" fail
    draws = np.random.default_rng(5)
    failed = sum(2 not in draws.integers(0, 3, 3) for _ in range(400))
    assert res2.n_failed == failed
    np.testing.assert_array_equal(res2.distribution, np.ones(400 - failed))


def test_permutation_test_matches_a_manual_replication() -> None:
    values = np.array([1.0, 2.0, 3.0, 10.0, 11.0, 12.0])
    labels = np.array(["F", "F", "F", "M", "M", "M"])

    def diff(v: np.ndarray, lab: np.ndarray) -> float:
        return float(v[lab == "M"].mean() - v[lab == "F"].mean())

    res = permutation_test(values, labels, diff, rng=np.random.default_rng(9), n_permutations=300)
    rng = np.random.default_rng(9)
    null = np.array([diff(values, rng.permutation(labels)) for _ in range(300)])
    k = int((null >= 9.0 - 1e-12).sum())
    assert res.statistic == pytest.approx(9.0)
    greater = permutation_test(
        values,
        labels,
        diff,
        rng=np.random.default_rng(9),
        n_permutations=300,
        alternative="greater",
    )
    assert greater.p_value == pytest.approx((1 + k) / 301)
    # only 2 of the 20 labelings are as extreme in either direction, so p is near 0.1
    assert res.p_value == pytest.approx(min(1.0, 2 * greater.p_value))
    assert 0.02 < res.p_value < 0.25


def test_permutation_test_null_is_not_significant() -> None:
    rng = np.random.default_rng(11)
    values = rng.normal(size=200)
    labels = rng.integers(0, 2, size=200)

    def diff(v: np.ndarray, lab: np.ndarray) -> float:
        return float(v[lab == 1].mean() - v[lab == 0].mean())

    res = permutation_test(values, labels, diff, rng=np.random.default_rng(12), n_permutations=500)
    assert res.p_value > 0.05
    # every permutation gave a finite statistic, and the null is centred on zero
    assert res.n_failed == 0 and res.null_distribution.size == 500
    assert abs(float(res.null_distribution.mean())) < 0.05


def test_welch_values_equal_up_to_rounding_have_no_variance() -> None:
    a = np.full(10, 0.1) + np.arange(10) * 1e-15  # the same score along two paths
    assert a.var() > 0
    b = np.full(10, 0.3)
    result = welch_t_test(a, b)
    assert np.isnan(result.t) and np.isnan(result.p_value)
    assert result.reason is not None and "zero variance" in result.reason


def test_welch_reasons_name_the_problem() -> None:
    one = welch_t_test([1.0], [2.0, 3.0])
    assert one.reason == "Welch's t-test needs at least 2 values per group: the first group has 1"
    assert not one.defined
    empty = welch_t_test([np.nan, np.inf], [1.0], unit="occupations")
    assert empty.reason == (
        "Welch's t-test needs at least 2 occupations per group: the first group has none "
        "(2 undefined left out) and the second group has 1"
    )
    assert (empty.n_a, empty.nan_a) == (0, 2)
    flat = welch_t_test([0.5, 0.5], [0.5, 0.5, 0.5], unit="subjects")
    assert flat.reason == (
        "Welch's t-test is undefined: both groups have zero variance (the first group's 2 "
        "subjects are all 0.5, the second group's 3 are all 0.5)"
    )
    ok = welch_t_test([1.0, 2.0, 4.0], [2.0, 3.0, 7.0])
    assert ok.defined and ok.reason is None


def test_welch_reason_survives_into_a_table() -> None:
    rows = [welch_t_test([1.0, 2.0, 4.0], [2.0, 3.0, 7.0]).to_row(), welch_t_test([], []).to_row()]
    table = pd.DataFrame(rows)
    assert list(table.columns) == [
        "statistic", "p_value", "df", "mean_a", "mean_b", "n_a", "n_b", "reason"
    ]  # fmt: skip
    assert table.loc[0, "reason"] == ""
    assert math.isnan(table.loc[1, "p_value"])
    assert table.loc[1, "reason"].startswith("Welch's t-test needs at least 2 values")
