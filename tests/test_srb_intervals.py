"""Per-occupation SRB intervals: when none is given, and coverage by stereotype strength.

The coverage check draws corpora of one planted occupation per strength
(``PlantedWorld(n_texts=100, words_per_text=60)``, the world of
``bench/bench_coverage.py``) and asks how often the interval of the SRB scores of
associated women and men holds the true score: the expected score at that strength and
sample size, the mean over independent corpora of the same size. It uses the study's
own default scheme (:meth:`AnalysisConfig.srb_interval_scheme`: 100 subsamples, 50 at
each of the two sizes) and the study's rule for withheld intervals (a score defined in
fewer than half of the draws of a size, or resting on a one-word set). Measured with
these seeds (80 corpora per strength, so 160 scores, fewer where intervals are
withheld): see the ``print`` of each case; each must lie in the target band 0.90-0.98.
At z threshold 3 strength 0 and 0.25 leave too few intervals for a small test (most
sets are empty or hold one word); ``bench/bench_coverage.py --threshold 3`` measures them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from gasp.stats import (
    MIN_CALIBRATION_RATIOS,
    MIN_SET_WORDS,
    SIMULATED,
    SUBSAMPLE,
    IntervalScheme,
    calibrate_simulated,
    half_ratios,
    interval_from_draws,
    interval_or_reason,
    simulated_interval,
    split_spread,
    splits_per_unit,
)
from gasp.studies.more_of_the_same.analysis import AnalysisConfig
from gasp.studies.more_of_the_same.analysis._simulated import fit_world, group_sizes, simulate
from gasp.studies.more_of_the_same.report._audit_how import no_interval_sentence
from gasp.testing import (
    PlantedWorld,
    expected_statistics,
    occupation_statistics,
    srb_set_sizes,
)
from gasp.text import DocTermCounts

SCHEME = AnalysisConfig().srb_interval_scheme()


def test_no_interval_when_most_draws_are_undefined() -> None:
    scheme = IntervalScheme(SUBSAMPLE, 10, 0, fraction=0.5)
    draws = np.array([-0.4, -0.5] + [np.nan] * 8)
    low, high, note = interval_or_reason(-0.45, draws, scheme)
    assert np.isnan(low) and np.isnan(high)
    assert note.startswith("defined in only 2 of 10 draws")
    low, high, note = interval_or_reason(float("nan"), np.zeros(10), scheme)
    assert np.isnan(low) and note == "the statistic itself is undefined"
    nan = np.nan
    half = np.array([-0.4, -0.5, -0.3, nan, nan, -0.45, -0.35, -0.42, nan, nan])
    low, high, note = interval_or_reason(-0.4, half, scheme)
    assert note == ""
    assert (low, high) == pytest.approx(interval_from_draws(-0.4, half, scheme))
    assert low < -0.4 < high
    # the larger subsamples (the second half of the draws) mostly undefined: withheld
    lopsided = np.array([-0.4, -0.5, -0.3, -0.2, -0.1, -0.45, nan, nan, nan, nan])
    assert interval_or_reason(-0.4, lopsided, scheme)[2].startswith("defined in only 6 of 10")
    two = IntervalScheme(SUBSAMPLE, 2, 0, fraction=0.5)  # one draw at each size
    assert interval_or_reason(-0.4, np.array([-0.4, -0.5]), two)[2].startswith("fewer than two")


def _scores() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "subject": ["nurse", "nurse", "pilot", "pilot"],
            "template": ["all"] * 4,
            "gender": ["F", "M", "F", "M"],
            "score": [-0.3, 0.1, -0.2, float("nan")],
            "ci_low": [float("nan"), 0.0, -0.3, float("nan")],
            "ci_high": [float("nan"), 0.2, -0.1, float("nan")],
            "interval_note": [
                "defined in only 3 of 20 draws (an empty word set in the others), so no "
                "interval can cover it",
                "",
                "",
                "the statistic itself is undefined",
            ],
            "reason": ["", "", "", "no word with a vector left in set S"],
        }
    )


def test_the_report_says_in_words_which_scores_have_no_bar(tmp_path: Path) -> None:
    from gasp.results import AuditResults
    from gasp.studies.more_of_the_same.analysis import AnalysisConfig
    from gasp.studies.more_of_the_same.report import render_audit_report
    from gasp.studies.more_of_the_same.report._figures import srb_figure

    sentence = no_interval_sentence(_scores())
    assert sentence.startswith("1 score(s) in Figure 3 have no bar")
    assert "nurse (associated women): defined in only 3 of 20 draws" in sentence
    assert "pilot" not in sentence  # an undefined score is not drawn at all
    assert no_interval_sentence(_scores().assign(interval_note="")) == ""
    figure = srb_figure(_scores())
    assert figure is not None
    from matplotlib.container import ErrorbarContainer

    bars = [c for c in figure.axes[0].containers if isinstance(c, ErrorbarContainer)]
    drawn = [len(c.lines[2][0].get_segments()) for c in bars]
    assert sum(drawn) == 2  # nurse M and pilot F; nurse F has no bar
    results = AuditResults(
        tables={"srb_scores": _scores()}, meta={"settings": AnalysisConfig().settings("random")}
    )
    html = render_audit_report(results, tmp_path).read_text()
    assert "have no bar, because no interval can be trusted" in html


def test_no_interval_for_a_score_of_a_one_word_set() -> None:
    scheme = IntervalScheme(SUBSAMPLE, 10, 0, fraction=0.5)
    draws = np.array([-0.4, -0.5, -0.3, -0.2, -0.45, -0.35, -0.42, -0.38, -0.41, -0.39])
    sizes = {"S_AF": 1, "S_F": 12, "S_M": 9}
    low, high, note = interval_or_reason(-0.4, draws, scheme, sizes)
    assert np.isnan(low) and np.isnan(high)
    assert note.startswith("rests on too few words (S_AF holds 1)")
    both = interval_or_reason(-0.4, draws, scheme, {"S_AF": 1, "S_F": 1, "S_M": 9})[2]
    assert both.startswith("rests on too few words (S_AF holds 1, S_F holds 1)")
    two = interval_or_reason(-0.4, draws, scheme, {**sizes, "S_AF": MIN_SET_WORDS})
    assert two[2] == "" and two[:2] == pytest.approx(interval_from_draws(-0.4, draws, scheme))
    # an undefined score keeps its own reason
    assert interval_or_reason(float("nan"), draws, scheme, sizes)[2].startswith("the statistic")


@pytest.mark.parametrize("women_words", [1, 2])
def test_the_study_withholds_the_interval_of_a_one_word_set(women_words: int) -> None:
    """Through the study's analysis: only the planted words pass a z threshold of 5, so
    the named women's set S_F holds ``women_words`` words and every score rests on it."""
    from _analysis_helpers import PLANTED, random_embeddings
    from gasp.studies.more_of_the_same.analysis import analyze_samples
    from gasp.studies.more_of_the_same.analysis._synthetic import synthetic_samples

    planted = {"F": PLANTED["F"][:women_words], "M": PLANTED["M"][:3]}
    samples = synthetic_samples(
        3, n_unspecified=250, n_named=100, seed=5, planted=planted, planted_rate=0.5
    )
    config = AnalysisConfig(
        threshold=5.0, n_bootstrap=10, n_simulations=0, n_permutations=0, seed=2
    )
    scores = analyze_samples(samples, None, config, embeddings=random_embeddings())["srb_scores"]
    assert len(scores) == 6 and scores["score"].notna().all()
    assert (scores["n_words_specified_F"] == women_words).all()
    notes = scores["interval_note"]
    if women_words == 1:
        assert notes.str.startswith("rests on too few words (").all()
        assert notes.str.contains("S_F holds 1").all()
        assert scores["ci_low"].isna().all() and scores["ci_high"].isna().all()
        women = scores[scores["gender"] == "F"]
        assert notes[women.index].str.contains("S_AF holds 1").all()
    else:
        assert (notes[scores["gender"] == "M"] == "").all()
        assert scores.loc[scores["gender"] == "M", "ci_low"].notna().all()
        few = notes.str.startswith("rests on too few words")
        assert (few == (scores["n_words"] < MIN_SET_WORDS)).all()


