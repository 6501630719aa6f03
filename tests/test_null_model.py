"""Null model: texts whose words do not depend on the gender (only pronouns do).

A mock generator writes the texts straight into a samples table; no model runs.
"""

from __future__ import annotations

import pandas as pd
import pytest

from _analysis_helpers import random_embeddings
from gasp.studies.more_of_the_same.analysis import AnalysisConfig, analyze_samples
from gasp.studies.more_of_the_same.analysis._synthetic import synthetic_samples
from gasp.text import PRONOUNS


@pytest.fixture(scope="module")
def null_samples() -> pd.DataFrame:
    return synthetic_samples(12, n_unspecified=250, n_named=100, seed=3)


def test_fdr_controlled_marked_words_are_only_pronouns(null_samples: pd.DataFrame) -> None:
    config = AnalysisConfig(fdr_alpha=0.05, n_bootstrap=0, n_permutations=0)
    results = analyze_samples(null_samples, None, config, embeddings=random_embeddings())
    marked = results["marked_words"]
    assert results.meta["n_analysed_subjects"] == 12
    # Pronouns (and the non-binary identity term of the non-binary texts) are found ...
    assert {"she", "her", "he", "his"} <= set(marked["word"])
    # ... and nothing else, in any comparison of any occupation.
    beyond = marked[~marked["word"].isin(PRONOUNS | {"nonbinary"})]
    assert beyond.empty, beyond[["subject", "source", "gender", "word"]].head().to_string()
    assert marked.loc[marked["word"] == "nonbinary", "gender"].eq("N").all()


def test_srb_difference_is_not_significant(null_samples: pd.DataFrame) -> None:
    # Calibrated Marked Words finds no noise word here, which leaves SRB undefined; plain
    # Marked Words with a low threshold lets noise words through, so the scores exist.
    config = AnalysisConfig(
        calibrated=False, threshold=1.0, n_bootstrap=0, n_permutations=39, seed=1
    )
    results = analyze_samples(null_samples, None, config, embeddings=random_embeddings())
    scores = results["srb_scores"]
    assert scores["score"].notna().sum() >= 20
    tests = results["srb_test"].query("variant == 'paper'").set_index("test")
    assert tests.loc["welch", "p_value"] > 0.05
    assert tests.loc["permutation", "p_value"] > 0.05
    assert tests.loc["permutation", "n_permutations"] == 39
    paired = results["srb_paired"].set_index("variant").loc["paper"]
    assert paired["decision"] == "no difference found"
    assert paired["diff_low"] < 0 < paired["diff_high"] and paired["sign_flip_p_value"] > 0.05
