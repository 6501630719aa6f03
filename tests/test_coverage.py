"""Intervals that cover: the resampling schemes of :mod:`gasp.stats`, checked by simulation.

The SRB check draws 150 corpora of one planted occupation (``PlantedWorld(n_texts=60,
words_per_text=25)``, stereotype strength 0.5) and asks how often each nominal 95%
interval holds the mean SRB score at that sample size (computed on 400 more corpora).
Measured with these seeds (SRB of associated women and men pooled, 300 intervals):

* old scheme, texts resampled with replacement, percentile interval: 0.77. The
  resampled scores lean toward 0 (repeated texts mark more words), so the intervals
  sit beside the truth.
* new scheme, each group's texts drawn without replacement at two sizes (30 subsamples
  of half of them, 30 of 71%), spread extrapolated to the full size: 0.94.

The test requires the old scheme below 0.85 and the new one within [0.90, 0.99].
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from gasp.errors import ConfigError
from gasp.stats import (
    BOOTSTRAP,
    CLUSTER,
    SUBSAMPLE,
    IntervalScheme,
    describe_interval,
    draw_weights,
    expansion,
    extrapolated_variance,
    first_size_draws,
    interval_from_draws,
    mean_interval,
    second_fraction,
    subsample_scale,
    subsample_size,
)
from gasp.testing import PlantedWorld, expected_statistics, occupation_statistics


def test_description_names_scheme_draws_fraction_and_seed() -> None:
    scheme = IntervalScheme(SUBSAMPLE, 1000, 0, fraction=0.5)
    assert scheme.describe() == (
        "95% interval from 1,000 subsamples of texts without replacement (within each "
        "group), half of 50% and half of 70.71%, spread extrapolated to the full size; seed 0"
    )
    boot = IntervalScheme(BOOTSTRAP, 200, 7, 0.9, unit="answers")
    assert boot.describe() == (
        "90% interval from 200 bootstrap resamples of answers with replacement "
        "(expanded percentile); seed 7"
    )
    assert describe_interval(boot.record()) == boot.describe()
    assert "whole occupations" in IntervalScheme(CLUSTER, 10, 1, unit="occupations").describe()
    assert "not saved" in describe_interval(None)
    assert boot.columns() == {"interval_scheme": "bootstrap", "interval_draws": 200,
                              "interval_seed": 7}  # fmt: skip


def test_scheme_refuses_bad_settings() -> None:
    with pytest.raises(ConfigError):
        IntervalScheme("jackknife", 10, 0)
    with pytest.raises(ConfigError):
        IntervalScheme(SUBSAMPLE, 10, 0, fraction=1.0)
    with pytest.raises(ConfigError):
        IntervalScheme(BOOTSTRAP, 10, 0, fraction=0.5)


def test_subsample_draws_repeat_no_text() -> None:
    rng = np.random.default_rng(3)
    w = draw_weights(IntervalScheme(SUBSAMPLE, 50, 0, fraction=0.3), rng, 21)
    assert set(np.unique(w)) == {0.0, 1.0}
    assert subsample_size(21, 0.3) == 6 and first_size_draws(50) == 25
    assert (w[:25].sum(axis=1) == 6).all()  # the first half at b, the rest at sqrt(b)
    assert second_fraction(0.3) == pytest.approx(np.sqrt(0.3))
    assert subsample_size(21, np.sqrt(0.3)) == 12
    assert (w[25:].sum(axis=1) == 12).all()
    boot = draw_weights(IntervalScheme(BOOTSTRAP, 50, 0), rng, 21)
    assert (boot.sum(axis=1) == 21).all() and boot.max() > 1  # repeats happen
    assert subsample_size(2, 0.5) == 1 and subsample_size(1, 0.5) == 1


def test_subsample_interval_by_hand() -> None:
    """b = 1/2, b2 = sqrt(1/2): the subsample variance at x is V_n (x^-g - 1), so the
    variance ratio is 2.414 at g = 1 (V_n = v1) and 3 at g = 2 (V_n = v1 / 3)."""
    first = np.array([-1.0, 0.0, 1.0, np.nan])  # variance 1 over the three defined
    t2 = stats.t.ppf(0.975, 2)
    scheme = IntervalScheme(SUBSAMPLE, 8, 0, fraction=0.5)
    slow = np.sqrt(1 / 3) * first  # ratio 3: the rate 2
    low, high = interval_from_draws(2.0, np.concatenate([first, slow]), scheme)
    assert (low, high) == pytest.approx((2.0 - t2 * np.sqrt(1 / 3), 2.0 + t2 * np.sqrt(1 / 3)))
    as_mean = np.sqrt(1 / (1 + np.sqrt(2))) * first  # ratio 2.414: the rate 1
    assert interval_from_draws(2.0, np.concatenate([first, as_mean]), scheme) == pytest.approx(
        (2.0 - t2, 2.0 + t2)
    )
    flat = interval_from_draws(2.0, np.concatenate([first, first]), scheme)  # ratio 1: kept at 1
    assert flat == pytest.approx((2.0 - t2, 2.0 + t2))
    assert subsample_scale(0.8) == pytest.approx(2.0)
    draws = np.arange(101, dtype=float) / 100.0
    plain = interval_from_draws(2.0, draws, IntervalScheme(BOOTSTRAP, 101, 0))
    assert plain == pytest.approx((0.025, 0.975))
    assert np.isnan(interval_from_draws(1.0, np.array([np.nan]), scheme)[0])


def test_subsample_extrapolation_matches_the_variance_of_a_mean() -> None:
    """For a mean, sqrt(b/(1-b)) times the subsample spread at b is the standard error,
    and the spread extrapolated from the two sizes is too (the fitted rate is 1; the fit
    turns the noise of the variance ratio, about 2% with 8,000 draws per size, into
    about 3.4 times as much in the spread, only downward since the rate is kept at least
    1: 0.92 of the standard error here); the textbook sqrt(m/n) would give 0.71 of it
    at b = 1/2."""
    rng = np.random.default_rng(11)
    x = rng.normal(size=400)
    scheme = IntervalScheme(SUBSAMPLE, 16000, 0, fraction=0.5)
    w = draw_weights(scheme, rng, x.size)
    means = (w @ x) / w.sum(axis=1)
    half, second = means[:8000], means[8000:]
    se = x.std(ddof=1) / np.sqrt(x.size)
    assert subsample_scale(0.5) * half.std() == pytest.approx(se, rel=0.05)
    extrapolated = np.sqrt(extrapolated_variance(half, second, 0.5))
    assert 0.88 * se <= extrapolated <= 1.01 * se
    assert np.sqrt(0.5) * half.std() < 0.75 * se


def test_expansion_by_hand() -> None:
    # sqrt(10/9) * t(0.975, 9) / z(0.975) = 1.0541 * 2.2622 / 1.9600
    assert expansion(10) == pytest.approx(1.0541 * 2.2622 / 1.9600, rel=1e-3)
    assert expansion(1) == 1.0 and 1.0 < expansion(400) < 1.01


def test_few_clusters_need_the_expanded_interval() -> None:
    """Ten clusters: the plain percentile interval of their mean covers 0.905 here, the
    expanded one 0.945."""
    rng = np.random.default_rng(8)
    plain = IntervalScheme(CLUSTER, 400, 0, expanded=False)
    wide = IntervalScheme(CLUSTER, 400, 0)
    hits: dict[str, list[bool]] = {"plain": [], "wide": []}
    for _ in range(400):
        x = rng.normal(size=10)
        for name, scheme in (("plain", plain), ("wide", wide)):
            _, low, high = mean_interval(x, scheme, rng)
            hits[name].append(low <= 0.0 <= high)
    assert np.mean(hits["plain"]) < 0.91
    assert 0.92 <= np.mean(hits["wide"]) <= 0.98


def test_mean_interval_covers_a_known_mean() -> None:
    rng = np.random.default_rng(5)
    scheme = IntervalScheme(BOOTSTRAP, 300, 0)
    hits = [
        (lambda r: r[1] <= 0.3 <= r[2])(mean_interval(rng.binomial(1, 0.3, 80), scheme, rng))
        for _ in range(300)
    ]
    assert 0.90 <= float(np.mean(hits)) <= 0.98
    assert mean_interval([2.0, 2.0], scheme) == (2.0, 2.0, 2.0)
    with pytest.raises(ConfigError):
        mean_interval([1.0, 2.0], IntervalScheme(SUBSAMPLE, 10, 0))


def _srb_coverage(scheme: IntervalScheme, truth: dict[str, float], seed: int) -> float:
    world = PlantedWorld(n_texts=60, words_per_text=25)
    probs = world.probabilities(0.5)
    rng = np.random.default_rng(seed)
    hits = []
    for _ in range(150):
        observed, draws = occupation_statistics(world, world.sample(probs, rng), scheme, rng)
        for key in ("srb_F", "srb_M"):
            low, high = scheme.interval(observed[key], draws[key])
            hits.append(low <= truth[key] <= high)
    return float(np.mean(hits))


@pytest.fixture(scope="module")
def srb_truth() -> dict[str, float]:
    world = PlantedWorld(n_texts=60, words_per_text=25)
    return expected_statistics(world, world.probabilities(0.5), 400, np.random.default_rng(1))


def test_old_scheme_misses_the_srb_score(srb_truth: dict[str, float]) -> None:
    assert srb_truth["srb_F"] < 0 < srb_truth["srb_M"]
    assert _srb_coverage(IntervalScheme(BOOTSTRAP, 60, 0), srb_truth, seed=2) < 0.85


def test_subsamples_cover_the_srb_score(srb_truth: dict[str, float]) -> None:
    coverage = _srb_coverage(IntervalScheme(SUBSAMPLE, 60, 0, fraction=0.5), srb_truth, seed=2)
    assert 0.90 <= coverage <= 0.99


def test_a_bounded_statistic_keeps_its_interval_within_its_range() -> None:
    from gasp.stats import BOOTSTRAP, SHARE_BOUNDS, IntervalScheme, mean_interval

    scheme = IntervalScheme(BOOTSTRAP, 400, 7)
    hits = np.array([0.0, 0.0, 1.0])  # three texts: the widening for few units is large
    estimate, low, high = mean_interval(hits, scheme)
    assert low < 0.0  # a share cannot be negative: unbounded, the widening passes 0
    clipped = mean_interval(hits, scheme, bounds=SHARE_BOUNDS)
    assert clipped == (estimate, 0.0, high if high <= 1.0 else 1.0)
