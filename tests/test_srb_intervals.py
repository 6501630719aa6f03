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

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gasp.stats import (
    MIN_SET_WORDS,
    SUBSAMPLE,
    IntervalScheme,
    interval_from_draws,
    interval_or_reason,
)
from gasp.studies.more_of_the_same.analysis import AnalysisConfig
from gasp.studies.more_of_the_same.report._audit_how import no_interval_sentence
from gasp.testing import (
    PlantedWorld,
    expected_statistics,
    occupation_statistics,
    srb_set_sizes,
)

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
    config = AnalysisConfig(threshold=5.0, n_bootstrap=10, n_permutations=0, seed=2)
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
