"""A unit's fitted world, resampled: the bootstrap behind the calibrated SRB intervals.

The interval of an SRB score is calibrated on simulations of the run's own data
(``docs/intervals.md``). For one unit (an occupation) the fitted world is made of the
unit's own generations, in their groups (associated women and men, named women, men and
non-binary people):

* at the words the statistic marks in the data (in any comparison of the unit) a group's
  counts come from its own generations; at every other word from the generations of all
  the groups pooled. The world differs where the data's marked words do, and only there.
  Keeping instead every deviation beyond 1.96 of its noise SDs planted differences on the
  fringe of words the calibrated statistic (whose prior shrinks its z-scores) seldom
  marks: the simulated scores varied up to 3.3 times as much as real ones in the worlds
  of ``bench/bench_srb_worlds.py``;
* a simulated data set draws each group's generations with replacement, as many as the
  group has; the associated generations are split between women and men by a binomial
  draw at the run's share (association is itself random). A group's totals sum the drawn
  generations' counts: at the marked words of generations drawn from the group, at the
  others of generations drawn from the pool.

Whole generations are drawn, so what one generation does to many words at once is kept:
an associated text written in the other gender's style raises all of that style's words
together, and a run with a few more of them can mark the other gender's words and flip
the score's sign. A model of independent word counts (each word gamma-Poisson around its
group's rate) lost that: in world D of the bench, whose associated texts follow their
gender's style only 60% of the time, the spread behind its intervals was 0.44 of the
real one and they covered 0.79 of the expected scores.

The unassigned generations (which only feed the topic prior) are kept as observed, half
of their totals at half the size. Every simulation is evaluated by the same statistic as
the data (:func:`._resampled.marked_sets`, then SRB), in one stacked pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gasp.studies.more_of_the_same.analysis._resampled import group_totals
from gasp.text import DocTermCounts


@dataclass(frozen=True)
class FittedWorld:
    """The fitted world of one unit: its generations, in their groups.

    ``counts`` holds the unit's counts (generations x words); ``members`` the rows of each
    group; ``marked`` (words) the words at which a group keeps its own generations;
    ``other`` (words) the totals of the generations outside every group; ``associated``
    the two groups whose sizes are drawn together (women, men), or None.
    """

    counts: DocTermCounts
    members: tuple[np.ndarray, ...]
    marked: np.ndarray
    other: np.ndarray
    associated: tuple[int, int] | None

    @property
    def pool(self) -> np.ndarray:
        """The rows of every group's generations."""
        return np.sort(np.concatenate(self.members))


def fit_world(
    counts: DocTermCounts,
    groups: np.ndarray,
    associated: tuple[int, int] | None,
    marked: np.ndarray,
) -> FittedWorld:
    """The fitted world of a unit whose generations fall into the groups ``groups``
    (``-1``: in none) and whose statistic marks the words ``marked`` (a mask over the
    vocabulary)."""
    n_groups = int(groups.max()) + 1
    return FittedWorld(
        counts=counts,
        members=tuple(np.flatnonzero(groups == g) for g in range(n_groups)),
        marked=np.asarray(marked, dtype=bool),
        other=counts.totals(groups < 0).astype(np.float64),
        associated=associated,
    )


def group_sizes(
    world: FittedWorld, n_sims: int, rng: np.random.Generator, half: bool
) -> np.ndarray:
    """The number of generations of each group in ``n_sims`` data sets (sims x groups).

    Each group has as many as in the data (half as many at half the size, an odd count
    rounded either way at random); the associated women and men split their sum by a
    binomial draw at the data's share.
    """
    sizes = np.tile(np.array([m.size for m in world.members], dtype=np.int64), (n_sims, 1))
    if half:
        sizes = sizes // 2 + (rng.random(sizes.shape) < (sizes % 2) / 2.0)
    if world.associated is not None:
        a, b = world.associated
        total = sizes[:, a] + sizes[:, b]
        observed = world.members[a].size + world.members[b].size
        share = world.members[a].size / observed if observed else 0.5
        sizes[:, a] = rng.binomial(total, share)
        sizes[:, b] = total - sizes[:, a]
    return sizes


def _draws(
    rows: list[np.ndarray], sizes: np.ndarray, n_documents: int, rng: np.random.Generator
) -> np.ndarray:
    """How often each generation is drawn, with replacement, into each group of each data
    set: ``sizes[s, g]`` rows of ``rows[g]`` (sims x groups rows, one column per generation)."""
    n_sims, n_groups = sizes.shape
    weights = np.zeros((n_sims * n_groups, n_documents))
    for g in range(n_groups):
        picked = rows[g][rng.integers(0, rows[g].size, int(sizes[:, g].sum()))]
        np.add.at(weights, (np.repeat(np.arange(n_sims) * n_groups + g, sizes[:, g]), picked), 1.0)
    return weights


def simulate(
    world: FittedWorld, n_sims: int, rng: np.random.Generator, half: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """``n_sims`` data sets drawn from the fitted world, at the data's size or at half of it.

    Returns the group totals (sims x groups x words) and the totals of the generations
    outside every group (sims x words; half of the data's at half the size).
    """
    sizes = group_sizes(world, n_sims, rng, half)
    n_sims, n_groups = sizes.shape
    n_documents = world.counts.n_documents
    pooled = _draws([world.pool] * n_groups, sizes, n_documents, rng)
    totals = group_totals(world.counts, pooled).reshape(n_sims, n_groups, -1)
    if world.marked.any():
        own = _draws(list(world.members), sizes, n_documents, rng)
        at_marked = DocTermCounts(
            world.counts.matrix[:, world.marked], world.counts.vocabulary[world.marked]
        )
        totals[:, :, world.marked] = group_totals(at_marked, own).reshape(n_sims, n_groups, -1)
    other = np.tile(world.other / (2.0 if half else 1.0), (n_sims, 1))
    return totals, other
