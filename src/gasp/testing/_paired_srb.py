"""Paired SRB scores from a small generator of its own, for checking the paired tests.

Written apart from the code it checks: it draws word totals, marks words and computes
Chamfer distances with a few lines of numpy here, never with :mod:`gasp.stats`.

Word vectors are fixed per world (women-leaning words pulled toward one direction,
men-leaning words toward another). Each occupation has its own word rates (Zipf-like,
shuffled) and its own named-gender boosts (drawn per occupation, so that the named word
sets ``S_F`` and ``S_M`` differ in size and reach from one occupation to the next: this
is what makes the two SRB scores of an occupation correlated). Four groups of texts are
drawn as word totals (a Dirichlet-multinomial per group: texts are bursty): named
women ``F`` and men ``M``, associated women ``AF`` and men ``AM``. Under the null the
two associated groups are exchangeable: both are drawn from the occupation's one
associated distribution. ``effect`` multiplies the women-leaning words of ``AF`` and
the men-leaning words of ``AM`` by ``1 + effect``: a planted difference.

Words are marked by the log-odds ratio with an informative Dirichlet prior (Monroe,
Colaresi and Quinn 2008; the pooled totals of the four groups times ``prior_weight``
as the prior), z above ``threshold``; ``SRB(S || S_F, S_M)`` is the mean over ``S`` of
the cosine distance to the nearest word of ``S_F`` minus that to ``S_M``. A score
whose set is empty is NaN.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from gasp._defaults import DEFAULT_THRESHOLD


@dataclass(frozen=True)
class PairedSRBWorld:
    """Sizes of the generator (see the module notes). With these defaults the two scores
    of an occupation correlate at about 0.5 under the null."""

    n_words: int = 150
    n_planted: int = 12
    dim: int = 20
    tokens: int = 3000
    named_boost: tuple[float, float] = (1.0, 8.0)
    associated_lean: tuple[float, float] = (0.8, 2.0)
    concentration: float = 400.0
    threshold: float = DEFAULT_THRESHOLD
    prior_weight: float = 0.1
    seed: int = 7

    @cached_property
    def distances(self) -> np.ndarray:
        """Cosine distances of the word vectors, fixed by ``seed`` (one embedding for every
        occupation, as one study uses one embedding)."""
        rng = np.random.default_rng(self.seed)
        vectors = rng.normal(size=(self.n_words, self.dim))
        vectors[: self.n_planted, 0] += 2.5
        vectors[self.n_planted : 2 * self.n_planted, 1] += 2.5
        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        return np.asarray(np.clip(1.0 - unit @ unit.T, 0.0, 2.0))


def _log_odds_z(target: np.ndarray, other: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """z of the log-odds ratio of each word, target against other (rows: occupations)."""
    prior = prior + 1e-3
    a0 = prior.sum(axis=-1, keepdims=True)
    nt = target.sum(axis=-1, keepdims=True)
    no = other.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        lt = np.log((target + prior) / (nt + a0 - target - prior))
        lo = np.log((other + prior) / (no + a0 - other - prior))
        z = (lt - lo) / np.sqrt(1.0 / (target + prior) + 1.0 / (other + prior))
    return np.asarray(np.nan_to_num(z, nan=0.0, posinf=0.0, neginf=0.0))


def _chamfer(s: np.ndarray, a: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Mean over words of ``s`` of the distance to the nearest word of ``a`` (per row)."""
    nearest = np.where(a[:, None, :], dist[None, :, :], np.inf).min(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(s, nearest, 0.0).sum(axis=1) / s.sum(axis=1)
    return np.where(s.any(axis=1) & a.any(axis=1), out, np.nan)


def paired_srb_scores(
    world: PairedSRBWorld, occupations: int, effect: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """SRB of associated women and of associated men for ``occupations`` occupations."""
    k, v, p = occupations, world.n_words, world.n_planted
    women, men = np.arange(p), np.arange(p, 2 * p)
    base = 1.0 / (1.0 + rng.permuted(np.tile(np.arange(v, dtype=float), (k, 1)), axis=1))
    base **= 0.8
    dist = world.distances
    boost_f, boost_m = rng.uniform(*world.named_boost, size=(2, k, 1))
    lean_w, lean_m = rng.uniform(*world.associated_lean, size=(2, k, 1))

    def rates(w_factor: np.ndarray | float, m_factor: np.ndarray | float) -> np.ndarray:
        r = base.copy()
        r[:, women] *= w_factor
        r[:, men] *= m_factor
        return np.asarray(r / r.sum(axis=1, keepdims=True))

    groups = {
        "F": rates(boost_f, 1.0),
        "M": rates(1.0, boost_m),
        "AF": rates(lean_w * (1.0 + effect), lean_m),
        "AM": rates(lean_w, lean_m * (1.0 + effect)),
    }
    totals = {}
    for name, r in groups.items():
        mixed = rng.gamma(r * world.concentration)
        mixed /= mixed.sum(axis=1, keepdims=True)
        totals[name] = np.array([rng.multinomial(world.tokens, row) for row in mixed], float)
    prior = world.prior_weight * np.sum(list(totals.values()), axis=0)

    def marked(target: str, other: str) -> np.ndarray:
        return np.asarray(_log_odds_z(totals[target], totals[other], prior) > world.threshold)

    s_f, s_m = marked("F", "M"), marked("M", "F")
    scores = []
    for s in (marked("AF", "AM"), marked("AM", "AF")):
        scores.append(_chamfer(s, s_f, dist) - _chamfer(s, s_m, dist))
    return scores[0], scores[1]
