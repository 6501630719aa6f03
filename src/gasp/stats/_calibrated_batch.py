"""The batch behind Calibrated Marked Words: group totals and z-scores of many pairs.

A batch expands comparisons (a target group against one or more unmarked groups,
optionally with its own topic prior) into (target, unmarked) pairs, computes the
word totals of every distinct group with one sparse matrix product, and evaluates
Algorithms 3 and 4 (:func:`gasp.stats.calibrated_terms`) for any ``alpha`` and
``C`` in memory-capped blocks of pairs. The public API
(:func:`gasp.stats.calibrated_marked_words_many`) and the calibration search
(:func:`gasp.stats.calibrate`) are built on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from gasp.errors import DataError
from gasp.stats._calibrated_terms import CalibratedConfig, calibrated_terms
from gasp.stats._english_prior import english_prior
from gasp.stats._marked_words import _check_mask
from gasp.stats._rule import SignificanceRule
from gasp.text import DocTermCounts


@dataclass(frozen=True, eq=False)
class Comparison:
    """One Calibrated Marked Words comparison for the batched API.

    ``target`` and each value of ``unmarked`` are boolean masks over the texts;
    ``topic`` (optional) selects the texts of the topic prior of this comparison (for
    example all texts of one occupation); without it the config's ``topic_prior``
    rule applies. ``name`` labels the comparison in errors and the table ``attrs``.
    """

    target: np.ndarray
    unmarked: Mapping[str, np.ndarray]
    topic: np.ndarray | None = None
    name: str = ""


class _GroupSums:
    """Distinct row masks and their word totals, all from one sparse matrix product."""

    def __init__(self) -> None:
        self._index: dict[bytes, int] = {}
        self.masks: list[np.ndarray] = []

    def add(self, mask: np.ndarray) -> int:
        key = np.packbits(mask).tobytes()
        if key not in self._index:
            self._index[key] = len(self.masks)
            self.masks.append(mask)
        return self._index[key]

    def totals(self, counts: DocTermCounts) -> np.ndarray:
        n_docs = counts.n_documents
        rows = [np.flatnonzero(m) for m in self.masks]
        indptr = np.concatenate([[0], np.cumsum([r.size for r in rows])])
        indices = np.concatenate(rows) if rows else np.array([], dtype=np.int64)
        indicator = sp.csr_matrix(
            (np.ones(indices.size, dtype=np.int64), indices, indptr),
            shape=(len(rows), n_docs),
        )
        return np.asarray((indicator @ counts.matrix).toarray(), dtype=np.int64)


@dataclass(frozen=True)
class _Pairs:
    """Every (target, unmarked) pair of a batch with the rows of its group totals."""

    target: np.ndarray
    unmarked: np.ndarray
    topic: np.ndarray
    comparison: np.ndarray
    names: list[str]
    totals: np.ndarray


def _expand(
    counts: DocTermCounts, comparisons: Sequence[Comparison], config: CalibratedConfig
) -> _Pairs:
    n_rows = counts.n_documents
    sums = _GroupSums()
    all_rows = np.ones(n_rows, dtype=bool)
    t_idx: list[int] = []
    u_idx: list[int] = []
    p_idx: list[int] = []
    c_idx: list[int] = []
    names: list[str] = []
    for i, comp in enumerate(comparisons):
        label = comp.name or f"#{i}"
        if not comp.unmarked:
            raise DataError(f"comparison {label}: at least one unmarked group is needed")
        target = _check_mask(comp.target, n_rows, f"target group of comparison {label}")
        masks = {
            str(name): _check_mask(m, n_rows, f"unmarked group {name!r} of comparison {label}")
            for name, m in comp.unmarked.items()
        }
        if comp.topic is not None:
            topic = _check_mask(comp.topic, n_rows, f"topic prior of comparison {label}")
        elif config.topic_prior == "all":
            topic = all_rows
        else:
            topic = target.copy()
            for m in masks.values():
                topic |= m
        t, p = sums.add(target), sums.add(topic)
        for name, m in masks.items():
            t_idx.append(t)
            u_idx.append(sums.add(m))
            p_idx.append(p)
            c_idx.append(i)
            names.append(name)
    return _Pairs(
        target=np.asarray(t_idx, dtype=np.int64),
        unmarked=np.asarray(u_idx, dtype=np.int64),
        topic=np.asarray(p_idx, dtype=np.int64),
        comparison=np.asarray(c_idx, dtype=np.int64),
        names=names,
        totals=sums.totals(counts),
    )


def _fixed_mask(vocabulary: np.ndarray, words: Sequence[str]) -> np.ndarray:
    vocab = np.asarray(vocabulary, dtype=str)
    return np.isin(vocab, np.asarray(list(words), dtype=str))


#: Upper bound on the number of array cells of one block of pairs (memory cap).
_BLOCK_CELLS = 1 << 23


class _Batch:
    """Group totals, English prior and fixed calibration words of a batch, computed once.

    :meth:`terms` then evaluates Algorithms 3 and 4 for any ``alpha`` and ``c``
    (the calibration search calls it many times on the same batch).
    """

    def __init__(
        self, counts: DocTermCounts, comparisons: Sequence[Comparison], config: CalibratedConfig
    ) -> None:
        self.counts = counts
        self.config = config
        self.pairs = _expand(counts, comparisons, config)
        self.english = english_prior(
            counts.vocabulary,
            source=config.english_source,
            corpus_size=config.english_corpus_size,
        )
        self.fixed = _fixed_mask(counts.vocabulary, config.calibration_words)
        self.starts = np.flatnonzero(
            np.r_[True, self.pairs.comparison[1:] != self.pairs.comparison[:-1]]
        )

    def terms(
        self, alpha: float, c: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
        """z-scores (pairs, words), r1, r2 and the calibration words of every pair."""
        pairs, vocab = self.pairs, self.counts.vocabulary
        n_pairs, n_words = pairs.target.size, vocab.size
        z = np.empty((n_pairs, n_words), dtype=np.float64)
        r1 = np.empty(n_pairs)
        r2 = np.empty(n_pairs)
        calib: list[np.ndarray] = []
        block = max(1, _BLOCK_CELLS // max(n_words, 1))
        for start in range(0, n_pairs, block):
            sl = slice(start, min(start + block, n_pairs))
            terms = calibrated_terms(
                pairs.totals[pairs.target[sl]],
                pairs.totals[pairs.unmarked[sl]],
                pairs.totals[pairs.topic[sl]],
                self.english,
                self.fixed,
                alpha=alpha,
                c=c,
                top_n=self.config.calibration_top_n,
            )
            z[sl], r1[sl], r2[sl] = terms.z, terms.r1, terms.r2
            calib.extend(vocab[row] for row in terms.calibration)
        bad = ~np.isfinite(r1)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise DataError(
                f"comparison {pairs.comparison[k]} (unmarked group {pairs.names[k]!r}): the "
                "calibration words never occur in a compared group or in the prior"
            )
        return z, r1, r2, calib

    def significant(self, z: np.ndarray, rule: SignificanceRule) -> np.ndarray:
        """(comparisons, words) mask of marked words: ``rule`` against every unmarked group."""
        passes = rule.select(z, self.pairs.totals[self.pairs.target])
        return np.logical_and.reduceat(passes, self.starts, axis=0)
