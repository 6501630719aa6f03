"""Synthetic corpora with planted word rates, for checking that intervals cover.

A :class:`PlantedWorld` is a known generating process shaped like one occupation of
the More of the Same study: four groups of texts (associated women ``AF`` and men
``AM``, named women ``F`` and men ``M``), each text a bag of ``words_per_text`` tokens
drawn from its group's word distribution (optionally with per-text Dirichlet variation,
so texts are bursty as real ones are). A few words lean toward women and as many
toward men: named texts multiply their rates by ``named_boost``; associated texts by
``1 + strength * (named_boost - 1)``, ``strength`` being the occupation's stereotype.
Word vectors put the women-leaning words near one direction and the men-leaning words
near another, so the SRB score has a known sign.

The statistics are those of the study, computed from word totals: plain Marked Words
(:func:`gasp.stats.log_odds_z`, the unit's totals times ``prior_weight`` as the prior,
z above a threshold against the other group), the SRB score of ``S_AF`` (and ``S_AM``)
against ``S_F`` and ``S_M`` (the one-sided Chamfer distance of
:func:`gasp.stats.chamfer_distance`, on a precomputed word distance matrix), the size
of ``S_AF``, a per-text rate and a share.
:func:`occupation_statistics` evaluates them on the observed texts and on the draws of
an :class:`gasp.stats.IntervalScheme`, all draws at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from gasp._defaults import DEFAULT_THRESHOLD
from gasp.stats import IntervalScheme, draw_weights, log_odds_z

GROUPS: tuple[str, ...] = ("AF", "AM", "F", "M")
STATISTICS: tuple[str, ...] = (
    "srb_F",
    "srb_M",
    "set_size_F",
    "set_size_M",
    "set_size_named_F",
    "set_size_named_M",
    "rate_F",
    "share_F",
)
"""SRB of associated women and men, the sizes of the marked sets of associated women
and men and of named women and men, the per-text rate of women-leaning words among
associated women's texts, the share of those texts that contain the first
women-leaning word."""


@dataclass(frozen=True)
class PlantedWorld:
    """The generating process (see the module notes); ``seed`` fixes rates and vectors."""

    n_words: int = 80
    n_planted: int = 8
    dim: int = 12
    words_per_text: int = 25
    n_texts: int = 60
    named_boost: float = 3.0
    concentration: float = 50.0
    threshold: float = DEFAULT_THRESHOLD
    prior_weight: float = 0.1
    seed: int = 20240601

    @cached_property
    def base(self) -> np.ndarray:
        """Word probabilities shared by every group (Zipf-like, shuffled)."""
        rng = np.random.default_rng(self.seed)
        ranks = rng.permutation(self.n_words) + 1
        p = 1.0 / ranks**0.8
        return np.asarray(p / p.sum())

    @property
    def women_words(self) -> np.ndarray:
        """Indices of the words leaning toward women."""
        return np.arange(self.n_planted)

    @property
    def men_words(self) -> np.ndarray:
        """Indices of the words leaning toward men."""
        return np.arange(self.n_planted, 2 * self.n_planted)

    @cached_property
    def distances(self) -> np.ndarray:
        """Cosine distances between the words' vectors, (words x words) in [0, 2]."""
        rng = np.random.default_rng([self.seed, 1])
        vectors = rng.normal(size=(self.n_words, self.dim))
        axis_w, axis_m = np.eye(self.dim)[0] * 3.0, np.eye(self.dim)[1] * 3.0
        vectors[self.women_words] += axis_w
        vectors[self.men_words] += axis_m
        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        return np.asarray(np.clip(1.0 - unit @ unit.T, 0.0, 2.0))

    def probabilities(self, strength: float, associated_men: float | None = None) -> np.ndarray:
        """(groups x words) word distributions for an occupation of stereotype ``strength``.

        ``associated_men`` sets the men's strength apart (``strength`` by default).
        """
        men = strength if associated_men is None else associated_men
        probs = np.tile(self.base, (len(GROUPS), 1))
        factor = {
            "AF": (1 + strength * (self.named_boost - 1), 1.0),
            "AM": (1.0, 1 + men * (self.named_boost - 1)),
            "F": (self.named_boost, 1.0),
            "M": (1.0, self.named_boost),
        }
        for gi, g in enumerate(GROUPS):
            probs[gi, self.women_words] *= factor[g][0]
            probs[gi, self.men_words] *= factor[g][1]
        return np.asarray(probs / probs.sum(axis=1, keepdims=True))

    def sample(
        self, probs: np.ndarray, rng: np.random.Generator, n_texts: int | None = None
    ) -> dict[str, np.ndarray]:
        """(texts x words) token counts of each group drawn from ``probs``."""
        n = self.n_texts if n_texts is None else n_texts
        out = {}
        for gi, g in enumerate(GROUPS):
            p = np.broadcast_to(probs[gi], (n, self.n_words))
            if self.concentration > 0:
                p = _dirichlet_rows(rng, p * self.concentration)
            out[g] = rng.multinomial(self.words_per_text, p)
        return out

    def expected_rate(self, probs: np.ndarray) -> float:
        """The true per-text rate of women-leaning words among associated women's texts."""
        return float(probs[GROUPS.index("AF"), self.women_words].sum())


