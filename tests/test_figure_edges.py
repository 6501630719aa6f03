"""Every figure draws from any valid result: error bars from intervals at shares of 0
and 1, intervals that miss their estimate by a rounding error, and missing bounds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _cli import gasp_exit_code
from gasp.report import error_bars, save_figure
from gasp.results import AuditResults
from gasp.studies.pronoun_pairs import COMPARE_SHARES, wilson_interval
from gasp.studies.pronoun_pairs.report._narrative_compare import female_figure


def test_error_bar_lengths_by_hand() -> None:
    bars = error_bars(
        [0.5, 0.0, 1.0, 0.3], [0.25, 5.6e-17, 0.7, np.nan], [0.75, 0.2, 1 - 1e-16, 0.6]
    )
    assert bars.shape == (2, 4)
    np.testing.assert_allclose(bars[0], [0.25, 0.0, 0.3, 0.0])
    np.testing.assert_allclose(bars[1], [0.25, 0.2, 0.0, 0.3])
    assert (error_bars([50.0], [40.0], [70.0], scale=2) == [[20.0], [40.0]]).all()


@pytest.mark.parametrize("n", [1, 3, 7, 10, 40])
def test_the_wilson_interval_holds_its_estimate_at_every_count(n: int) -> None:
    for count in range(n + 1):
        low, high = wilson_interval(count, n)
        assert 0.0 <= low <= count / n <= high <= 1.0


def test_the_comparison_figure_draws_a_run_whose_every_protagonist_is_a_man(
    tmp_path: Path,
) -> None:
    rows = []
    for run, female in (("all men", 0), ("all women", 10), ("mixed", 4)):
        low, high = wilson_interval(female, 10)
        # the bounds as rounding leaves them, just past the estimate at 0 and 1
        low = 5.6e-17 if female == 0 else low
        high = 1 - 1e-16 if female == 10 else high
        rows.append(
            {
                "run": run,
                "profession": "nurse",
                "female_share": female / 10,
                "female_share_low": low,
                "female_share_high": high,
            }
        )
    rows.append({"run": "empty", "profession": "nurse", "female_share": np.nan})
    fig = female_figure(pd.DataFrame(rows))
    assert fig is not None
    assert save_figure(fig, tmp_path, "f").startswith(b"\x89PNG")


def test_gasp_compare_of_a_run_of_men_only_draws_its_report(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    runs = []
    for share in ("0", "0.5"):
        out = tmp_path / f"run{share}"
        args = ["run", "narratives", "--quick", "-m", "mock/personas", "--out", str(out)]
        # 14 stories a profession and 28 in all: sizes where the Wilson bounds of a share
        # of 0 miss it by a rounding error
        args += [
            "--n",
            "7",
            "--model-option",
            f"female_share={share}",
            "--model-option",
            "nonbinary_share=0",
        ]
        assert gasp_exit_code(monkeypatch, *args, "--skip", "report") == 0
        runs.append(str(out))
    cmp = tmp_path / "cmp"
    assert gasp_exit_code(monkeypatch, "compare", *runs, "--out", str(cmp)) == 0
    shares = AuditResults.load(cmp)[COMPARE_SHARES]
    men_only = shares[shares["run"] == shares["run"].iloc[0]]
    assert (men_only["female"] == 0).all()
    assert (cmp / "report" / "report.html").is_file()
