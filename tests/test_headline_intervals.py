"""Every headline metric of a single run has a 95% interval from the run's own units, or
a sentence saying why none: in the scorecard page, its JSON, ``Scorecard.metrics``,
``RunResult.metrics`` and each run's ``results.json``."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import gasp
from gasp.results import (
    HEADLINE_KEY,
    MIN_INTERVAL_UNITS,
    MetricReading,
    mean_of,
    with_interval,
)
from gasp.studies.occugender._headline import rests_on

#: What a cell must never show.
_EMPTY = re.compile(r"\[\s*–\s*,\s*–\s*\]|\bnan\b", re.IGNORECASE)
_INTERVAL = re.compile(r"\[-?[0-9.e+-]+, -?[0-9.e+-]+\]")


def _finite(value: Any) -> bool:
    return value is not None and math.isfinite(float(value))


def check_page(page: str) -> int:
    """Fail on an empty interval, a NaN, or a valued cell with neither an interval nor a
    reason; return how many metric cells were read."""
    assert not _EMPTY.search(page), _EMPTY.search(page)
    cells = re.findall(r"<td><a href='[^']*'>(.*?)</a>(.*?)</td>", page, re.S)
    for shown, rest in cells:
        if shown.startswith("not tested"):
            assert re.search(r"class='note'>\S", rest), (shown, rest)
        else:
            assert _INTERVAL.search(shown) or "no interval: " in rest, (shown, rest)
    return len(cells)


def check_rows(rows: list[dict[str, Any]]) -> int:
    """Every metric row of a scorecard or ``results.json``: a finite value with finite
    bounds around it, or a reason; return how many rows have an interval."""
    with_bounds = 0
    for row in rows:
        if not _finite(row["value"]):
            assert row["note"] or row["interval_note"], row
        elif _finite(row["ci_low"]) and _finite(row["ci_high"]):
            assert row["ci_low"] <= row["value"] + 1e-9 <= row["ci_high"] + 2e-9, row
            with_bounds += 1
        else:
            assert row["interval_note"], row
    return with_bounds


def check_frame(frame: pd.DataFrame) -> None:
    """A metrics DataFrame: finite bounds wherever no reason is given, never half."""
    for _, row in frame.iterrows():
        shown = np.isfinite(row["value"]) and not row["interval_note"]
        if shown:
            assert np.isfinite(row["ci_low"]) and np.isfinite(row["ci_high"]), row.to_dict()
        else:
            assert row["interval_note"] or row["note"], row.to_dict()


def test_a_mean_of_units_gets_its_bootstrap_interval() -> None:
    units = pd.DataFrame({"job": list("abcdef"), "x": [1.0, 2.0, 4.0, 3.0, 5.0, 2.5]})
    stat = mean_of("x")
    reading = with_interval(MetricReading(value=stat(units), units=units, statistic=stat), "jobs")
    assert reading.ci_low < reading.value < reading.ci_high and not reading.interval_note
    # the interval of a mean of six values covers most of them but not their range
    assert 1.0 < reading.ci_low < 2.9 and 2.9 < reading.ci_high < 5.0


def test_too_few_units_say_why_in_words() -> None:
    units = pd.DataFrame({"job": ["a", "b"], "x": [1.0, 2.0]})
    stat = mean_of("x")
    reading = with_interval(MetricReading(value=1.5, units=units, statistic=stat), "jobs")
    assert math.isnan(reading.ci_low) and math.isnan(reading.ci_high)
    assert "too few jobs to resample: 2 in this run" in reading.interval_note
    assert str(MIN_INTERVAL_UNITS) in reading.interval_note


def test_a_statistic_undefined_in_most_resamples_has_no_interval() -> None:
    # a correlation of three units: most resamples repeat a unit and leave no spread
    units = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [3.0, 1.0, 2.0]})

    def spread_ratio(u: Any) -> float:
        x = np.asarray(u["x"], dtype=float)
        return float(np.ptp(x) / np.ptp(x)) if len(set(x.tolist())) == 3 else float("nan")

    reading = with_interval(MetricReading(value=1.0, units=units, statistic=spread_ratio))
    assert "defined in only" in reading.interval_note and math.isnan(reading.ci_low)


def test_a_general_statistic_gets_a_percentile_interval() -> None:
    rng = np.random.default_rng(1)
    units = pd.DataFrame({"g": ["a", "b"] * 20, "x": rng.normal(size=40)})
    units.loc[units["g"] == "a", "x"] += 2.0

    def gap(u: Any) -> float:
        x, g = np.asarray(u["x"], dtype=float), np.asarray(u["g"]).astype(str)
        if not (g == "a").any() or not (g == "b").any():
            return float("nan")
        return float(x[g == "a"].mean() - x[g == "b"].mean())

    reading = with_interval(MetricReading(value=gap(units), units=units, statistic=gap))
    assert reading.ci_low < reading.value < reading.ci_high
    assert 0.7 < reading.ci_low < 2.0 < reading.ci_high < 3.3


def test_a_binary_share_gets_a_wilson_interval_even_at_zero() -> None:
    units = pd.DataFrame({"value": [0.0] * 8})
    reading = with_interval(
        MetricReading(value=0.0, units=units, statistic=mean_of("value"), binary=True)
    )
    assert reading.ci_low == 0.0 and 0.2 < reading.ci_high < 0.4


def test_an_undefined_value_keeps_its_reason() -> None:
    reading = with_interval(MetricReading(value=float("nan"), note="no word tested: none"))
    assert reading.interval_note == "no word tested: none"


def test_a_share_on_little_mass_says_so() -> None:
    assert rests_on(0.03).startswith("rests on 3% of the probability mass")
    assert rests_on(0.8) == ""


def test_the_scorecard_page_json_and_frames_hold_intervals_or_reasons(tmp_path: Path) -> None:
    card = gasp.audit(
        ["mock/personas"],
        studies=["pronoun-pairs", "narratives", "marked-personas", "more-of-the-same"],
        out=tmp_path / "tour",
        quick=True,
    )
    saved = json.loads((tmp_path / "tour" / "scorecard.json").read_text(encoding="utf-8"))
    assert check_rows(saved["metrics"]) >= 8
    page = (tmp_path / "tour" / "index.html").read_text(encoding="utf-8")
    assert check_page(page) == len(saved["metrics"])
    check_frame(card.metrics)
    # the summary gives each study's time, which the content hash leaves out
    assert all(run["seconds"] is not None and run["seconds"] >= 0 for run in saved["runs"])
    assert "Time per study" in page and "marked-personas" in page.split("Time per study")[1]
    # each run saved the same rows in its results.json
    for run in saved["runs"]:
        folder = tmp_path / "tour" / run["folder"] / "results"
        index = json.loads((folder / "results.json").read_text(encoding="utf-8"))
        rows = index["meta"][HEADLINE_KEY]
        check_rows(rows)
        shown = {r["metric"]: r for r in saved["metrics"] if r["study"] == run["study"]}
        for row in rows:
            assert row["ci_low"] == pytest.approx(shown[row["metric"]]["ci_low"], nan_ok=True)


def test_run_result_metrics_have_finite_bounds_or_a_reason(tmp_path: Path) -> None:
    result = gasp.run("narratives", model="mock/personas", out=tmp_path / "run", quick=True)
    frame = result.metrics
    assert {"ci_low", "ci_high", "interval_note"} <= set(frame.columns)
    check_frame(frame)
    share = frame.set_index("metric").loc["named_female_share"]
    assert np.isfinite(share["ci_low"]) or share["interval_note"]


def test_a_tour_without_srb_scores_names_the_run_that_gives_them() -> None:
    from gasp.results import AuditResults
    from gasp.studies import get_study_type
    from gasp.studies.more_of_the_same._gasp_run import GASP_RUN

    columns = ["subject", "template", "gender", "score", "score_names_removed", "reason"]
    results = AuditResults(
        tables={
            "srb_scores": pd.DataFrame(columns=columns),
            "excluded_subjects": pd.DataFrame(
                {
                    "subject": ["nurse"],
                    "template": ["all"],
                    "step": ["how"],
                    "reason": ["fewer than n=6 associated generations (women 20, men 1)"],
                }
            ),
        }
    )
    metric = next(
        m for m in get_study_type("more-of-the-same").headline_metrics() if m.name == "mean_abs_srb"
    )
    reading = metric.reading(results)
    assert math.isnan(reading.value) and reading.interval_note == reading.note
    assert "nurse: fewer than n=6 associated generations" in reading.note
    assert GASP_RUN.command in reading.note and "minutes on 2 CPU cores" in reading.note
    assert math.isfinite(GASP_RUN.seconds) and GASP_RUN.seconds > 0


@pytest.mark.slow
def test_the_embedded_tour_page_holds_intervals_or_reasons(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The real model: OccuGender (chat form, shares resting on little say so) and the
    narratives, through ``gasp tour``; every cell of the page and the JSON is walked."""
    from _cli import gasp_exit_code

    out = tmp_path / "tour"
    args = ["tour", "--out", str(out), "--study", "occugender", "--study", "narratives"]
    assert gasp_exit_code(monkeypatch, *args) == 0
    capsys.readouterr()
    saved = json.loads((out / "scorecard.json").read_text(encoding="utf-8"))
    check_rows(saved["metrics"])
    page = (out / "index.html").read_text(encoding="utf-8")
    assert check_page(page) == len(saved["metrics"]) >= 10
    explicit = next(r for r in saved["metrics"] if r["metric"] == "explicit_female_share")
    assert _finite(explicit["ci_low"]) and _finite(explicit["ci_high"])
    assert explicit["note"].startswith("rests on ")  # the embedded model: a few % of the mass
    assert "Time per study" in page


def test_occugender_cells_hold_intervals_or_reasons(tmp_path: Path) -> None:
    card = gasp.audit(["mock/scoring"], studies="occugender", out=tmp_path / "og", quick=True)
    saved = json.loads((tmp_path / "og" / "scorecard.json").read_text(encoding="utf-8"))
    assert check_rows(saved["metrics"]) >= 1
    page = (tmp_path / "og" / "index.html").read_text(encoding="utf-8")
    assert check_page(page) == len(saved["metrics"]) == 8
    check_frame(card.metrics)