CASES = [(1.96, s) for s in (0.0, 0.25, 0.5, 0.75, 1.0)] + [(3.0, s) for s in (0.5, 0.75, 1.0)]


@pytest.mark.parametrize(("threshold", "strength"), CASES)
def test_coverage_by_strength(threshold: float, strength: float) -> None:
    world = PlantedWorld(n_texts=100, words_per_text=60, threshold=threshold)
    probs = world.probabilities(strength)
    rng = np.random.default_rng([int(threshold * 100), int(strength * 100)])
    truth = expected_statistics(world, probs, 200, rng)
    hits = []
    for _ in range(80):
        observed, draws = occupation_statistics(world, world.sample(probs, rng), SCHEME, rng)
        for key in ("srb_F", "srb_M"):
            sizes = srb_set_sizes(observed, key)
            low, high, note = interval_or_reason(observed[key], draws[key], SCHEME, sizes)
            if not note:
                hits.append(low <= truth[key] <= high)
    print(f"z {threshold}, strength {strength}: coverage {np.mean(hits):.3f} of {len(hits)}")
    assert len(hits) >= 100
    assert 0.90 <= float(np.mean(hits)) <= 0.98


# --- intervals calibrated on simulations of the run's own data -------------------------


def test_half_ratio_is_the_factor_the_split_halves_need() -> None:
    draws = np.linspace(0.0, 1.0, 11)  # simulated scores at half the size
    sd = np.std(draws, ddof=1)
    halves = np.array([[0.5, 0.3], [0.1, 0.4], [0.2, 0.2]])
    # two halves' difference has sqrt(2) times the spread of one half
    expected = [0.2 / (np.sqrt(2) * sd), 0.3 / (np.sqrt(2) * sd), 0.0]
    assert half_ratios(halves, draws) == pytest.approx(expected)
    # the spread is never less than the other splits' halves show: with simulated scores
    # that never vary, split 0's spread is that of split 1's halves (0.3 apart) and 2's
    flat = np.full(11, 0.4)
    shown = [np.sqrt(0.3**2 / 4), np.sqrt(0.2**2 / 4)]
    assert split_spread(np.array([-0.3, 0.0])) == pytest.approx(shown[0])
    floored = [0.2 / (np.sqrt(2) * shown[0]), 0.3 / (np.sqrt(2) * shown[1]), 0.0]
    assert half_ratios(halves, flat) == pytest.approx(floored)
    assert half_ratios(halves[:1], flat).tolist() == [np.inf]  # differs, no spread seen
    mostly_undefined = np.r_[np.full(9, np.nan), draws[:2]]
    assert np.isnan(half_ratios(halves, mostly_undefined)).all()
    undefined_half = half_ratios(np.array([[np.nan, 0.3], [0.5, 0.3]]), draws)
    assert np.isnan(undefined_half[0]) and undefined_half[1] == pytest.approx(expected[0])