def _dirichlet_rows(rng: np.random.Generator, alpha: np.ndarray) -> np.ndarray:
    """One Dirichlet draw per row of ``alpha`` (through Gamma variates)."""
    g = rng.gamma(np.maximum(alpha, 1e-12))
    return np.asarray(g / g.sum(axis=1, keepdims=True))


def _chamfer(candidate: np.ndarray, target: np.ndarray, distances: np.ndarray) -> np.ndarray:
    """Chamfer distance per draw from boolean word masks (draws x words); NaN if a set is empty."""
    big = np.where(target[:, None, :], distances[None, :, :], np.inf)
    nearest = big.min(axis=2)  # (draws, words): distance of each word to the target set
    n_c = candidate.sum(axis=1)
    total = np.where(candidate, nearest, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = total / n_c
    return np.where((n_c > 0) & target.any(axis=1), out, np.nan)


def srb_from_masks(
    s: np.ndarray, a: np.ndarray, b: np.ndarray, distances: np.ndarray
) -> np.ndarray:
    """``SRB(S || A, B) = CH(S, A) - CH(S, B)`` per row of boolean word masks."""
    return _chamfer(s, a, distances) - _chamfer(s, b, distances)


def _statistics(
    world: PlantedWorld, totals: dict[str, np.ndarray], per_text: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """Every statistic of :data:`STATISTICS` from group totals (draws x words)."""
    prior = world.prior_weight * np.sum([totals[g] for g in GROUPS], axis=0)

    def marked(t: str, o: str) -> np.ndarray:
        z = log_odds_z(totals[t], totals[o], prior)
        return np.asarray(np.nan_to_num(z, nan=-np.inf) > world.threshold)

    s_af, s_am = marked("AF", "AM"), marked("AM", "AF")
    s_f, s_m = marked("F", "M"), marked("M", "F")
    d = world.distances
    return {
        "srb_F": srb_from_masks(s_af, s_f, s_m, d),
        "srb_M": srb_from_masks(s_am, s_f, s_m, d),
        "set_size_F": s_af.sum(axis=1).astype(float),
        "set_size_M": s_am.sum(axis=1).astype(float),
        "set_size_named_F": s_f.sum(axis=1).astype(float),
        "set_size_named_M": s_m.sum(axis=1).astype(float),
        **per_text,
    }


def srb_set_sizes(observed: dict[str, float], score: str) -> dict[str, int]:
    """The word sets behind SRB score ``score`` (``srb_F`` or ``srb_M``) and their sizes
    in ``observed`` (from :func:`occupation_statistics`), named as the study names them,
    for the ``set_sizes`` of :func:`gasp.stats.interval_or_reason`."""
    gender = score.removeprefix("srb_")
    return {
        f"S_A{gender}": int(observed[f"set_size_{gender}"]),
        "S_F": int(observed["set_size_named_F"]),
        "S_M": int(observed["set_size_named_M"]),
    }


def _per_text(world: PlantedWorld, af: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-text rate of women-leaning words and presence of the first such word (AF texts)."""
    rate = af[:, world.women_words].sum(axis=1) / world.words_per_text
    present = (af[:, world.women_words[0]] > 0).astype(float)
    return rate, present


def occupation_statistics(
    world: PlantedWorld,
    counts: dict[str, np.ndarray],
    scheme: IntervalScheme | None = None,
    rng: np.random.Generator | None = None,
) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """The observed statistics of one occupation and, with ``scheme``, their draws.

    Texts are drawn within each group with :func:`gasp.stats.draw_weights` (with
    replacement for ``bootstrap``, a fixed share without replacement for ``subsample``).
    """
    rate, present = _per_text(world, counts["AF"])
    observed_totals = {g: counts[g].sum(axis=0, keepdims=True) for g in GROUPS}
    means = {"rate_F": np.array([rate.mean()]), "share_F": np.array([present.mean()])}
    obs = _statistics(world, observed_totals, means)
    observed = {k: float(v[0]) for k, v in obs.items()}
    if scheme is None or scheme.draws == 0:
        return observed, {}
    generator = rng if rng is not None else scheme.rng()
    weights = {g: draw_weights(scheme, generator, counts[g].shape[0]) for g in GROUPS}
    totals = {g: weights[g] @ counts[g] for g in GROUPS}
    w_af = weights["AF"] / weights["AF"].sum(axis=1, keepdims=True)
    per_text = {"rate_F": w_af @ rate, "share_F": w_af @ present}
    return observed, _statistics(world, totals, per_text)


def expected_statistics(
    world: PlantedWorld, probs: np.ndarray, replicates: int, rng: np.random.Generator
) -> dict[str, float]:
    """Mean of each observed statistic over ``replicates`` independent corpora (the truth
    an interval at this sample size aims at; NaN scores left out)."""
    values: dict[str, list[float]] = {k: [] for k in STATISTICS}
    for _ in range(replicates):
        observed, _ = occupation_statistics(world, world.sample(probs, rng))
        for k, v in observed.items():
            values[k].append(v)
    return {k: float(np.nanmean(v)) for k, v in values.items()}
