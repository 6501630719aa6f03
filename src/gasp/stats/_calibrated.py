"""Calibrated Marked Words (seed ``000`` Section 3.2.1, Algorithms 3 and 4, Appendix A.2).

Marked Words flags common words ("the", "be") and reacts to the sizes of the
compared corpora. Calibrated Marked Words replaces its prior with a hybrid of the
generated text (the *topic prior*) and the English language (the *English prior*)
and rescales the prior of each compared group with a regularizing term.

For a target group ``G1`` and an unmarked group ``G2`` (Algorithm 3)::

    P[w] = alpha * P_topic[w] + (1 - alpha) * P_English[w]     for every w of P_topic
    C    = alpha * C_topic + (1 - alpha) * C_English
    r1   = C * sum_{w in W} P[w] / sum_{w in W} G1[w]
    r2   = C * sum_{w in W} P[w] / sum_{w in W} G2[w]

and the z-score of every word of ``P`` is the Fightin' Words z-score
(:func:`gasp.stats.log_odds_z`) with the prior ``P / r1`` for ``G1`` and ``P / r2``
for ``G2`` (Algorithm 4). Line 6 of Algorithm 4 prints ``n_U`` in the denominator of
``l1``; the log-odds of the target group needs the target total ``n_G`` (as in
Monroe et al. 2008 and line 7 for the unmarked group), which is what is computed.
The prior of a group thus puts ``1 / C`` times the group's own count of the
calibration words on those words: a larger ``C`` is a weaker prior.

Choices this implementation makes explicit
    * The topic prior is the word counts of all texts passed in ``counts`` (the
      reference corpus of generated text, as in Marked Personas), or in the batched
      API the texts named per comparison (for example every text of one occupation).
    * ``P`` covers the words of the topic prior (Algorithm 3 loops over
      ``P_topic``): words with a topic count of 0 get no z-score (NaN).
    * ``W`` (the calibration words) is :data:`CALIBRATION_FUNCTION_WORDS`, united
      with the words that are among the ``calibration_top_n`` (20) most frequent
      words of the hybrid prior *and* of the target group *and* of the unmarked group.
      "Among the 20 most frequent" includes ties with the 20th count; a word with a
      count of 0 never is. Words of ``W`` absent from the vocabulary are ignored.

Default hyperparameters (wordfreq prior scaled to the Brown corpus size): see
:data:`DEFAULT_ALPHA`, :data:`DEFAULT_C_TOPIC`, :data:`DEFAULT_C_ENGLISH` and the
calibration module :mod:`gasp.stats._calibration`, which chose them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd
import scipy.sparse as sp

from gasp.errors import ConfigError, DataError
from gasp.stats._english_prior import BROWN_CORPUS_TOKENS, ENGLISH_SOURCES, english_prior
from gasp.stats._log_odds import log_odds_z
from gasp.stats._marked_words import (
    DEFAULT_THRESHOLD,
    _check_mask,
    _check_options,
    _passes,
    marked_words_table,
)
from gasp.text import DocTermCounts

#: Fixed part of the calibration words ``W``: the 22 most frequent English function
#: words of wordfreq's list that are neither pronouns nor gendered (pronouns differ
#: between genders by construction, so they would bias ``r1`` and ``r2``).
CALIBRATION_FUNCTION_WORDS: tuple[str, ...] = (
    "the", "to", "and", "of", "a", "in", "is", "for", "that", "it", "on",
    "with", "this", "was", "be", "as", "are", "at", "by", "from", "or", "an",
)  # fmt: skip

#: Mixing weight of the topic prior (seed ``000`` Appendix A.2 found 0.15 best with
#: the Brown corpus; the calibration on the Marked Personas data with the wordfreq
#: prior is documented in :mod:`gasp.stats._calibration`).
DEFAULT_ALPHA = 0.15
#: Regularizing constant of the topic prior alone (alpha = 1), from calibration.
DEFAULT_C_TOPIC = 0.11
#: Regularizing constant of the English prior alone (alpha = 0), from calibration.
DEFAULT_C_ENGLISH = 0.069

TopicPrior = Literal["all", "compared"]


@dataclass(frozen=True)
class CalibratedConfig:
    """Hyperparameters of Calibrated Marked Words (validated on creation).

    ``alpha`` mixes the topic prior (weight ``alpha``) with the English prior;
    ``c_topic`` and ``c_english`` are the regularizing constants found by calibration;
    ``calibration_words`` is the fixed part of ``W`` and ``calibration_top_n`` the
    number of most frequent words of the prior and both groups that join it;
    ``english_source`` is ``"wordfreq"`` (scaled to ``english_corpus_size`` tokens) or
    ``"brown"`` (NLTK); ``topic_prior`` is ``"all"`` (every text of ``counts``) or
    ``"compared"`` (only the texts of the target and unmarked groups).
    """

    alpha: float = DEFAULT_ALPHA
    c_topic: float = DEFAULT_C_TOPIC
    c_english: float = DEFAULT_C_ENGLISH
    calibration_words: tuple[str, ...] = CALIBRATION_FUNCTION_WORDS
    calibration_top_n: int = 20
    english_source: str = "wordfreq"
    english_corpus_size: float = float(BROWN_CORPUS_TOKENS)
    topic_prior: TopicPrior = "all"

    def __post_init__(self) -> None:
        if not 0.0 <= self.alpha <= 1.0:
            raise ConfigError(f"alpha must lie in [0, 1], got {self.alpha}")
        for name in ("c_topic", "c_english", "english_corpus_size"):
            value = getattr(self, name)
            if not (np.isfinite(value) and value > 0):
                raise ConfigError(f"{name} must be a positive number, got {value}")
        if self.calibration_top_n < 0:
            raise ConfigError(
                f"calibration_top_n must be zero or more, got {self.calibration_top_n}"
            )
        if isinstance(self.calibration_words, str):
            raise ConfigError("calibration_words must be a sequence of words, not one string")
        object.__setattr__(self, "calibration_words", tuple(self.calibration_words))
        if not self.calibration_words and self.calibration_top_n == 0:
            raise ConfigError("the calibration words are empty and calibration_top_n is 0")
        if self.english_source not in ENGLISH_SOURCES:
            raise ConfigError(
                f"unknown English prior source {self.english_source!r}; "
                f"choose one of {', '.join(ENGLISH_SOURCES)}"
            )
        if self.topic_prior not in ("all", "compared"):
            raise ConfigError(f"topic_prior must be 'all' or 'compared', got {self.topic_prior!r}")

    @property
    def c(self) -> float:
        """The mixed regularizing constant ``alpha * c_topic + (1 - alpha) * c_english``."""
        return self.alpha * self.c_topic + (1.0 - self.alpha) * self.c_english


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


@dataclass(frozen=True)
class CalibratedTerms:
    """The regularized quantities of Algorithms 3 and 4 for a stack of pairs.

    Arrays have one row per (target, unmarked) pair: ``prior`` the hybrid prior ``P``
    (0 outside the topic prior), ``r1``/``r2`` the regularizing terms, ``calibration``
    the mask of ``W`` over the vocabulary, ``z`` the z-scores (NaN outside ``P``).
    """

    prior: np.ndarray
    r1: np.ndarray
    r2: np.ndarray
    calibration: np.ndarray
    z: np.ndarray = field(repr=False)


def _top_mask(values: np.ndarray, n: int) -> np.ndarray:
    """Per row, the entries among the ``n`` largest (ties with the n-th included, > 0 only)."""
    if n == 0:
        return np.zeros(values.shape, dtype=bool)
    width = values.shape[-1]
    if width <= n:
        return values > 0
    kth = np.partition(values, width - n, axis=-1)[..., width - n : width - n + 1]
    return (values >= kth) & (values > 0)


def calibrated_terms(
    target_counts: np.ndarray,
    unmarked_counts: np.ndarray,
    topic_counts: np.ndarray,
    english_counts: np.ndarray,
    fixed_words: np.ndarray,
    *,
    alpha: float,
    c: float,
    top_n: int = 20,
) -> CalibratedTerms:
    """Algorithms 3 and 4 vectorized over pairs (rows) and words (columns).

    ``target_counts``, ``unmarked_counts`` and ``topic_counts`` are (pairs, words)
    arrays (``topic_counts`` may be one row for all pairs); ``english_counts`` and the
    boolean ``fixed_words`` (the fixed calibration words) are over the words. ``c`` is
    the mixed constant ``alpha * c_topic + (1 - alpha) * c_english``. Pairs whose
    calibration words never occur in a group or in the prior get NaN terms.
    """
    g1 = np.atleast_2d(np.asarray(target_counts, dtype=np.float64))
    g2 = np.atleast_2d(np.asarray(unmarked_counts, dtype=np.float64))
    topic = np.atleast_2d(np.asarray(topic_counts, dtype=np.float64))
    english = np.asarray(english_counts, dtype=np.float64)
    in_prior = topic > 0
    prior = np.where(in_prior, alpha * topic + (1.0 - alpha) * english, 0.0)
    prior = np.broadcast_to(prior, g1.shape)
    calibration = np.asarray(fixed_words, dtype=bool) | (
        _top_mask(prior, top_n) & _top_mask(g1, top_n) & _top_mask(g2, top_n)
    )
    w_p = np.where(calibration, prior, 0.0).sum(axis=-1)
    w_g1 = np.where(calibration, g1, 0.0).sum(axis=-1)
    w_g2 = np.where(calibration, g2, 0.0).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        r1 = c * w_p / w_g1
        r2 = c * w_p / w_g2
        ok = np.isfinite(r1) & np.isfinite(r2) & (r1 > 0) & (r2 > 0)
        r1 = np.where(ok, r1, np.nan)
        r2 = np.where(ok, r2, np.nan)
        z = log_odds_z(g1, g2, prior / r1[:, None], prior / r2[:, None])
    z = np.where(np.broadcast_to(in_prior, z.shape), z, np.nan)
    return CalibratedTerms(prior=prior, r1=r1, r2=r2, calibration=calibration, z=z)


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

    def significant(
        self, z: np.ndarray, threshold: float, fdr_alpha: float | None, min_count: int
    ) -> np.ndarray:
        """(comparisons, words) mask of marked words, the rule of ``marked_words_table``."""
        target = self.pairs.totals[self.pairs.target]
        enough = target >= min_count
        passes = _passes(z, enough, threshold, fdr_alpha) & enough
        return np.logical_and.reduceat(passes, self.starts, axis=0)


def calibrated_marked_words_many(
    counts: DocTermCounts,
    comparisons: Sequence[Comparison],
    *,
    config: CalibratedConfig | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    fdr_alpha: float | None = None,
    min_count: int = 0,
    all_words: bool = False,
) -> list[pd.DataFrame]:
    """Calibrated Marked Words for many comparisons at once; one table per comparison.

    The word totals of every distinct group (targets, unmarked groups, topic priors)
    come from one sparse product of a group-indicator matrix with ``counts``, and the
    z-scores of all (target, unmarked) pairs are computed by broadcasting. Each table
    has the columns of :func:`gasp.stats.marked_words_table`; its ``attrs`` hold
    ``comparison`` (the name), ``alpha``, ``c_topic``, ``c_english``, ``c``, and per
    unmarked group ``r1``, ``r2`` and ``calibration_words`` (the words of ``W``).
    """
    cfg = config if config is not None else CalibratedConfig()
    if not comparisons:
        return []
    _check_options(threshold, fdr_alpha, min_count)
    batch = _Batch(counts, comparisons, cfg)
    pairs = batch.pairs
    z, r1, r2, calib = batch.terms(cfg.alpha, cfg.c)
    # Without FDR control a word's significance does not depend on the other words, so
    # only the significant words need to reach the table builder (same table, faster).
    prefilter = fdr_alpha is None and not all_words
    keep = batch.significant(z, threshold, None, min_count) if prefilter else None
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
            threshold=threshold,
            fdr_alpha=fdr_alpha,
            min_count=min_count,
            all_words=all_words,
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
    )[0]


class CalibratedMarkedWords:
    """Calibrated Marked Words as an estimator: parameters here, :meth:`fit` fills results.

    After :meth:`fit`: ``table_`` (the table of :func:`calibrated_marked_words`),
    ``words_`` (significant words ranked by summed z-score), ``r1_``, ``r2_`` and
    ``calibration_words_`` (per unmarked group).
    """

    table_: pd.DataFrame
    words_: list[str]
    r1_: dict[str, float]
    r2_: dict[str, float]
    calibration_words_: dict[str, list[str]]

    def __init__(
        self,
        config: CalibratedConfig | None = None,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        fdr_alpha: float | None = None,
        min_count: int = 0,
        all_words: bool = False,
    ) -> None:
        self.config = config if config is not None else CalibratedConfig()
        self.threshold = threshold
        self.fdr_alpha = fdr_alpha
        self.min_count = min_count
        self.all_words = all_words

    def fit(
        self, counts: DocTermCounts, target: np.ndarray, unmarked: Mapping[str, np.ndarray]
    ) -> CalibratedMarkedWords:
        """Compute the calibrated marked words of ``target``; return ``self``."""
        self.table_ = calibrated_marked_words(
            counts,
            target,
            unmarked,
            config=self.config,
            threshold=self.threshold,
            fdr_alpha=self.fdr_alpha,
            min_count=self.min_count,
            all_words=self.all_words,
        )
        self.words_ = self.table_.loc[self.table_["significant"], "word"].tolist()
        self.r1_ = dict(self.table_.attrs["r1"])
        self.r2_ = dict(self.table_.attrs["r2"])
        self.calibration_words_ = dict(self.table_.attrs["calibration_words"])
        return self