def test_calibrated_factor_is_the_conformal_quantile_of_the_ratios() -> None:
    ratios = np.arange(1, 101) / 20.0  # 0.05 ... 5.0
    cal = calibrate_simulated(ratios, 0.95)
    assert cal.factor == pytest.approx(4.8)  # the 96th of 100: ceil(0.95 * 101)
    # left out: the factor of the 99 others is their 95th (ceil(0.95 * 100))
    brute = np.mean([r <= np.sort(np.delete(ratios, i))[int(np.ceil(0.95 * 100)) - 1]
                     for i, r in enumerate(ratios)])  # fmt: skip
    assert cal.coverage == pytest.approx(brute)
    assert cal.coverage == pytest.approx(0.95)
    assert cal.nominal_factor == pytest.approx(1.959964, rel=1e-5)
    assert cal.nominal_coverage == pytest.approx(np.mean(ratios <= cal.nominal_factor))
    # splits whose simulated spread over-states the variation narrow the interval below 1.96
    small = calibrate_simulated(np.linspace(0.0, 1.0, 41), 0.95)
    assert small.factor == pytest.approx(0.975) and small.reason == ""
    assert small.nominal_coverage == 1.0
    few = calibrate_simulated(np.ones(MIN_CALIBRATION_RATIOS - 1), 0.95)
    assert np.isnan(few.factor) and few.reason.startswith(f"only {MIN_CALIBRATION_RATIOS - 1}")
    wild = np.r_[np.full(40, 0.1), np.full(10, np.inf)]  # a fifth of the splits never covered
    stuck = calibrate_simulated(wild, 0.95).reason
    assert stuck.startswith("the calibrated interval covered 80% of the split halves")
    assert "in 20% of the splits the halves' scores differed yet their simulated" in stuck


