"""Calibrated Marked Words: the public functions and the estimator.

The algorithm (seed ``000`` Algorithms 3 and 4, the hybrid prior and its
regularizing terms) and its hyperparameters live in
:mod:`gasp.stats._calibrated_terms`; the batched evaluation of many comparisons in
:mod:`gasp.stats._calibrated_batch`. This module turns z-scores into the result
tables of :func:`gasp.stats.marked_words_table` with the significance rule
(:class:`gasp.stats.SignificanceRule`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from gasp.stats._calibrated_batch import Comparison, _Batch
from gasp.stats._calibrated_terms import (
    CALIBRATION_FUNCTION_WORDS,
    DEFAULT_ALPHA,
    DEFAULT_C_ENGLISH,
    DEFAULT_C_TOPIC,
    CalibratedConfig,
    CalibratedTerms,
    TopicPrior,
    calibrated_terms,
)
from gasp.stats._marked_words import WordTestParameters, marked_words_table
from gasp.stats._rule import DEFAULT_THRESHOLD, SignificanceRule, resolve_rule
from gasp.text import DocTermCounts

__all__ = [
    "CALIBRATION_FUNCTION_WORDS",
    "DEFAULT_ALPHA",
    "DEFAULT_C_ENGLISH",
    "DEFAULT_C_TOPIC",
    "CalibratedConfig",
    "CalibratedMarkedWords",
    "CalibratedTerms",
    "Comparison",
    "TopicPrior",
    "calibrated_marked_words",
    "calibrated_marked_words_many",
    "calibrated_terms",
]


def calibrated_marked_words_many(
    counts: DocTermCounts,
    comparisons: Sequence[Comparison],
    *,
    config: CalibratedConfig | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    fdr_alpha: float | None = None,
    min_count: int = 0,
    all_words: bool = False,
    rule: SignificanceRule | None = None,
) -> list[pd.DataFrame]:
    """Calibrated Marked Words for many comparisons at once; one table per comparison.

    The word totals of every distinct group (targets, unmarked groups, topic priors)
    come from one sparse product of a group-indicator matrix with ``counts``, and the
    z-scores of all (target, unmarked) pairs are computed by broadcasting. Each table
    has the columns of :func:`gasp.stats.marked_words_table`; its ``attrs`` hold
    ``comparison`` (the name), ``alpha``, ``c_topic``, ``c_english``, ``c``, and per
    unmarked group ``r1``, ``r2`` and ``calibration_words`` (the words of ``W``), and
    ``rule`` (see :func:`gasp.stats.marked_words_table`). ``rule`` replaces
    ``threshold``, ``fdr_alpha`` and ``min_count``.
    """
    cfg = config if config is not None else CalibratedConfig()
    if not comparisons:
        return []
    sig_rule = resolve_rule(rule, threshold, fdr_alpha, min_count)
    batch = _Batch(counts, comparisons, cfg)
    pairs = batch.pairs
    z, r1, r2, calib = batch.terms(cfg.alpha, cfg.c)
    # Without FDR control a word's significance does not depend on the other words, so
    # only the significant words need to reach the table builder (same table, faster).
    prefilter = sig_rule.fdr is None and not all_words
    keep = batch.significant(z, sig_rule) if prefilter else None
    tables: list[pd.DataFrame] = []
    for i, comp in enumerate(comparisons):
        rows = np.flatnonzero(pairs.comparison == i)
        names = [pairs.names[k] for k in rows]
        # (an empty selection would change the dtype of the word column: use all words)
        cols = np.flatnonzero(keep[i]) if keep is not None and keep[i].any() else slice(None)
        table = marked_words_table(
            counts.vocabulary[cols],
            pairs.totals[pairs.target[rows[0]]][cols],
            {
                name: pairs.totals[pairs.unmarked[k]][cols]
                for name, k in zip(names, rows, strict=True)
            },
            {name: z[k][cols] for name, k in zip(names, rows, strict=True)},
            all_words=all_words,
            rule=sig_rule,
        )
        table.attrs.update(
            comparison=comp.name,
            alpha=cfg.alpha,
            c_topic=cfg.c_topic,
            c_english=cfg.c_english,
            c=cfg.c,
            r1={name: float(r1[k]) for name, k in zip(names, rows, strict=True)},
            r2={name: float(r2[k]) for name, k in zip(names, rows, strict=True)},
            calibration_words={
                name: [str(w) for w in calib[k]] for name, k in zip(names, rows, strict=True)
            },
        )
        tables.append(table)
    return tables


def calibrated_marked_words(
    counts: DocTermCounts,
    target: np.ndarray,
    unmarked: Mapping[str, np.ndarray],
    *,
    config: CalibratedConfig | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    fdr_alpha: float | None = None,
    min_count: int = 0,
    all_words: bool = False,
    rule: SignificanceRule | None = None,
) -> pd.DataFrame:
    """Words that distinguish the ``target`` texts from every ``unmarked`` group.

    Calibrated Marked Words of seed ``000`` (Algorithms 3 and 4): ``target`` and each
    value of ``unmarked`` are boolean masks over the rows of ``counts``; the topic
    prior is every text of ``counts`` unless ``config.topic_prior == "compared"``.
    Returns the table of :func:`calibrated_marked_words_many` (same columns as Marked
    Words; hyperparameters, ``r1``, ``r2`` and ``W`` in ``attrs``).
    """
    comparison = Comparison(target=target, unmarked=unmarked)
    return calibrated_marked_words_many(
        counts,
        [comparison],
        config=config,
        threshold=threshold,
        fdr_alpha=fdr_alpha,
        min_count=min_count,
        all_words=all_words,
        rule=rule,
    )[0]


class CalibratedMarkedWords(WordTestParameters):
    """Calibrated Marked Words as an estimator: parameters here, :meth:`fit` fills results.

    After :meth:`fit`: ``table_`` (the table of :func:`calibrated_marked_words`),
    ``words_`` (significant words ranked by summed z-score), ``r1_``, ``r2_`` and
    ``calibration_words_`` (per unmarked group), ``rule_`` (the significance rule).
    """

    r1_: dict[str, float]
    r2_: dict[str, float]
    calibration_words_: dict[str, list[str]]

    def __init__(self, config: CalibratedConfig | None = None, **parameters: Any) -> None:
        super().__init__(**parameters)
        self.config = config if config is not None else CalibratedConfig()

    def fit(
        self, counts: DocTermCounts, target: np.ndarray, unmarked: Mapping[str, np.ndarray]
    ) -> CalibratedMarkedWords:
        """Compute the calibrated marked words of ``target``; return ``self``."""
        self.rule_ = self.resolved_rule()
        self.table_ = calibrated_marked_words(
            counts, target, unmarked, config=self.config, all_words=self.all_words, rule=self.rule_
        )
        self.words_ = self.table_.loc[self.table_["significant"], "word"].tolist()
        self.r1_ = dict(self.table_.attrs["r1"])
        self.r2_ = dict(self.table_.attrs["r2"])
        self.calibration_words_ = dict(self.table_.attrs["calibration_words"])
        return self
