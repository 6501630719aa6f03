"""Marked Words or Calibrated Marked Words, chosen by one setting.

Every caller that may run either method (the analysis of a run, its bootstrap and
permutation test, the Probe's word selection) goes through this module, so the
choice means the same everywhere:

* :func:`marked_words_many` returns the result tables of many comparisons;
  ``calibrated=True`` runs :func:`gasp.stats.calibrated_marked_words_many` (one
  batch), ``calibrated=False`` runs :func:`gasp.stats.marked_words` per comparison
  with the word counts of the comparison's ``topic`` texts as the prior (all texts
  when it has none);
* :class:`PairScorer` gives the z-scores of (target, unmarked) pairs straight from
  word totals, for resampling loops that only need which words are marked.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from gasp.stats._calibrated import calibrated_marked_words_many
from gasp.stats._calibrated_batch import Comparison, _fixed_mask
from gasp.stats._calibrated_terms import CalibratedConfig, calibrated_terms
from gasp.stats._english_prior import english_prior
from gasp.stats._log_odds import log_odds_z
from gasp.stats._marked_words import marked_words
from gasp.stats._rule import SignificanceRule
from gasp.text import DocTermCounts


def marked_words_many(
    counts: DocTermCounts,
    comparisons: Sequence[Comparison],
    *,
    calibrated: bool = True,
    config: CalibratedConfig | None = None,
    rule: SignificanceRule | None = None,
    all_words: bool = False,
) -> list[pd.DataFrame]:
    """The marked-words table of every comparison, by the method ``calibrated`` selects.

    ``config`` (the hyperparameters of Calibrated Marked Words, defaults when None) is
    only used when ``calibrated``; ``rule`` defaults to ``z > 1.96``. Plain Marked
    Words uses the word counts of each comparison's ``topic`` texts as its prior, or
    of every text of ``counts`` when the comparison has no topic. The tables have the
    columns of :func:`gasp.stats.marked_words_table`.
    """
    sig_rule = rule if rule is not None else SignificanceRule()
    if calibrated:
        return calibrated_marked_words_many(
            counts, comparisons, config=config, rule=sig_rule, all_words=all_words
        )
    tables = []
    for comp in comparisons:
        prior = None if comp.topic is None else counts.totals(comp.topic)
        tables.append(
            marked_words(
                counts, comp.target, comp.unmarked, prior=prior, rule=sig_rule, all_words=all_words
            )
        )
    return tables


class PairScorer:
    """z-scores of (target, unmarked) pairs from word totals, by either method.

    Built once per vocabulary (the English prior and the calibration words of
    Calibrated Marked Words are looked up here), then :meth:`z` scores any stack of
    group totals: plain Marked Words (:func:`gasp.stats.log_odds_z` with the topic
    totals as the prior) or Calibrated Marked Words (:func:`gasp.stats.calibrated_terms`
    with the topic totals as the topic prior).
    """

    def __init__(
        self,
        vocabulary: np.ndarray,
        *,
        calibrated: bool = True,
        config: CalibratedConfig | None = None,
    ) -> None:
        self.calibrated = calibrated
        self.config = config if config is not None else CalibratedConfig()
        vocab = np.asarray(vocabulary, dtype=object)
        cfg = self.config
        if calibrated:
            self._english = english_prior(
                vocab, source=cfg.english_source, corpus_size=cfg.english_corpus_size
            )
            self._fixed = _fixed_mask(vocab, cfg.calibration_words)

    def z(self, target: np.ndarray, unmarked: np.ndarray, topic: np.ndarray) -> np.ndarray:
        """(pairs, words) z-scores of ``target`` against ``unmarked`` word totals.

        The three arguments are (pairs, words) arrays of word totals (``topic`` may
        be one row for every pair); positive z: more typical of the target group.
        """
        if not self.calibrated:
            return log_odds_z(target, unmarked, topic)
        cfg = self.config
        return calibrated_terms(
            target,
            unmarked,
            topic,
            self._english,
            self._fixed,
            alpha=cfg.alpha,
            c=cfg.c,
            top_n=cfg.calibration_top_n,
        ).z
