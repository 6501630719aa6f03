"""The audit's difference tests against hand-computed values and reference
implementations, and the one Benjamini-Hochberg correction of a scorecard."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest, norm, ttest_rel
from statsmodels.stats.multitest import multipletests

from gasp.auditing import DifferenceSettings, Scorecard, compare_readings, correct
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


def test_a_mean_of_paired_units_is_the_paired_t_test() -> None:
    model, base = [3.0, 5.0, 2.0, 7.0, 4.0], [1.0, 2.0, 2.5, 3.0, 1.0]
    d = np.subtract(model, base)
    reference = ttest_rel(model, base)
    diff = compare_readings(_metric(), _units(model), _units(base))
    assert diff.difference == pytest.approx(d.mean())
    assert diff.p_value == pytest.approx(reference.pvalue)
    low, high = reference.confidence_interval(0.95)
    assert (diff.ci_low, diff.ci_high) == (pytest.approx(low), pytest.approx(high))
    assert "jackknife t-test over 5 shared units" in diff.test


def test_the_interval_excludes_0_exactly_when_p_is_below_the_level() -> None:
    rng = np.random.default_rng(4)
    for n in (3, 8, 30):
        for shift in (0.0, 0.3, 0.6, 1.2):
            base = list(rng.normal(0, 1, n))
            model = list(np.add(base, rng.normal(shift, 1, n)))
            for better in (LOWER, CLOSER_TO_0):
                diff = compare_readings(_metric(better), _units(model), _units(base))
                assert diff.ci_low <= diff.difference <= diff.ci_high
                excludes = diff.ci_low > 0 or diff.ci_high < 0
                assert excludes == (diff.p_value < 0.05)


def test_a_shift_shared_by_every_unit_does_not_enter_a_gap_test() -> None:
    """A gap between two groups of units: a model that moves every unit by the same 40
    points has the same gap; one that moves only one group has another (found, and the
    interval agrees with the test)."""

    def gap(units: object) -> float:
        x = np.asarray(units["x"], dtype=float)  # type: ignore[index]
        grp = np.asarray(units["g"]).astype(str)  # type: ignore[index]
        return float(x[grp == "f"].mean() - x[grp == "m"].mean())

    rng = np.random.default_rng(5)
    groups = ["f"] * 10 + ["m"] * 10
    base_x = np.where(np.array(groups) == "f", 70.0, 50.0) + rng.normal(0, 3, 20)

    def reading(x: np.ndarray) -> MetricReading:
        frame = pd.DataFrame({"unit": range(20), "x": x, "g": groups})
        return MetricReading(value=gap(frame), units=frame, unit_keys=("unit",), statistic=gap)

    shifted = base_x - 40.0 + rng.normal(0, 3, 20)
    same = compare_readings(_metric(CLOSER_TO_0), reading(shifted), reading(base_x))
    assert same.p_value > 0.05 and same.ci_low < 0 < same.ci_high
    narrowed = base_x - np.where(np.array(groups) == "f", 15.0, 0.0) + rng.normal(0, 3, 20)
    found = compare_readings(_metric(CLOSER_TO_0), reading(narrowed), reading(base_x))
    assert found.difference < -10 and found.p_value < 0.01 and found.ci_high < 0


def test_the_mcnemar_interval_inverts_the_exact_test() -> None:
    for up, down in ((9, 2), (6, 0), (3, 3), (12, 4), (8, 1)):
        a = [1] * up + [0] * down + [1] * 5 + [0] * 4
        b = [0] * up + [1] * down + [1] * 5 + [0] * 4
        n = len(a)
        frame = pd.DataFrame({"k": range(n), "flag": a})
        base = pd.DataFrame({"k": range(n), "flag": b})
        diff = compare_readings(
            _metric(), share_reading(frame, ("k",), "flag"), share_reading(base, ("k",), "flag")
        )
        assert diff.ci_low <= diff.difference <= diff.ci_high
        assert (diff.ci_low > 0 or diff.ci_high < 0) == (diff.p_value < 0.05)


def test_a_run_that_tested_nothing_is_not_tested() -> None:
    words = MetricReading(value=-158.0, count=0, total=6620, offset=158, kind="rate")
    nothing = MetricReading(value=float("nan"), count=0, total=0, kind="rate")
    for a, b in ((words, nothing), (nothing, words)):
        diff = compare_readings(_metric(), a, b)
        assert np.isnan(diff.difference) and np.isnan(diff.p_value)
        assert diff.test.startswith("none:")
    card = _card([None])
    correct(card)
    assert card.comparison_rows[0]["direction"] == "not tested"


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
    assert card.comparison_rows[4]["direction"] == "not tested"


def test_the_margin_keeps_small_worse_differences_out_of_the_gate() -> None:
    card = _card([0.001, 0.001])
    card.comparison_rows[1]["difference"] = 0.2
    correct(card)
    assert len(card.failing()) == 2
    assert [r["metric"] for r in card.failing({"m1": 0.5})] == ["m0"]
    assert card.failing({"s.m0": 2.0, "m1": 0.5}) == []


def test_the_proportion_interval_is_the_score_test_inverted() -> None:
    from statsmodels.stats.proportion import confint_proportions_2indep

    for counts in ((30, 100, 20, 100), (100, 100, 90, 100), (0, 50, 3, 60), (7, 40, 1, 45)):
        a = MetricReading(
            value=counts[0] / counts[1], count=counts[0], total=counts[1], kind="proportion"
        )
        b = MetricReading(
            value=counts[2] / counts[3], count=counts[2], total=counts[3], kind="proportion"
        )
        diff = compare_readings(_metric(), a, b)
        assert (diff.ci_low > 0 or diff.ci_high < 0) == (diff.p_value < 0.05)
        if counts[0] not in (0, counts[1]):
            low, high = confint_proportions_2indep(*counts, method="score")
            assert (diff.ci_low, diff.ci_high) == (
                pytest.approx(low, abs=1e-6),
                pytest.approx(high, abs=1e-6),
            )
