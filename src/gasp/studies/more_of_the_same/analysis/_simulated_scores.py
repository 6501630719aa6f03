"""SRB scores of a unit's simulated data sets and of its split halves (the calibration).

The run's spread: ``n_sims`` data sets drawn from the unit's fitted world
(:mod:`._simulated`: its generations resampled) at the run's size and ``n_sims`` at
half of it, whose scores' spread is the spread of the score in the fitted world. The
calibration: the unit's generations split at random into two halves (within each
group), each half scored as the data are, which shows how that spread compares with the
real one on the run's own data (:func:`gasp.stats.half_ratios`,
:func:`gasp.stats.calibrate_simulated`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gasp.stats import SIMULATED, calibrate_simulated, half_ratios, simulated_interval
from gasp.studies.more_of_the_same.analysis._config import AnalysisConfig
from gasp.studies.more_of_the_same.analysis._resampled import Pair, marked_sets
from gasp.studies.more_of_the_same.analysis._simulated import fit_world, simulate
from gasp.studies.more_of_the_same.analysis._units import GROUPS, Unit, _specs_for, _srb_many


@dataclass(frozen=True)
class SimulatedScores:
    """One associated gender's scores (NaN where undefined).

    ``first`` (sims) are simulated from the unit's fitted world; ``halves`` (splits x 2)
    are the scores of the two halves of each split of the unit's generations and
    ``half_draws`` (sims) those simulated from the same world at half the size.
    """

    first: np.ndarray
    halves: np.ndarray
    half_draws: np.ndarray


def _scores(
    unit: Unit,
    names: list[str],
    totals: np.ndarray,
    other: np.ndarray,
    config: AnalysisConfig,
    embeddings: object,
    marking: int = 0,
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """SRB scores per associated gender of group totals (sets x groups x words), each set
    with the totals ``other`` (sets x words) of the generations outside every group, and
    which words the first ``marking`` sets mark in any comparison (marking x words)."""
    n_sims, n_groups, n_words = totals.shape
    specs = _specs_for(unit.masks)
    topic = totals.sum(axis=1, keepdims=True) + other[:, None, :]
    stacked = np.concatenate([totals, topic], axis=1).reshape(-1, n_words)
    width = n_groups + 1
    row = {g: gi for gi, g in enumerate(names)}
    pairs = [
        Pair(
            comparison=s * len(specs) + si,
            target=s * width + row[spec.target],
            unmarked=s * width + row[u],
            topic=s * width + n_groups,
        )
        for s in range(n_sims)
        for si, spec in enumerate(specs)
        for u in spec.unmarked
    ]
    sets = marked_sets(unit.counts.vocabulary, stacked, pairs, n_sims * len(specs), config)
    triples: list[tuple[list[str], list[str], list[str]]] = []
    marked = np.zeros((marking, n_words), dtype=bool)
    for s in range(marking):
        words = [w for si in range(len(specs)) for w in sets[s * len(specs) + si]]
        marked[s, unit.counts.index_of(words)] = True
    for s in range(n_sims):
        found = {
            (spec.source, spec.gender): list(sets[s * len(specs) + si])
            for si, spec in enumerate(specs)
        }
        s_f = found.get(("named", "F"), [])
        s_m = found.get(("named", "M"), [])
        triples.extend((found.get(("associated", g), []), s_f, s_m) for g in ("F", "M"))
    scores = np.array([r.score for r in _srb_many(triples, embeddings)], dtype=np.float64)
    return {"F": scores[0::2], "M": scores[1::2]}, marked


def split_halves(groups: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Two disjoint halves of the generations (row indices), split at random within each
    group (``groups``, ``-1`` for those in none); an odd group's extra one goes to either."""
    first: list[np.ndarray] = []
    second: list[np.ndarray] = []
    for g in np.unique(groups):
        rows = rng.permutation(np.flatnonzero(groups == g))
        cut = rows.size // 2 + int(rows.size % 2 == 1 and rng.random() < 0.5)
        first.append(rows[:cut])
        second.append(rows[cut:])
    return np.sort(np.concatenate(first)), np.sort(np.concatenate(second))


def simulated_scores(
    unit: Unit,
    config: AnalysisConfig,
    embeddings: object,
    rng: np.random.Generator,
    n_sims: int,
    splits: int,
) -> dict[str, SimulatedScores]:
    """The unit's SRB scores per associated gender: simulated at the run's size and at
    half of it from the world fitted on the words the data mark, and those of the two
    halves of ``splits`` random splits (the data's own, scored in one stacked pass with
    the whole data, whose marked words fit the world)."""
    names = [g for g in GROUPS if unit.masks[g].any()]
    groups = np.full(unit.counts.n_documents, -1, dtype=np.int64)
    for gi, g in enumerate(names):
        groups[unit.masks[g]] = gi
    associated = (names.index("AF"), names.index("AM")) if {"AF", "AM"} <= set(names) else None
    parts = [np.arange(unit.counts.n_documents)]
    for _ in range(splits):
        parts.extend(split_halves(groups, rng))
    observed = np.stack(
        [
            np.stack([unit.counts.totals(rows[groups[rows] == g]) for g in range(len(names))])
            for rows in parts
        ]
    ).astype(np.float64)
    outside = np.stack([unit.counts.totals(rows[groups[rows] < 0]) for rows in parts])
    real, marked = _scores(
        unit, names, observed, outside.astype(np.float64), config, embeddings, marking=1
    )
    world = fit_world(unit.counts, groups, associated, marked[0])
    full, half = simulate(world, n_sims, rng), simulate(world, n_sims, rng, half=True)
    totals = np.concatenate([full[0], half[0]])
    other = np.concatenate([full[1], half[1]])
    simulated, _ = _scores(unit, names, totals, other, config, embeddings)
    out = {}
    for g in ("F", "M"):
        out[g] = SimulatedScores(
            first=simulated[g][:n_sims],
            halves=real[g][1:].reshape(splits, 2),
            half_draws=simulated[g][n_sims:],
        )
    return out


def calibrate_rows(
    rows: list[dict[str, object]], simulated: list[SimulatedScores], config: AnalysisConfig
) -> None:
    """Fill the interval columns of the score ``rows`` from their ``simulated`` scores
    (same order), calibrated on the run's pooled split halves."""
    ratios = [half_ratios(s.halves, s.half_draws) for s in simulated]
    calibration = calibrate_simulated(
        np.concatenate(ratios) if ratios else np.empty(0), config.ci_level
    )
    for row, sims in zip(rows, simulated, strict=True):
        score = row["score"]
        estimate = float(score) if isinstance(score, (int, float)) else float("nan")
        g = str(row["gender"])
        sizes = {
            f"S_A{g}": int(row["n_words"]),  # type: ignore[call-overload]
            "S_F": int(row["n_words_specified_F"]),  # type: ignore[call-overload]
            "S_M": int(row["n_words_specified_M"]),  # type: ignore[call-overload]
        }
        lo, hi, note = simulated_interval(estimate, sims.first, calibration, sizes, sims.halves)
        row.update(ci_low=lo, ci_high=hi, interval_note=note, **calibration.columns())
        row.update(interval_scheme=SIMULATED, interval_draws=config.n_simulations)
