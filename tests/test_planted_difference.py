"""Planted difference: words only one gender's texts use are found; SRB tells the genders apart."""

from __future__ import annotations

import pandas as pd
import pytest

from _analysis_helpers import PLANTED, random_embeddings
from gasp.studies.more_of_the_same.analysis import AnalysisConfig, AuditResults, analyze_samples
from gasp.studies.more_of_the_same.analysis._synthetic import synthetic_samples


@pytest.fixture(scope="module")
def planted_results() -> AuditResults:
    samples = synthetic_samples(
        8, n_unspecified=250, n_named=100, seed=5, planted=PLANTED, planted_rate=0.25
    )
    config = AnalysisConfig(threshold=1.0, n_bootstrap=5, n_permutations=39, seed=2)
    return analyze_samples(samples, None, config, embeddings=random_embeddings())


@pytest.mark.parametrize("source", ["named", "associated"])
@pytest.mark.parametrize("gender", ["F", "M"])
def test_planted_words_are_marked(planted_results: AuditResults, source: str, gender: str) -> None:
    marked = planted_results["marked_words"]
    part = marked[(marked["source"] == source) & (marked["gender"] == gender)]
    assert part["subject"].nunique() == 8
    for subject, words in part.groupby("subject")["word"]:
        assert set(PLANTED[gender]) <= set(words), subject
        other = "M" if gender == "F" else "F"
        assert not set(PLANTED[other]) & set(words), subject


def test_srb_scores_point_to_the_planted_gender(planted_results: AuditResults) -> None:
    scores = planted_results["srb_scores"].pivot(index="subject", columns="gender", values="score")
    assert (scores["F"] < 0).all()
    assert (scores["M"] > 0).all()
    tests = planted_results["srb_test"].query("variant == 'paper'").set_index("test")
    assert tests.loc["welch", "p_value"] < 0.05
    assert tests.loc["welch", "statistic"] < 0
    assert tests.loc["permutation", "p_value"] == pytest.approx(1 / 40)
    paired = planted_results["srb_paired"].set_index("variant").loc["paper"]
    assert paired["decision"] == "differ" and paired["n_pairs"] == 8
    assert paired["diff_high"] < 0 and paired["t_p_value"] < 0.05
    assert paired["sign_flip_p_value"] == pytest.approx(2 / 2**8)  # exact: every sign < 0


def test_word_tables_put_planted_words_in_both(planted_results: AuditResults) -> None:
    tables = planted_results["word_tables"]
    for gender, words in PLANTED.items():
        rows = tables[(tables["gender"] == gender) & tables["word"].isin(words)]
        assert not rows.empty
        assert (rows["category"] == "both").all()


def test_bootstrap_intervals_are_reported(planted_results: AuditResults) -> None:
    scores = planted_results["srb_scores"]
    assert (scores["n_bootstrap"] == AnalysisConfig().n_simulations).all()  # calibrated
    assert (scores["ci_low"] <= scores["ci_high"]).all()
    # Resampled scores keep the direction of the planted difference on average.
    boot = scores.groupby("gender")["boot_mean"].mean()
    assert boot["F"] < 0 < boot["M"]


def test_results_round_trip(planted_results: AuditResults, tmp_path: pd.DataFrame) -> None:
    folder = planted_results.save(tmp_path / "out")
    loaded = AuditResults.load(folder)
    assert set(loaded.tables) == set(planted_results.tables)
    pd.testing.assert_frame_equal(
        loaded["srb_scores"][["subject", "gender", "score"]],
        planted_results["srb_scores"][["subject", "gender", "score"]],
        check_dtype=False,
    )
