"""Per-occupation SRB intervals: when none is given, and coverage by stereotype strength.

The coverage check draws corpora of one planted occupation per strength
(``PlantedWorld(n_texts=60, words_per_text=25)``) and asks how often the interval of
the SRB scores of associated women and men holds the true score: the expected score at
that strength and sample size, the mean over independent corpora of the same size.
Measured with these seeds (40 subsamples per interval, 20 at each of the two sizes, as
the study draws by default; about 100 to 120 intervals per strength): 0.913, 0.955,
0.966, 0.950, 0.933 at strengths 0, 0.25, 0.5, 0.75, 1; each must lie in the target
band 0.90-0.98. ``bench/bench_coverage.py`` shows the setting where it falls short
(strength 0 at a z threshold of 3).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gasp.stats import SUBSAMPLE, IntervalScheme, interval_from_draws, interval_or_reason
from gasp.studies.more_of_the_same.report._audit_how import no_interval_sentence
from gasp.testing import PlantedWorld, expected_statistics, occupation_statistics

SCHEME = IntervalScheme(SUBSAMPLE, 40, 0, fraction=0.5)


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


@pytest.mark.parametrize("strength", [0.0, 0.25, 0.5, 0.75, 1.0])
def test_coverage_by_strength(strength: float) -> None:
    world = PlantedWorld(n_texts=60, words_per_text=25)
    probs = world.probabilities(strength)
    rng = np.random.default_rng(int(strength * 100))
    truth = expected_statistics(world, probs, 200, rng)
    hits = []
    for _ in range(60):
        observed, draws = occupation_statistics(world, world.sample(probs, rng), SCHEME, rng)
        for key in ("srb_F", "srb_M"):
            low, high, note = interval_or_reason(observed[key], draws[key], SCHEME)
            if not note:
                hits.append(low <= truth[key] <= high)
    print(f"strength {strength}: coverage {np.mean(hits):.3f} of {len(hits)} intervals")
    assert len(hits) >= 100
    assert 0.90 <= float(np.mean(hits)) <= 0.98
