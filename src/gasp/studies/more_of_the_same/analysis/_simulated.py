"""A unit's own word model, fitted and simulated: the parametric bootstrap of SRB.

The interval of an SRB score is calibrated on simulations of the run's own data
(``docs/intervals.md``). For one unit (an occupation) the model holds, for each group
of generations (associated women and men, named women, men and non-binary people):

* the word probabilities of the group: at the words the statistic marks in the data (in
  any comparison of the unit), each group keeps its own observed probability; at every
  other word each group gets the unit's pooled probability. The world differs where the
  data's own marked words do, and only there. Keeping instead every deviation beyond
  1.96 of its noise SDs planted differences on the fringe of words the calibrated
  statistic (whose prior shrinks its z-scores) seldom marks; in the simulations those
  words passed the threshold about half the time, and the simulated scores varied up to
  3.3 times as much as real ones in the worlds of ``bench/bench_srb_worlds.py``;
* the number of generations and the mean and spread of their lengths; the associated
  generations are split between women and men by a binomial draw at the run's share
  (association is itself random);
* one over-dispersion factor per word (Pearson's statistic of the generations' counts
  around their group's mean, shrunk toward the unit's mean factor): words that come in
  bursts, or that only some generations of a group use (a group mixing styles), vary
  more than a multinomial count would.

A simulated group total is drawn as gamma-Poisson counts with mean ``N p`` and variance
``phi N p`` for a drawn number of tokens ``N``; the unassigned generations (which only
feed the topic prior) are kept as observed. Every simulation is evaluated by the same
statistic as the data (:func:`._resampled.marked_sets`, then SRB), in one stacked pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from gasp.text import DocTermCounts

#: Pseudo degrees of freedom of the unit's mean over-dispersion in a word's factor.
DISPERSION_PRIOR_DF = 20.0


@dataclass(frozen=True)
class WordModel:
    """The fitted word model of one unit: one row per group, one column per word.

    ``probs`` (groups x words) sums to 1 per row; ``texts`` and ``mean_tokens``,
    ``sd_tokens`` describe each group's generations; ``dispersion`` (words) is the
    variance factor of a word's group total; ``other`` (words) holds the fixed totals of
    the unit's generations outside every group; ``associated`` the two rows whose sizes
    are drawn together (women, men), or None.
    """

    probs: np.ndarray
    texts: np.ndarray
    mean_tokens: np.ndarray
    sd_tokens: np.ndarray
    dispersion: np.ndarray
    other: np.ndarray
    associated: tuple[int, int] | None


def world_probabilities(totals: np.ndarray, marked: np.ndarray) -> np.ndarray:
    """Each group's word probabilities in the fitted world.

    ``totals`` (groups x words) are the groups' word totals, ``marked`` (words) the words
    the statistic marks in the data. A group keeps its observed probability at the marked
    words and gets the pooled one ``q`` elsewhere; each row is then normalised.
    """
    totals = np.asarray(totals, dtype=np.float64)
    tokens = totals.sum(axis=1, keepdims=True)
    all_tokens = float(tokens.sum())
    if all_tokens <= 0:
        return np.zeros_like(totals)
    q = totals.sum(axis=0, keepdims=True) / all_tokens
    p_hat = totals / np.maximum(tokens, 1.0)
    probs = np.where(np.broadcast_to(np.asarray(marked, dtype=bool), totals.shape), p_hat, q)
    return probs / np.maximum(probs.sum(axis=1, keepdims=True), 1e-300)


def word_dispersion(counts: DocTermCounts, groups: np.ndarray) -> np.ndarray:
    """Each word's over-dispersion factor (at least 1) from its counts per generation.

    ``groups`` gives each generation's group row (``-1``: in none). Pearson's statistic
    of a word's counts around ``L_i p_g`` (``L_i`` the generation's length, ``p_g`` its
    group's rate), over the degrees of freedom, shrunk toward the mean over words with
    :data:`DISPERSION_PRIOR_DF` pseudo degrees of freedom.
    """
    matrix = counts.matrix
    rows = np.flatnonzero(groups >= 0)
    n_words = matrix.shape[1]
    n_groups = int(groups.max()) + 1 if rows.size else 0
    df = rows.size - n_groups
    if df <= 0 or n_words == 0:
        return np.ones(n_words)
    lengths = np.asarray(matrix.sum(axis=1)).ravel().astype(np.float64)
    inv = np.where(lengths > 0, 1.0 / np.maximum(lengths, 1.0), 0.0)
    member = sp.csr_matrix(
        (np.ones(rows.size), (groups[rows], rows)), shape=(n_groups, matrix.shape[0])
    )
    totals = np.asarray((member @ matrix).toarray(), dtype=np.float64)
    squares = np.asarray((member @ sp.diags(inv) @ matrix.multiply(matrix)).toarray())
    tokens = totals.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        pearson = np.where(totals > 0, squares * tokens / totals - totals, 0.0)
    per_word = pearson.sum(axis=0)
    mean = max(float(per_word.sum()) / (df * n_words), 1.0)
    return np.maximum((per_word + DISPERSION_PRIOR_DF * mean) / (df + DISPERSION_PRIOR_DF), 1.0)


def fit_model(
    counts: DocTermCounts,
    groups: np.ndarray,
    associated: tuple[int, int] | None,
    marked: np.ndarray,
) -> WordModel:
    """The word model of a unit whose generations fall into the rows ``groups`` and whose
    statistic marks the words ``marked`` (a mask over the vocabulary)."""
    matrix = counts.matrix
    n_groups = int(groups.max()) + 1
    lengths = np.asarray(matrix.sum(axis=1)).ravel().astype(np.float64)
    dispersion = word_dispersion(counts, groups)
    totals = np.zeros((n_groups, matrix.shape[1]))
    texts = np.zeros(n_groups)
    mean_tokens = np.zeros(n_groups)
    sd_tokens = np.zeros(n_groups)
    for g in range(n_groups):
        rows = np.flatnonzero(groups == g)
        totals[g] = np.asarray(matrix[rows].sum(axis=0)).ravel()
        texts[g] = rows.size
        mean_tokens[g] = lengths[rows].mean() if rows.size else 0.0
        sd_tokens[g] = lengths[rows].std(ddof=1) if rows.size > 1 else 0.0
    other = np.asarray(matrix[np.flatnonzero(groups < 0)].sum(axis=0)).ravel()
    return WordModel(
        probs=world_probabilities(totals, marked),
        texts=texts,
        mean_tokens=mean_tokens,
        sd_tokens=sd_tokens,
        dispersion=dispersion,
        other=other.astype(np.float64),
        associated=associated,
    )


def simulate(
    model: WordModel, n_sims: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``n_sims`` simulated data sets: group totals (sims x groups x words) and group sizes.

    The sizes of the two associated groups are drawn by a binomial split of their sum at
    the model's share; each group's tokens are normal around ``n * mean`` with variance
    ``n * sd^2``; each word's total is gamma-Poisson with mean ``tokens * p`` and
    variance ``phi * tokens * p``.
    """
    texts = np.tile(model.texts, (n_sims, 1))
    if model.associated is not None:
        a, b = model.associated
        pool = int(model.texts[a] + model.texts[b])
        share = model.texts[a] / pool if pool else 0.5
        texts[:, a] = rng.binomial(pool, share, size=n_sims)
        texts[:, b] = pool - texts[:, a]
    tokens = texts * model.mean_tokens + np.sqrt(texts) * model.sd_tokens * rng.standard_normal(
        texts.shape
    )
    tokens = np.where(texts > 0, np.maximum(tokens, 1.0), 0.0)
    mean = tokens[:, :, None] * model.probs[None, :, :]
    extra = model.dispersion - 1.0
    wide = extra > 0
    rate = mean.copy()
    if wide.any():
        shape = mean[:, :, wide] / extra[wide]
        rate[:, :, wide] = rng.gamma(np.maximum(shape, 1e-300), extra[wide]) * (shape > 0)
    totals = rng.poisson(rate).astype(np.float64)
    return totals, texts
