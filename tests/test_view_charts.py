"""The chart data of ``gasp view``: a metric's releases over time keep every audit in
time order, each model's value and interval, and mark the differences an audit called
significant (and only those); a forest plot has one point per tested comparison."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gasp.viewing import Audit, Catalog
from gasp.viewing._charts import forest_figures, metric_choices, releases


def _card(share_b: float, direction: str, significant: bool) -> dict[str, Any]:
    metric = {"study": "narratives", "metric": "named_female_share", "ci_low": None}
    return {
        "baseline": "a",
        "metrics": [
            {**metric, "model": "a", "value": 0.5, "ci_low": 0.4, "ci_high": 0.6},
            {**metric, "model": "b", "value": share_b, "ci_low": share_b - 0.1,
             "ci_high": share_b + 0.1},
        ],
        "comparisons": [
            {
                **metric,
                "model": "b",
                "baseline": "a",
                "quantity": "distance to 0.5",
                "difference": share_b - 0.5,
                "ci_low": share_b - 0.6,
                "ci_high": share_b - 0.4,
                "q_value": 0.01 if significant else 0.5,
                "significant": significant,
                "direction": direction,
            },
            {**metric, "metric": "unknown_share", "model": "b", "baseline": "a",
             "difference": None, "direction": "not tested", "significant": False},
        ],
    }  # fmt: skip


def _catalog() -> Catalog:
    catalog = Catalog([])
    for number, (date, share, direction, significant) in enumerate(
        [
            ("2026-03-01T00:00:00", 0.9, "worse", True),
            ("2026-01-01T00:00:00", 0.7, "no difference", False),
            ("2026-02-01T00:00:00", 0.55, "no difference", False),
        ]
    ):
        audit = Audit(f"{number:012d}", 0, Path(f"/r/{number}"), f"release-{number}", date=date)
        audit.card = _card(share, direction, significant)
        audit.models = ["a", "b"]
        catalog.audits[audit.key] = audit
    return catalog


def test_releases_are_in_time_order_with_significant_differences_marked() -> None:
    data = releases(_catalog(), "narratives", "named_female_share")
    assert [s["label"] for s in data["sources"]] == ["release-1", "release-2", "release-0"]
    values = [[p["value"] for p in s["points"]] for s in data["sources"]]
    assert values == [[0.5, 0.7], [0.5, 0.55], [0.5, 0.9]]
    marked = [[p["significant"] for p in s["points"]] for s in data["sources"]]
    assert marked == [[None, None], [None, None], [None, "worse"]]
    last = data["sources"][-1]["points"][1]
    assert (last["low"], last["high"], last["against"]) == (0.8, 1.0, "a")
    assert releases(_catalog(), "narratives", "no_such_metric")["sources"] == []
    assert ("narratives", "named_female_share", 3) in metric_choices(_catalog())


def test_a_forest_plot_shows_each_tested_comparison_with_its_interval() -> None:
    figures = forest_figures(_card(0.9, "worse", True))
    assert len(figures) == 1  # unknown_share was not tested: no plot
    trace = figures[0]["data"][0]
    assert trace["y"] == ["b vs a"]
    assert trace["x"] == [0.4] or abs(trace["x"][0] - 0.4) < 1e-12
    low, high = trace["error_x"]["arrayminus"][0], trace["error_x"]["array"][0]
    assert abs(low - 0.1) < 1e-12 and abs(high - 0.1) < 1e-12
    assert trace["marker"]["color"] == ["#cf222e"]  # worse