@pytest.mark.parametrize("inflation", [0.5, 2.0])
def test_calibration_undoes_a_simulation_that_misstates_the_spread(inflation: float) -> None:
    # A score N(mu, sd) at the full size, N(mu, sqrt(2) sd) at half the size, whose
    # simulations spread it by ``inflation`` times its real spread at either size. Over-
    # stated (2): the halves show it, and the factor is about 1.96 / 2 (widened a little by
    # the conformal rank and the noise of 30 simulated scores). Under-stated (0.5): the
    # halves' own spread takes over; it rests on 3 or 4 splits, so the factor widens for
    # its noise (up to twice the normal quantile). Either way the interval covers the true
    # mu in about 95% of runs.
    rng = np.random.default_rng(11)
    mu, sd, sims, splits = 0.3, 0.05, 30, 4
    half_sd = np.sqrt(2.0) * sd
    hits, factors = [], []
    for _ in range(200):
        estimate = mu + sd * rng.standard_normal()
        ratios, spreads, pairs = [], [], []
        for _unit in range(8):  # the run pools its units' splits
            spreads.append(estimate + inflation * sd * rng.standard_normal(sims))
            halves = mu + half_sd * rng.standard_normal((splits, 2))
            pairs.append(halves)
            half_draws = mu + inflation * half_sd * rng.standard_normal(sims)
            ratios.append(half_ratios(halves, half_draws))
        cal = calibrate_simulated(np.concatenate(ratios), 0.95)
        low, high, _ = simulated_interval(estimate, spreads[0], cal, None, pairs[0])
        hits.append(low <= mu <= high)
        factors.append(cal.factor)
    factor = float(np.median(factors)) * max(inflation, 1.0)
    print(f"factor {factor:.2f}, coverage {np.mean(hits)}")
    assert 1.96 <= factor <= (1.3 if inflation > 1 else 2.0) * 1.96
    assert 0.92 <= np.mean(hits) <= 0.995


def test_simulated_interval_is_the_calibrated_multiple_of_the_simulated_spread() -> None:
    cal = calibrate_simulated(np.full(50, 2.5), 0.95)
    assert cal.factor == 2.5
    draws = np.linspace(0.0, 1.0, 11)
    half = 2.5 * np.std(draws, ddof=1)
    low, high, note = simulated_interval(0.3, draws, cal, {"S_AF": 3, "S_F": 4, "S_M": 5})
    assert (low, high, note) == (pytest.approx(0.3 - half), pytest.approx(0.3 + half), "")
    one = simulated_interval(0.3, draws, cal, {"S_AF": 1, "S_F": 4, "S_M": 5})
    assert np.isnan(one[0]) and one[2].startswith("rests on too few words (S_AF holds 1)")
    sparse = simulated_interval(0.3, np.r_[draws[:4], [np.nan] * 7], cal)
    assert np.isnan(sparse[0]) and sparse[2].startswith("defined in only 4 of 11 simulations")
    undefined = simulated_interval(float("nan"), draws, cal)
    assert undefined[2] == "the statistic itself is undefined"
    withheld = calibrate_simulated(np.ones(3), 0.95)
    assert simulated_interval(0.3, draws, withheld)[2] == withheld.reason
    # the halves' spread floors the simulated one: halves 0.4 apart show sqrt(0.16 / 2)
    # at half the size, over sqrt(2) at the full size
    apart = np.array([[0.1, 0.5], [0.5, 0.1]])
    wide = simulated_interval(0.3, draws * 0.1, cal, None, apart)
    assert wide[1] - 0.3 == pytest.approx(2.5 * np.sqrt(0.16 / 2) / np.sqrt(2))
    close = simulated_interval(0.3, draws, cal, None, np.array([[0.3, 0.31], [0.3, 0.3]]))
    assert close[1] == pytest.approx(0.3 + half)  # the simulated spread is the larger


