"""Marked Words: Fightin' Words with an informative Dirichlet prior, intersected over groups.

Marked Words (seed ``004`` Section 3.2; seed ``000`` Algorithm 2) finds the words that
distinguish the texts of a marked group (for example *Black woman*) from the texts of
each corresponding unmarked group (*White* and *man*):

1. the prior is the word counts of all texts of the dataset analysed (unless a prior
   is given);
2. for each unmarked group ``u``, the z-score of the weighted log-odds ratio of every
   word between the target group and ``u`` (Monroe, Colaresi and Quinn 2008) is
   computed by :func:`gasp.stats.log_odds_z`;
3. a word is marked when its z-score exceeds the threshold (1.96) against *every*
   unmarked group, and marked words are ranked by their summed z-scores.

Setup of the published Marked Personas analysis (Cheng, Durmus and Jurafsky 2023,
Section 3.2, Tables A5 and A6), which this module reproduces on their GPT-3.5
personas:

* the prior is every persona of the dataset (all 15 race x gender groups), the target
  and unmarked groups included (Section 3.2 and Appendix B: "uses the other texts in
  the dataset as the prior distribution", which the authors' code implements with the
  whole dataset);
* a singular race group is compared with all White personas (every gender); a singular
  gender group (woman, nonbinary) with all personas of men (every race);
* an intersectional group such as *Black woman* is compared with all White personas
  (every gender) and with all personas of men (every race), and a word must be
  significant in both comparisons;
* the rows of the unmarked groups (White, man) list the words whose z-score is below
  minus the threshold in the comparisons of the marked groups of their axis (each
  race against White; woman and nonbinary against man), intersected over those
  comparisons; this equals the unmarked group as target against each marked group.

Beyond the papers: Benjamini-Hochberg false discovery rate control (``fdr_alpha``) in
place of the fixed threshold, and a minimum count of the word in the target group
(``min_count``). The rule is :class:`gasp.stats.SignificanceRule`, passed as ``rule``
or built from those three keyword options.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from gasp.errors import DataError
from gasp.stats._log_odds import log_odds_z
from gasp.stats._rule import DEFAULT_THRESHOLD, SignificanceRule, resolve_rule
from gasp.text import DocTermCounts

__all__ = [
    "DEFAULT_THRESHOLD",
    "MarkedWords",
    "WordTestParameters",
    "marked_words",
    "marked_words_table",
]


def marked_words_table(
    vocabulary: np.ndarray,
    target_counts: np.ndarray,
    unmarked_counts: Mapping[str, np.ndarray],
    z: Mapping[str, np.ndarray],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    fdr_alpha: float | None = None,
    min_count: int = 0,
    all_words: bool = False,
    rule: SignificanceRule | None = None,
) -> pd.DataFrame:
    """The result table of Marked Words from per-word counts and z-scores.

    ``z[name]`` holds the z-score of every word of ``vocabulary`` for the target group
    against the unmarked group ``name`` (positive: more typical of the target group);
    ``unmarked_counts`` has the same keys. A word is significant when its count in the
    target group is at least ``min_count`` and, in every comparison, its z-score is
    above ``threshold`` or, when ``fdr_alpha`` is given, it is positive and rejected by
    the Benjamini-Hochberg procedure at level ``fdr_alpha`` (two-sided p-values; one
    family per comparison, made of the words with a finite z-score and enough counts).
    ``rule`` (a :class:`~gasp.stats.SignificanceRule`) replaces those three options.

    Returns the columns ``word``, ``count_target``, ``count_<name>`` and ``z_<name>``
    per unmarked group, ``z_sum`` and ``significant``, sorted by ``z_sum`` (descending,
    NaN last); only the significant words unless ``all_words``. ``attrs["rule"]``
    holds the rule applied (:meth:`~gasp.stats.SignificanceRule.to_dict`).
    """
    sig_rule = resolve_rule(rule, threshold, fdr_alpha, min_count)
    names = list(z)
    if not names:
        raise DataError("at least one unmarked group is needed")
    if set(names) != set(unmarked_counts):
        raise ValueError("z and unmarked_counts must have the same group names")
    vocab = np.asarray(vocabulary, dtype=object)
    n_words = vocab.shape[0]
    z_all = np.stack([np.asarray(z[name], dtype=np.float64) for name in names])
    target = np.asarray(target_counts, dtype=np.int64)
    if z_all.shape != (len(names), n_words) or target.shape != (n_words,):
        raise ValueError("counts and z-scores must have one entry per vocabulary word")
    significant = np.asarray(sig_rule.select(z_all, target).all(axis=0), dtype=bool)
    columns: dict[str, np.ndarray] = {"word": vocab, "count_target": target}
    for name in names:
        columns[f"count_{name}"] = np.asarray(unmarked_counts[name], dtype=np.int64)
    for i, name in enumerate(names):
        columns[f"z_{name}"] = z_all[i]
    columns["z_sum"] = z_all.sum(axis=0)
    columns["significant"] = significant
    table = pd.DataFrame(columns)
    if not all_words:
        table = table[table["significant"]]
    table = table.sort_values(
        ["z_sum", "word"], ascending=[False, True], na_position="last", kind="mergesort"
    ).reset_index(drop=True)
    table.attrs["rule"] = sig_rule.to_dict()
    return table


def _check_mask(mask: np.ndarray, n_rows: int, what: str) -> np.ndarray:
    arr = np.asarray(mask)
    if arr.dtype != bool or arr.shape != (n_rows,):
        raise DataError(f"the {what} must be a boolean mask with one entry per text ({n_rows})")
    if not arr.any():
        raise DataError(f"the {what} selects no texts")
    return arr


def marked_words(
    counts: DocTermCounts,
    target: np.ndarray,
    unmarked: Mapping[str, np.ndarray],
    *,
    prior: np.ndarray | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    fdr_alpha: float | None = None,
    min_count: int = 0,
    all_words: bool = False,
    rule: SignificanceRule | None = None,
) -> pd.DataFrame:
    """Words that distinguish the ``target`` texts from every group of ``unmarked``.

    ``target`` and each value of ``unmarked`` are boolean masks over the rows of
    ``counts``; the keys of ``unmarked`` name the unmarked groups (they become the
    column suffixes). ``prior`` defaults to the word counts of all texts of ``counts``
    (Marked Personas, Section 3.2 of seed ``004``). See :func:`marked_words_table` for
    the significance rule (``rule``, or the three keyword options) and the columns.
    """
    sig_rule = resolve_rule(rule, threshold, fdr_alpha, min_count)
    if not unmarked:
        raise DataError("at least one unmarked group is needed")
    n_rows = counts.n_documents
    target_mask = _check_mask(target, n_rows, "target group")
    names = [str(name) for name in unmarked]
    masks = [
        _check_mask(mask, n_rows, f"unmarked group {name!r}")
        for name, mask in zip(names, unmarked.values(), strict=True)
    ]
    if prior is None:
        prior_counts = counts.totals()
    else:
        prior_counts = np.asarray(prior, dtype=np.float64)
        if prior_counts.shape != (counts.vocabulary.size,):
            raise DataError("the prior must have one count per vocabulary word")
        if (prior_counts < 0).any() or not np.isfinite(prior_counts).all():
            raise DataError("the prior counts must be finite and non-negative")
    target_counts = counts.totals(target_mask)
    # One sparse product gives the counts of every unmarked group at once.
    indicator = np.stack(masks).astype(np.int64)
    other = np.asarray((counts.matrix.T @ indicator.T).T, dtype=np.int64).reshape(
        len(names), counts.vocabulary.size
    )
    z_all = log_odds_z(target_counts[np.newaxis, :], other, prior_counts[np.newaxis, :])
    return marked_words_table(
        counts.vocabulary,
        target_counts,
        {name: other[i] for i, name in enumerate(names)},
        {name: z_all[i] for i, name in enumerate(names)},
        all_words=all_words,
        rule=sig_rule,
    )


class WordTestParameters:
    """The significance parameters every Marked Words estimator takes (one declaration
    for :class:`MarkedWords` and :class:`gasp.stats.CalibratedMarkedWords`)."""

    table_: pd.DataFrame
    words_: list[str]
    rule_: SignificanceRule

    def __init__(
        self,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        fdr_alpha: float | None = None,
        min_count: int = 0,
        all_words: bool = False,
        rule: SignificanceRule | None = None,
    ) -> None:
        self.threshold = threshold
        self.fdr_alpha = fdr_alpha
        self.min_count = min_count
        self.all_words = all_words
        self.rule = rule

    def resolved_rule(self) -> SignificanceRule:
        """The significance rule these parameters give."""
        return resolve_rule(self.rule, self.threshold, self.fdr_alpha, self.min_count)


class MarkedWords(WordTestParameters):
    """Marked Words as an estimator: parameters here, :meth:`fit` fills ``table_``.

    ``table_`` is the table of :func:`marked_words`; ``words_`` the significant words
    ranked by summed z-score; ``rule_`` the significance rule applied.
    """

    def fit(
        self,
        counts: DocTermCounts,
        target: np.ndarray,
        unmarked: Mapping[str, np.ndarray],
        *,
        prior: np.ndarray | None = None,
    ) -> MarkedWords:
        """Compute the marked words of ``target`` against ``unmarked``; return ``self``."""
        self.rule_ = self.resolved_rule()
        self.table_ = marked_words(
            counts, target, unmarked, prior=prior, all_words=self.all_words, rule=self.rule_
        )
        sig = self.table_[self.table_["significant"]]
        self.words_ = sig["word"].tolist()
        return self
