"""The audit's difference tests against hand-computed values and reference
implementations, and the one Benjamini-Hochberg correction of a scorecard."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest, norm
from statsmodels.stats.multitest import multipletests

from gasp.audit import DifferenceSettings, Scorecard, compare_readings, correct
from gasp.results import (
    CLOSER_TO_0,
    HIGHER,
    LOWER,
    HeadlineMetric,
    MetricReading,
    mean_of,
    share_reading,
)


def _metric(better: str = LOWER) -> HeadlineMetric:
    return HeadlineMetric(
        study="s",
        name="m",
        meaning="a metric",
        unit="share",
        better=better,
        interval_scheme="test",
        denominator="units",
        leaves_out="nothing",
        read=lambda results: MetricReading(value=0.0),
        paired_over="units",
    )


def _units(values: list[float]) -> MetricReading:
    frame = pd.DataFrame({"unit": [f"u{i}" for i in range(len(values))], "x": values})
    return MetricReading(
        value=float(np.mean(values)),
        units=frame,
        unit_keys=("unit",),
        statistic=mean_of("x"),
    )


def test_mcnemar_matches_an_exact_binomial_test_on_the_discordant_units() -> None:
    a = [1] * 9 + [0] * 2 + [1] * 5 + [0] * 4
    b = [0] * 9 + [1] * 2 + [1] * 5 + [0] * 4
    frame = pd.DataFrame({"k": range(20), "flag": a})
    base = pd.DataFrame({"k": range(20), "flag": b})
    diff = compare_readings(
        _metric(), share_reading(frame, ("k",), "flag"), share_reading(base, ("k",), "flag")
    )
    assert diff.difference == pytest.approx((9 - 2) / 20)
    assert diff.p_value == pytest.approx(binomtest(2, 11, 0.5).pvalue)
    assert "McNemar" in diff.test and diff.n_shared == 20


def test_the_paired_permutation_is_exact_for_few_units() -> None:
    model, base = [3.0, 5.0, 2.0, 7.0, 4.0], [1.0, 2.0, 2.5, 3.0, 1.0]
    d = np.subtract(model, base)
    observed = d.mean()
    flips = [np.mean(d * np.array(s)) for s in itertools.product((1, -1), repeat=len(d))]
    expected = np.mean(np.abs(flips) >= abs(observed) - 1e-12)
    diff = compare_readings(_metric(), _units(model), _units(base))
    assert diff.difference == pytest.approx(observed)
    assert diff.p_value == pytest.approx(expected)
    assert "exact" in diff.test
    assert diff.ci_low <= observed <= diff.ci_high


def test_a_closer_to_0_metric_compares_distances() -> None:
    rng = np.random.default_rng(0)
    noise = rng.normal(0, 0.5, size=(2, 30))
    far, near = list(-4.0 + noise[0]), list(1.0 + noise[1])
    # the model is further from 0, on the other side: a positive distance difference
    diff = compare_readings(_metric(CLOSER_TO_0), _units(far), _units(near))
    assert diff.quantity == "distance to 0"
    assert diff.difference == pytest.approx(abs(np.mean(far)) - abs(np.mean(near)))
    assert diff.difference > 0 and diff.p_value < 0.05
    # on the same side the distance is the value: a strong paired difference
    same = compare_readings(_metric(CLOSER_TO_0), _units([-v for v in far]), _units(near))
    assert same.p_value < 0.001 and same.ci_low > 0


def test_unpaired_wald_from_standard_errors() -> None:
    a = MetricReading(value=0.30, se=0.04)
    b = MetricReading(value=0.20, se=0.03)
    diff = compare_readings(_metric(HIGHER), a, b)
    z = 0.10 / np.hypot(0.04, 0.03)
    assert diff.p_value == pytest.approx(2 * norm.sf(z))
    assert diff.ci_low == pytest.approx(0.10 - 1.959963984540054 * 0.05)


def test_identical_readings_give_p_1_everywhere() -> None:
    reading = _units([0.1, 0.5, 0.2, 0.9, 0.3, 0.4, 0.8, 0.7, 0.6, 0.2, 0.1, 0.3, 0.5, 0.9])
    diff = compare_readings(_metric(), reading, reading, DifferenceSettings(seed=3))
    assert diff.difference == 0.0 and diff.p_value == 1.0
    prop = MetricReading(value=0.25, count=5, total=20, kind="proportion")
    assert compare_readings(_metric(), prop, prop).p_value == pytest.approx(1.0)


def _card(p_values: list[float | None], better: str = LOWER) -> Scorecard:
    card = Scorecard([], "base", 0.05)
    for i, p in enumerate(p_values):
        card.comparison_rows.append(
            {"study": "s", "metric": f"m{i}", "model": "a", "baseline": "base",
             "better": better, "difference": 1.0, "p_value": p}
        )  # fmt: skip
    return card


def test_one_benjamini_hochberg_correction_over_the_whole_scorecard() -> None:
    p = [0.001, 0.045, 0.03, 0.5, None, 0.012]
    card = _card(p)
    correct(card)
    tested = [x for x in p if x is not None]
    q = multipletests(tested, method="fdr_bh")[1]
    got = [row["q_value"] for row in card.comparison_rows if row["p_value"] is not None]
    assert got == pytest.approx(list(q))
    assert [row["significant"] for row in card.comparison_rows] == [
        True, False, False, False, False, True,
    ]  # fmt: skip
    # a positive difference of a lower-is-better metric is worse; higher-is-better: better
    assert card.comparison_rows[0]["direction"] == "worse"
    other = _card([0.001], better=HIGHER)
    correct(other)
    assert other.comparison_rows[0]["direction"] == "better"
    assert card.comparison_rows[4]["q_value"] is None
    assert card.comparison_rows[4]["direction"] == "no difference"


def test_the_margin_keeps_small_worse_differences_out_of_the_gate() -> None:
    card = _card([0.001, 0.001])
    card.comparison_rows[1]["difference"] = 0.2
    correct(card)
    assert len(card.failing()) == 2
    assert [r["metric"] for r in card.failing({"m1": 0.5})] == ["m0"]
    assert card.failing({"s.m0": 2.0, "m1": 0.5}) == []