def _counts(rows: list[list[int]]) -> DocTermCounts:
    """Counts of generations over words named w0, w1, ..."""
    matrix = sp.csr_matrix(np.array(rows, dtype=np.int64))
    return DocTermCounts(matrix, np.array([f"w{i}" for i in range(matrix.shape[1])], dtype=object))


def test_fitted_world_differs_only_at_the_marked_words() -> None:
    # group 0 uses w0, group 1 never does; w1 and w2 are unmarked
    counts = _counts([[3, 0, 1], [1, 0, 1], [0, 2, 1], [0, 4, 1]])
    world = fit_world(counts, np.array([0, 0, 1, 1]), None, np.array([True, False, False]))
    totals, other = simulate(world, 4000, np.random.default_rng(0))
    assert totals.shape == (4000, 2, 3) and (other == 0).all()
    # at the marked word each group draws its own two generations: 2 x mean(3, 1), and 0
    assert totals[:, 0, 0].mean() == pytest.approx(4.0, rel=0.03)
    assert (totals[:, 1, 0] == 0).all()
    # at the others both draw two generations of the pool: 2 x mean(0, 0, 2, 4) and 2 x 1
    assert totals[:, :, 1].mean(axis=0) == pytest.approx([3.0, 3.0], rel=0.05)
    assert (totals[:, :, 2] == 2).all()
    # nothing marked: both groups are drawn from the same pool
    same, _ = simulate(dataclasses.replace(world, marked=np.zeros(3, dtype=bool)), 4000,
                       np.random.default_rng(1))  # fmt: skip
    assert same[:, 0, 0].mean() == pytest.approx(same[:, 1, 0].mean(), rel=0.05)


def test_simulated_generations_are_drawn_whole() -> None:
    # a group written half in one style (w0, w1) and half in another (w2, w3): a data set
    # with more of one style has more of both its words, and fewer of the other's
    rows = [[5, 5, 0, 0]] * 20 + [[0, 0, 5, 5]] * 20
    world = fit_world(_counts(rows), np.zeros(40, dtype=np.int64), None, np.ones(4, dtype=bool))
    totals, _ = simulate(world, 2000, np.random.default_rng(2))
    group = totals[:, 0]
    assert np.corrcoef(group[:, 0], group[:, 1])[0, 1] == pytest.approx(1.0)
    assert np.corrcoef(group[:, 0], group[:, 2])[0, 1] == pytest.approx(-1.0)
    # 40 generations drawn with replacement: w0's total is 5 x Binomial(40, 1/2)
    assert group[:, 0].std() == pytest.approx(5 * np.sqrt(40 * 0.25), rel=0.1)


def test_group_sizes_split_the_associated_generations_at_random() -> None:
    groups = np.repeat([0, 1, 2], [150, 250, 41])
    world = fit_world(_counts([[1, 1]] * groups.size), groups, (0, 1), np.zeros(2, dtype=bool))
    rng = np.random.default_rng(3)
    sizes = group_sizes(world, 4000, rng, half=False)
    assert (sizes[:, 0] + sizes[:, 1] == 400).all() and (sizes[:, 2] == 41).all()
    assert sizes[:, 0].mean() == pytest.approx(150, rel=0.01)
    assert sizes[:, 0].std() == pytest.approx(np.sqrt(400 * 0.375 * 0.625), rel=0.1)
    halves = group_sizes(world, 4000, rng, half=True)
    assert (halves[:, 0] + halves[:, 1] == 200).all()
    assert set(np.unique(halves[:, 2])) == {20, 21}  # the odd one rounded either way
    assert halves[:, 0].mean() == pytest.approx(75, rel=0.02)
    _, other = simulate(fit_world(_counts([[2, 4]] * 4), np.array([0, 0, -1, -1]), None,
                                  np.zeros(2, dtype=bool)), 3, rng, half=True)  # fmt: skip
    assert (other == [[2.0, 4.0]] * 3).all()  # half the totals outside every group


