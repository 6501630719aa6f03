"""Verdicts of metrics with no better side, and of metrics whose guard moved."""

from __future__ import annotations

from typing import Any

import pytest

from gasp.auditing import Scorecard, correct
from gasp.results import HeadlineMetric
from gasp.studies import get_study_type


def _row(metric: str, better: str, difference: float, p: float) -> dict[str, Any]:
    return {
        "study": "occugender", "metric": metric, "model": "b", "baseline": "a",
        "better": better, "quantity": "value", "difference": difference, "ci_low": None,
        "ci_high": None, "n_shared": 40, "test": "t", "p_value": p,
    }  # fmt: skip


def _card(rows: list[dict[str, Any]]) -> Scorecard:
    metrics = [
        {"metric": "shift", "better": "neither", "guard": ""},
        {"metric": "gap", "better": "closer to 0", "guard": "shift"},
        {"metric": "share", "better": "closer to reference", "guard": ""},
    ]
    card = Scorecard(models=[], baseline="a", level=0.05, comparison_rows=rows)
    card.studies.append({"study": "occugender", "metrics": metrics})
    return card


def _directions(card: Scorecard) -> dict[str, str]:
    correct(card)
    return {row["metric"]: row["direction"] for row in card.comparison_rows}


def test_a_metric_with_no_better_side_differs_and_never_fails_the_gate() -> None:
    card = _card(
        [_row("shift", "neither", -17.0, 1e-4), _row("share", "closer to reference", 1, 0.9)]
    )
    assert _directions(card) == {"shift": "differs", "share": "no difference"}
    assert card.failing() == []


@pytest.mark.parametrize(
    ("shift_p", "gap_difference", "expected"),
    [
        (1e-4, -9.0, "differs"),  # the share moved: a smaller gap is not better
        (0.8, -9.0, "better"),  # the share stayed: a smaller gap is better
        (1e-4, 9.0, "worse"),  # a larger gap is worse whatever the share did
    ],
)
def test_a_guard_that_moved_withholds_better_only(
    shift_p: float, gap_difference: float, expected: str
) -> None:
    card = _card(
        [_row("shift", "neither", 5.0, shift_p), _row("gap", "closer to 0", gap_difference, 1e-4)]
    )
    assert _directions(card)["gap"] == expected


def test_every_declared_guard_names_a_metric_of_the_same_study() -> None:
    from gasp.studies import study_names

    guarded = 0
    for name in study_names():
        metrics: tuple[HeadlineMetric, ...] = tuple(get_study_type(name).headline_metrics())
        names = {m.name for m in metrics}
        for metric in metrics:
            if metric.guard:
                guarded += 1
                assert metric.guard in names and metric.guard != metric.name
    assert guarded >= 5  # OccuGender gaps, correlation and coverage; narratives. unknown share
