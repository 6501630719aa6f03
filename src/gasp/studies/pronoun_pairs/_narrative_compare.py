"""Narrative runs compared: protagonist shares per profession and a test of the difference.

Each run's saved ``narrative_shares`` gives, per profession over all openings (and over
every profession, ``Overall``), how many stories have a female (F), male (M) or
unknown (U) protagonist. The comparison shows each share with its 95% Wilson score
interval (always inside [0, 1]) and, for every pair of runs and every profession both
ran, tests whether the F/M/U split differs:

* the 2 x c table of counts (two runs by the c of F, M, U that occur in either run);
* Pearson's chi-square statistic without continuity correction, c - 1 degrees of
  freedom;
* its p-value from the chi-square distribution when every expected count is at least
  5, else the exact conditional p-value (Fisher's test, Freeman-Halton for three
  categories): the probability, given the margins, of every table no more probable
  than the observed one;
* no test when only one category occurs (both runs split the same way by construction);
* Benjamini-Hochberg adjusted p-values over the professions of each pair (``Overall``
  left out).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from gasp.results import AuditResults
from gasp.stats import bh_q_values, wilson_interval
from gasp.studies.pronoun_pairs._comparison_runs import (
    comparison_meta,
    comparison_runs,
    write_comparison,
)
from gasp.studies.pronoun_pairs._metrics import OVERALL
from gasp.studies.pronoun_pairs._narrative_analysis import SHARES
from gasp.studies.pronoun_pairs._study import NARRATIVES_KIND

COMPARE_SHARES = "narrative_compare_shares"  # per run x profession: F/M/U shares, intervals
COMPARE_TESTS = "narrative_compare_tests"  # per pair of runs x profession: the test

GENDERS = ("female", "male", "unknown")
CONFIDENCE = 0.95
MIN_EXPECTED = 5.0
#: Tables whose probability is within this relative tolerance of the observed one count
#: as no more probable (the tolerance of scipy's Fisher test).
_TIE = 1 + 1e-7


def _tables(row_sums: Sequence[int], col_sums: Sequence[int]) -> list[np.ndarray]:
    """Every 2 x c table of non-negative counts with these margins."""
    first = int(row_sums[0])
    ranges = [range(min(first, int(c)) + 1) for c in col_sums[:-1]]
    tables = []
    for head in itertools.product(*ranges):
        last = first - sum(head)
        if 0 <= last <= col_sums[-1]:
            top = np.array([*head, last])
            tables.append(np.vstack([top, np.asarray(col_sums) - top]))
    return tables


def exact_p_value(table: np.ndarray) -> float:
    """The exact conditional p-value of independence in a 2 x c table (Fisher's test;
    Freeman-Halton beyond two columns): the summed probability, under fixed margins, of
    every table no more probable than ``table``."""
    table = np.asarray(table, dtype=int)
    rows, cols = table.sum(axis=1), table.sum(axis=0)
    law = stats.random_table(rows, cols)
    observed = float(law.pmf(table))
    probabilities = law.pmf(np.stack(_tables(rows, cols)))
    return min(1.0, float(probabilities[probabilities <= observed * _TIE].sum()))


def split_test(first: Sequence[int], second: Sequence[int]) -> dict[str, Any]:
    """Whether two runs split their stories into F, M and U alike (see the module
    docstring): the statistic, degrees of freedom, p-value, which p-value, the smallest
    expected count."""
    table = np.array([list(first), list(second)], dtype=int)
    table = table[:, table.sum(axis=0) > 0]
    none = {"statistic": float("nan"), "df": 0, "p_value": float("nan"), "min_expected": None}
    if table.shape[1] < 2 or (table.sum(axis=1) == 0).any():
        return none | {"test": "none"}
    result = stats.chi2_contingency(table, correction=False)
    min_expected = float(np.min(result.expected_freq))
    if min_expected >= MIN_EXPECTED:
        p_value, test = float(result.pvalue), "chi-square"
    else:
        p_value, test = exact_p_value(table), "exact"
    return {
        "statistic": float(result.statistic),
        "df": int(table.shape[1] - 1),
        "p_value": p_value,
        "min_expected": min_expected,
        "test": test,
    }


def run_shares(shares: pd.DataFrame, label: str) -> pd.DataFrame:
    """One run's F/M/U counts and shares per profession over all openings, with Wilson
    intervals."""
    part = shares[shares["template"] == OVERALL]
    rows = []
    for r in part.to_dict("records"):
        n = int(r["stories"])
        row: dict[str, Any] = {"run": label, "profession": r["profession"], "stories": n}
        for gender in GENDERS:
            k = int(r[gender])
            low, high = wilson_interval(k, n)
            row |= {
                gender: k,
                f"{gender}_share": k / n if n else float("nan"),
                f"{gender}_share_low": low,
                f"{gender}_share_high": high,
            }
        rows.append(row)
    return pd.DataFrame(rows)


def compare_shares(runs: Mapping[str, pd.DataFrame]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The shares of every run (``runs``: label -> its saved ``narrative_shares``) and the
    test of every pair of runs on every profession both have."""
    per_run = {label: run_shares(shares, label) for label, shares in runs.items()}
    tests = []
    for first, second in itertools.combinations(per_run, 2):
        a = per_run[first].set_index("profession")
        b = per_run[second].set_index("profession")
        rows = []
        for profession in [p for p in a.index if p in b.index]:
            x, y = a.loc[profession], b.loc[profession]
            row = {"first": first, "second": second, "profession": profession}
            row |= {"stories_first": int(x["stories"]), "stories_second": int(y["stories"])}
            for gender in GENDERS:
                row[f"{gender}_share_first"] = float(x[f"{gender}_share"])
                row[f"{gender}_share_second"] = float(y[f"{gender}_share"])
            counts = [[int(v[g]) for g in GENDERS] for v in (x, y)]
            rows.append(row | split_test(*counts))
        frame = pd.DataFrame(rows)
        frame["p_adjusted"] = _bh(frame)
        tests.append(frame)
    shares = pd.concat(per_run.values(), ignore_index=True)
    return shares, pd.concat(tests, ignore_index=True)


