"""Narrative runs compared: Wilson intervals and the test of the F/M/U split, checked by hand."""

from __future__ import annotations

import math
from math import comb
from pathlib import Path

import pandas as pd
import pytest

from _cli import gasp_exit_code
from gasp.results import AuditResults
from gasp.studies.pronoun_pairs import (
    COMPARE_SHARES,
    COMPARE_TESTS,
    compare_shares,
    split_test,
    wilson_interval,
)


def _exact_by_hand(first: list[int], second: list[int]) -> float:
    """Fisher-Freeman-Halton by enumeration: P(top row = (a, b, c)) under fixed margins is
    C(F, a) C(M, b) C(U, c) / C(N, n1)."""
    cols = [x + y for x, y in zip(first, second, strict=True)]
    n1, n = sum(first), sum(cols)

    def prob(row: tuple[int, ...]) -> float:
        out = 1.0
        for k, c in zip(row, cols, strict=True):
            out *= comb(c, k)
        return out / comb(n, n1)

    rows = [
        (a, b, n1 - a - b)
        for a in range(cols[0] + 1)
        for b in range(cols[1] + 1)
        if 0 <= n1 - a - b <= cols[2]
    ]
    observed = prob(tuple(first))
    return sum(p for r in rows if (p := prob(r)) <= observed * (1 + 1e-7))


def test_chi_square_statistic_and_exact_p_value_of_a_small_table() -> None:
    # expected counts: F 9 and 9, M 9 and 9, U 2 and 2 (N = 40, rows of 20)
    # chi2 = 4 x (3^2 / 9) + 0 = 4.0 on 2 df; an expected count of 2 < 5: exact p-value
    result = split_test([12, 6, 2], [6, 12, 2])
    assert result["statistic"] == pytest.approx(4.0)
    assert result["df"] == 2 and result["min_expected"] == pytest.approx(2.0)
    assert result["test"] == "exact"
    assert result["p_value"] == pytest.approx(_exact_by_hand([12, 6, 2], [6, 12, 2]), rel=1e-9)
    assert 0.05 < result["p_value"] < 0.2


def test_chi_square_p_value_with_large_expected_counts_and_a_missing_category() -> None:
    # U occurs in neither run: a 2 x 2 table, every expected count 25,
    # chi2 = 4 x (5^2 / 25) = 4.0 on 1 df, p = P(|Z| > 2) = 0.0455003
    result = split_test([30, 20, 0], [20, 30, 0])
    assert result["test"] == "chi-square" and result["df"] == 1
    assert result["statistic"] == pytest.approx(4.0)
    assert result["p_value"] == pytest.approx(0.0455003, abs=1e-6)


def test_exact_p_value_of_a_two_by_two_table_by_hand() -> None:
    # margins 4 and 4 of 8: P(a) = C(4, a) C(4, 4 - a) / C(8, 4) = 1, 16, 36, 16, 1 (/70);
    # the observed a = 3 (16/70) and every table no more probable: 34 / 70
    result = split_test([3, 1, 0], [1, 3, 0])
    assert result["test"] == "exact"
    assert result["statistic"] == pytest.approx(2.0)  # 4 x (1^2 / 2)
    assert result["p_value"] == pytest.approx(34 / 70)


def test_no_test_when_one_category_only_and_identical_splits_show_nothing() -> None:
    assert split_test([0, 0, 5], [0, 0, 7])["test"] == "none"
    same = split_test([10, 10, 2], [10, 10, 2])
    assert same["statistic"] == pytest.approx(0.0) and same["p_value"] == pytest.approx(1.0)


def test_wilson_interval_by_hand_and_inside_zero_one() -> None:
    # 0 of 10: [0, z^2 / (n + z^2)] with z = 1.959964: 3.841459 / 13.841459 = 0.277533
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.277533, abs=1e-6)
    # 5 of 10: centre 0.5, half-width z sqrt(n p q + z^2 / 4) / (n + z^2) = 0.263407
    low, high = wilson_interval(5, 10)
    assert (low, high) == pytest.approx((0.5 - 0.263407, 0.5 + 0.263407), abs=1e-6)
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0) and wilson_interval(10, 10)[1] <= 1.0
    assert all(math.isnan(x) for x in wilson_interval(0, 0))


def _shares(counts: dict[str, tuple[int, int, int]]) -> pd.DataFrame:
    rows = []
    for profession, (f, m, u) in counts.items():
        rows.append(
            {"profession": profession, "template": "Overall", "stories": f + m + u}
            | {"female": f, "male": m, "unknown": u}
        )
    return pd.DataFrame(rows)


def test_a_planted_difference_is_found_and_equal_runs_show_none() -> None:
    a = _shares({"nurse": (40, 10, 0), "pilot": (25, 25, 0), "Overall": (65, 35, 0)})
    b = _shares({"nurse": (10, 40, 0), "pilot": (25, 25, 0), "Overall": (35, 65, 0)})
    shares, tests = compare_shares({"A": a, "B": b})
    assert list(shares["run"]) == ["A"] * 3 + ["B"] * 3
    nurse = shares[(shares["run"] == "A") & (shares["profession"] == "nurse")].iloc[0]
    low, share, high = (float(nurse[f"female_share{s}"]) for s in ("_low", "", "_high"))
    assert share == 0.8 and low < 0.8 < high <= 1.0
    p = tests.set_index("profession")["p_value"].astype(float)
    adjusted = tests.set_index("profession")["p_adjusted"].astype(float)
    assert p["nurse"] < 1e-6 and p["pilot"] == pytest.approx(1.0)
    # Benjamini-Hochberg over the two professions: the smaller p doubled, Overall left out
    assert adjusted["nurse"] == pytest.approx(2 * p["nurse"])
    assert math.isnan(adjusted["Overall"])


def test_gasp_compare_of_narrative_runs_writes_tables_and_report_inside_out(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    runs = []
    for seed in ("1", "2"):
        out = tmp_path / f"run{seed}"
        args = ["run", "narratives", "--quick", "-m", "mock/personas", "--out", str(out)]
        assert gasp_exit_code(monkeypatch, *args, "--seed", seed, "--skip", "report") == 0
        runs.append(str(out))
    cmp = tmp_path / "cmp"
    args = ["compare", *runs, "--out", str(cmp), "--label", "one", "--label", "two"]
    assert gasp_exit_code(monkeypatch, *args) == 0
    saved = AuditResults.load(cmp)
    shares, tests = saved[COMPARE_SHARES], saved[COMPARE_TESTS]
    assert set(shares["run"]) == {"one", "two"}
    assert set(shares["profession"]) == {"graduate student", "roofer", "Overall"}
    totals = shares["female"] + shares["male"] + shares["unknown"]
    assert (totals == shares["stories"]).all()
    assert len(tests) == 3 and set(tests["first"]) == {"one"}
    page = (cmp / "report" / "report.html").read_text(encoding="utf-8")
    assert "Comparison of runs: who the protagonist is" in page
    assert (cmp / "report" / "tables" / f"{COMPARE_TESTS}.csv").is_file()
    assert not (tmp_path / "cmp.report").exists()