def test_the_study_calibrates_its_intervals_and_says_so(tmp_path: Path) -> None:
    from _analysis_helpers import PLANTED, random_embeddings
    from gasp.results import AuditResults
    from gasp.studies.more_of_the_same.analysis import analyze_samples
    from gasp.studies.more_of_the_same.analysis._synthetic import synthetic_samples
    from gasp.studies.more_of_the_same.report._audit_how import srb_interval_phrase

    # planted words used now and then (rate 0.1): their word sets vary between simulations
    # (at rate 0.3 every set is the planted words in nearly every simulation, and halves
    # that differ while their simulated scores never vary withhold the intervals)
    samples = synthetic_samples(
        4, n_unspecified=250, n_named=100, seed=5, planted=PLANTED, planted_rate=0.1
    )
    config = AnalysisConfig(n_simulations=12, n_permutations=0, seed=3)
    results = analyze_samples(samples, None, config, embeddings=random_embeddings())
    scores = results["srb_scores"]
    assert (scores["interval_scheme"] == SIMULATED).all()
    assert (scores["interval_draws"] == 12).all()
    given = scores["ci_low"].notna()
    assert given.any()
    assert (scores.loc[given, "ci_low"] <= scores.loc[given, "score"]).all()
    assert (scores.loc[given, "score"] <= scores.loc[given, "ci_high"]).all()
    assert scores["calibration_ratios"].nunique() == 1
    assert int(scores["calibration_ratios"].iloc[0]) <= 4 * 2 * splits_per_unit(4)
    coverage = float(scores["simulated_coverage"].iloc[0])
    assert 0.0 <= coverage <= 1.0
    settings = results.settings
    assert settings["srb"]["n_simulations"] == 12
    assert settings["srb"]["interval"]["interval_scheme"] == SIMULATED
    phrase = srb_interval_phrase(settings, scores)
    assert phrase.startswith("bars: intervals calibrated on 12 simulations of this run's data")
    assert f"nominal 95%, simulated coverage {coverage * 100:.0f}%" in phrase
    factor = float(scores["interval_factor"].iloc[0])
    nominal = float(scores["nominal_coverage"].iloc[0])
    assert f"(score ± {factor:.2f} spreads, each the larger of the simulated SD and " in phrase
    assert "the halves' spread; the uncalibrated ± 1.96 would have " in phrase
    assert f"covered {nominal * 100:.0f}%)" in phrase
    again = analyze_samples(samples, None, config, embeddings=random_embeddings())["srb_scores"]
    pd.testing.assert_frame_equal(scores, again)  # seeded
    saved = AuditResults(tables={"srb_scores": scores}, meta={"settings": settings})
    from gasp.studies.more_of_the_same.report import render_audit_report

    html = render_audit_report(saved, tmp_path).read_text()
    assert "intervals calibrated on 12 simulations of this run" in html


def test_the_calibration_sentence_names_only_the_splits_it_pooled() -> None:
    from gasp.stats import describe_simulated

    settings = {"interval_draws": 30, "interval_level": 0.95, "interval_seed": 0}
    given = describe_simulated(
        settings,
        {"simulated_coverage": 0.95, "calibration_ratios": 80, "interval_factor": 2.1,
         "nominal_coverage": 0.93},
    )  # fmt: skip
    assert given.startswith(
        "intervals calibrated on 30 simulations of this run's data per score and 80 random "
        "splits of its generations into halves; nominal 95%, simulated coverage 95% on "
        "held-out split halves (score ± 2.10 spreads"
    )
    assert "would have covered 93%); seed 0" in given
    none = describe_simulated(
        settings, {"calibration_ratios": 0, "reason": "the statistic itself is undefined"}
    )
    assert none == (
        "intervals calibrated on 30 simulations of this run's data per score; nominal 95%, "
        "no simulated coverage (the statistic itself is undefined); seed 0"
    )
