"""Marked word sets of many resampled or relabelled groups, straight from word totals.

The bootstrap and the permutation test need only *which* words are marked, for
hundreds of comparisons per unit. This module evaluates the same statistic as
:func:`gasp.stats.calibrated_marked_words_many` (through the public
:func:`gasp.stats.calibrated_terms`) or :func:`gasp.stats.marked_words` (through
:func:`gasp.stats.log_odds_z`) on a stack of group totals, applies the same
significance rule (z above the threshold, or Benjamini-Hochberg at ``fdr_alpha``;
count in the target group at least ``min_count``; passed against every unmarked
group), and returns word arrays instead of tables. Group totals come from one
sparse product of a weight matrix (how many times each generation is drawn into
each group) with the unit's counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from gasp.stats import PairScorer, SignificanceRule
from gasp.studies.more_of_the_same.analysis._config import AnalysisConfig
from gasp.text import DocTermCounts

#: Upper bound on the cells of one block of (pairs x words) arrays (memory cap).
_BLOCK_CELLS = 1 << 22


@dataclass(frozen=True)
class Pair:
    """One (target, unmarked) pair of a comparison: rows of the totals matrix."""

    comparison: int
    target: int
    unmarked: int
    topic: int


def group_totals(counts: DocTermCounts, weights: np.ndarray) -> np.ndarray:
    """Word totals of each group, ``weights`` being (groups, documents) multiplicities."""
    w = sp.csr_matrix(np.asarray(weights, dtype=np.float64))
    return np.asarray((w @ counts.matrix).toarray(), dtype=np.float64)


def marked_sets(
    vocabulary: np.ndarray,
    totals: np.ndarray,
    pairs: Sequence[Pair],
    n_comparisons: int,
    config: AnalysisConfig,
) -> list[np.ndarray]:
    """The marked words of each comparison (``pairs`` sorted by comparison)."""
    vocab = np.asarray(vocabulary, dtype=object)
    n_words = vocab.size
    comp = np.array([p.comparison for p in pairs], dtype=np.int64)
    t_idx = np.array([p.target for p in pairs], dtype=np.int64)
    u_idx = np.array([p.unmarked for p in pairs], dtype=np.int64)
    p_idx = np.array([p.topic for p in pairs], dtype=np.int64)
    if comp.size and np.any(np.diff(comp) < 0):
        raise ValueError("pairs must be sorted by comparison")
    significant = np.ones((n_comparisons, n_words), dtype=bool)
    scorer = PairScorer(vocab, calibrated=config.calibrated, config=config.calibration)
    rule = SignificanceRule.from_options(config.threshold, config.fdr_alpha, config.min_count)
    block = max(1, _BLOCK_CELLS // max(n_words, 1))
    for start in range(0, comp.size, block):
        sl = slice(start, min(start + block, comp.size))
        target = totals[t_idx[sl]]
        z = scorer.z(target, totals[u_idx[sl]], totals[p_idx[sl]])
        passes = rule.select(z, target)
        np.logical_and.at(significant, comp[sl], passes)
    covered = np.zeros(n_comparisons, dtype=bool)
    covered[comp] = True
    significant[~covered] = False
    return [vocab[row] for row in significant]