def _bh(frame: pd.DataFrame) -> pd.Series:
    """Benjamini-Hochberg adjusted p-values over the tested professions (not Overall)."""
    adjusted = pd.Series(np.nan, index=frame.index)
    mask = (frame["profession"] != OVERALL) & frame["p_value"].notna()
    if mask.any():
        adjusted[mask] = bh_q_values(frame.loc[mask, "p_value"])
    return adjusted


def compare_narrative_runs(
    runs: Sequence[Path], out: Path, options: Mapping[str, Any]
) -> dict[str, Any]:
    """Compare analysed narrative runs: tables to ``out``, the report inside it."""
    loaded, labels = comparison_runs(
        runs, options, kind=NARRATIVES_KIND, table=SHARES, what="narrative run"
    )
    shares, tests = compare_shares(
        {label: a[SHARES] for label, a in zip(labels, loaded, strict=True)}
    )
    comparison = AuditResults(
        tables={COMPARE_SHARES: shares, COMPARE_TESTS: tests},
        meta=comparison_meta(
            NARRATIVES_KIND,
            labels,
            runs,
            settings={
                "interval": f"Wilson score, {CONFIDENCE:.0%}",
                "test": "Pearson chi-square (no continuity correction) on runs x F/M/U",
                "exact_below_expected": MIN_EXPECTED,
                "multiplicity": "Benjamini-Hochberg over professions, per pair of runs",
            },
        ),
    )
    overall = tests[tests["profession"] == OVERALL]
    lines = [
        f"{r.first} vs {r.second}: female protagonists {r.female_share_first:.1%} vs "
        f"{r.female_share_second:.1%} over all professions, {r.test} p = {r.p_value:.3g}"
        for r in overall.itertuples()
    ]
    return write_comparison(comparison, out, lines)
