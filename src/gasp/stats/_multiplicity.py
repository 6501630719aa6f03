"""Multiplicity across a study: study-wide false discovery rate and chance marked words.

A study tests thousands of words in every comparison of every subject (63 occupations
x 5 comparisons x thousands of words in More of the Same). Two tools here look at that
whole set of tests at once:

* :func:`study_rule` turns a :class:`~gasp.stats.SignificanceRule` whose FDR scope is
  ``"study"`` into the fixed z-score cutoff that the Benjamini-Hochberg procedure, run
  over *every* (word, target, unmarked group) test of the study at once, implies. With
  ``m`` tests and ``k`` rejections at level ``q``, BH rejects exactly the tests whose
  two-sided p-value is at most ``k q / m`` (no p-value lies between the largest rejected
  one and that line, or BH would reject one more); that line is the cutoff, and
  ``q / m`` (the Bonferroni line) when BH rejects nothing, which rejects nothing either.
  The cutoff ``z* = Phi^-1(1 - p*/2)`` then applies to every comparison as a plain
  ``z > z*`` rule, and to the resampled marked-word sets of the bootstrap and the
  permutation test (a plug-in cutoff: fixed at its value on the observed data).
* :func:`chance_count` counts the tests of a set of marked-words tables and the
  number of marked words expected by chance under the null hypothesis (no word
  differs between the groups): the sum over tests of the probability that a null
  test passes, ``P(Z > z_cut)`` for the one-sided tail of the standard normal at the
  cutoff used (a word is marked only with a positive z-score). A test is one word of
  one comparison (a target group against all its unmarked groups) whose z-scores are
  finite and whose count reaches ``min_count``. Against several unmarked groups a
  word must pass every one, so ``P(Z > z_cut)`` at the largest cutoff is an upper
  bound of its chance; with one unmarked group it is exact. Under a per-comparison
  FDR the cutoff of each comparison is read off its own Benjamini-Hochberg line in
  the same way.

The expected count assumes z-scores that are standard normal under the null; the
shrinkage of an informative prior (and the calibration of Calibrated Marked Words)
makes real z-scores narrower, so the count is then an upper bound too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import norm

from gasp.stats._marked_words import marked_words_table
from gasp.stats._multiple_testing import bh_p_cutoff, two_sided_p
from gasp.stats._rule import SignificanceRule


def z_cutoff(p_cutoff: float) -> float:
    """The z-score whose two-sided p-value is ``p_cutoff``."""
    return float(norm.isf(p_cutoff / 2.0))


def table_z(table: pd.DataFrame) -> np.ndarray:
    """The (unmarked groups, words) z-scores of a marked-words table (``z_<group>`` columns)."""
    columns = [c for c in table.columns if str(c).startswith("z_") and c != "z_sum"]
    if not columns:
        raise ValueError("a marked-words table needs z_<group> columns")
    return np.stack([table[c].to_numpy(dtype=np.float64) for c in columns])


def _tested(table: pd.DataFrame, rule: SignificanceRule) -> np.ndarray:
    """(groups, words): finite z-scores of words seen at least ``min_count`` times."""
    z = table_z(table)
    enough = table["count_target"].to_numpy() >= rule.min_count
    return np.isfinite(z) & enough[np.newaxis, :]


def study_rule(rule: SignificanceRule, tables: Iterable[pd.DataFrame]) -> SignificanceRule:
    """The per-comparison rule of a study-wide FDR: ``z > z*`` over all ``tables`` at once.

    ``tables`` are the all-words tables (``all_words=True``) of every comparison of the
    study. A rule without a study-wide FDR is returned unchanged.
    """
    if rule.fdr is None or rule.fdr_scope != "study":
        return rule
    p_parts = []
    for table in tables:
        if table.empty:
            continue
        p_parts.append(two_sided_p(table_z(table))[_tested(table, rule)])
    p_all = np.concatenate(p_parts) if p_parts else np.empty(0)
    cut = z_cutoff(bh_p_cutoff(p_all, rule.fdr))
    return SignificanceRule(threshold=cut, min_count=rule.min_count)


def reselect(
    table: pd.DataFrame, rule: SignificanceRule, *, all_words: bool = False
) -> pd.DataFrame:
    """An all-words marked-words table with significance decided again by ``rule``.

    A table already decided by ``rule`` is only filtered (``all_words`` false) or
    copied: deciding again would give the same table.
    """
    if table.attrs.get("rule") == rule.to_dict():
        kept = table if all_words else table[table["significant"].to_numpy(dtype=bool)]
        kept = kept.reset_index(drop=True)
        kept.attrs["rule"] = rule.to_dict()
        return kept
    z = table_z(table)
    names = [str(c)[2:] for c in table.columns if str(c).startswith("z_") and c != "z_sum"]
    return marked_words_table(
        table["word"].to_numpy(dtype=object),
        table["count_target"].to_numpy(),
        {n: table[f"count_{n}"].to_numpy() for n in names},
        {n: z[i] for i, n in enumerate(names)},
        all_words=all_words,
        rule=rule,
    )


def _row_cutoffs(table: pd.DataFrame, rule: SignificanceRule, tested: np.ndarray) -> np.ndarray:
    """The z cutoff of each unmarked group of a comparison under ``rule``."""
    z = table_z(table)
    if rule.fdr is None:
        return np.full(z.shape[0], float(rule.threshold))  # type: ignore[arg-type]
    p = two_sided_p(z)
    if rule.fdr_scope == "study":  # one family: the comparison's whole table
        return np.full(z.shape[0], z_cutoff(bh_p_cutoff(p[tested], rule.fdr)))
    return np.array([z_cutoff(bh_p_cutoff(p[i, tested[i]], rule.fdr)) for i in range(z.shape[0])])


#: The columns of a chance count in a result table.
CHANCE_FIELDS = (
    "n_comparisons",
    "n_tests",
    "z_cutoff_low",
    "z_cutoff_high",
    "expected_by_chance",
    "marked_words",
)


@dataclass(frozen=True)
class ChanceCount:
    """Tests of a set of comparisons and the marked words expected among them by chance.

    ``n_comparisons`` comparisons hold ``n_tests`` tests (word x comparison);
    ``z_low`` and ``z_high`` are the smallest and largest cutoffs applied (NaN without
    a test); ``expected`` the marked words expected under the null; ``marked`` those
    actually marked.
    """

    n_comparisons: int
    n_tests: int
    z_low: float
    z_high: float
    expected: float
    marked: int

    def to_row(self) -> dict[str, Any]:
        """One result-table row: n_comparisons, n_tests, z_cutoff_low, z_cutoff_high,
        expected_by_chance, marked_words."""
        values = (self.n_comparisons, self.n_tests, self.z_low, self.z_high)
        return dict(zip(CHANCE_FIELDS, (*values, self.expected, self.marked), strict=True))


def chance_count(tables: Sequence[pd.DataFrame], rule: SignificanceRule) -> ChanceCount:
    """Tests and chance marked words of all-words ``tables`` under the applied ``rule``.

    ``rule`` is the rule that decided the tables' ``significant`` column (after
    :func:`study_rule`); see the module notes for the expected count.
    """
    n_tests = 0
    expected = 0.0
    marked = 0
    cuts: list[float] = []
    for table in tables:
        if table.empty:
            continue
        tested = _tested(table, rule)
        words = tested.all(axis=0)
        cut = float(_row_cutoffs(table, rule, tested).max())
        cuts.append(cut)
        n = int(words.sum())
        n_tests += n
        expected += n * float(norm.sf(cut))
        marked += int(table["significant"].sum())
    return ChanceCount(
        n_comparisons=len(cuts),
        n_tests=n_tests,
        z_low=min(cuts) if cuts else float("nan"),
        z_high=max(cuts) if cuts else float("nan"),
        expected=expected,
        marked=marked,
    )


def chance_table(
    groups: Sequence[tuple[tuple[str, ...], Sequence[pd.DataFrame]]],
    key_names: tuple[str, ...],
    rule: SignificanceRule,
    asked: SignificanceRule,
) -> pd.DataFrame:
    """The ``chance_marked_words`` table: a row per group of all-words tables, then ``all``.

    Each table is decided by ``rule`` (the applied rule, a study-wide FDR resolved); a
    group without tables gets no row. ``asked`` (the rule the user gave) is named in the
    ``rule`` column. Columns: ``key_names``, ``rule``, then :meth:`ChanceCount.to_row`'s.
    """
    rows = []
    every: list[pd.DataFrame] = []
    for key, tables in groups:
        if not tables:
            continue
        decided = [reselect(table, rule, all_words=True) for table in tables]
        every.extend(decided)
        names = dict(zip(key_names, key, strict=True))
        rows.append({**names, **chance_count(decided, rule).to_row()})
    rows.append({**dict.fromkeys(key_names, "all"), **chance_count(every, rule).to_row()})
    columns = [*key_names, "rule", *CHANCE_FIELDS]
    return pd.DataFrame(rows).assign(rule=asked.describe())[columns]
