"""SRB scores of a unit's simulated data sets, at two levels (the parametric bootstrap).

Level one draws ``n_sims`` data sets from the unit's fitted word model
(:mod:`._simulated`): their scores' spread is the spread of the score in the run's
fitted world, whose expected score (their mean) is known. Level two refits the model on
each of the first ``worlds`` of those data sets and draws ``n_sims`` more from each: it
shows how far an interval built from a fitted world's spread misses a known truth, which
calibrates the interval (:func:`gasp.stats.calibrate_simulated`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gasp.stats import SIMULATED, calibrate_simulated, simulated_interval
from gasp.studies.more_of_the_same.analysis._config import AnalysisConfig
from gasp.studies.more_of_the_same.analysis._resampled import Pair, marked_sets
from gasp.studies.more_of_the_same.analysis._simulated import (
    WordModel,
    fit_model,
    refit,
    simulate,
)
from gasp.studies.more_of_the_same.analysis._units import GROUPS, Unit, _specs_for, _srb_many


@dataclass(frozen=True)
class SimulatedScores:
    """One associated gender's simulated scores (NaN where undefined).

    ``first`` (sims) are drawn from the unit's fitted model; ``second`` (worlds x sims)
    from the models refitted on the first ``worlds`` of them.
    """

    first: np.ndarray
    second: np.ndarray


def _scores(
    unit: Unit,
    model: WordModel,
    names: list[str],
    totals: np.ndarray,
    config: AnalysisConfig,
    embeddings: object,
) -> dict[str, np.ndarray]:
    """SRB scores per associated gender of simulated group totals (sims x groups x words)."""
    n_sims, n_groups, n_words = totals.shape
    specs = _specs_for(unit.masks)
    topic = totals.sum(axis=1, keepdims=True) + model.other[None, None, :]
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
    for s in range(n_sims):
        found = {
            (spec.source, spec.gender): list(sets[s * len(specs) + si])
            for si, spec in enumerate(specs)
        }
        s_f = found.get(("named", "F"), [])
        s_m = found.get(("named", "M"), [])
        triples.extend((found.get(("associated", g), []), s_f, s_m) for g in ("F", "M"))
    scores = np.array([r.score for r in _srb_many(triples, embeddings)], dtype=np.float64)
    return {"F": scores[0::2], "M": scores[1::2]}


def simulated_scores(
    unit: Unit,
    config: AnalysisConfig,
    embeddings: object,
    rng: np.random.Generator,
    n_sims: int,
    worlds: int,
) -> dict[str, SimulatedScores]:
    """The unit's simulated SRB scores per associated gender, at both levels."""
    names = [g for g in GROUPS if unit.masks[g].any()]
    groups = np.full(unit.counts.n_documents, -1, dtype=np.int64)
    for gi, g in enumerate(names):
        groups[unit.masks[g]] = gi
    associated = (names.index("AF"), names.index("AM")) if {"AF", "AM"} <= set(names) else None
    model = fit_model(unit.counts, groups, associated)
    totals, texts = simulate(model, n_sims, rng)
    first = _scores(unit, model, names, totals, config, embeddings)
    n_worlds = min(worlds, n_sims)
    second_totals = (
        np.concatenate(
            [simulate(refit(model, totals[w], texts[w]), n_sims, rng)[0] for w in range(n_worlds)]
        )
        if n_worlds
        else np.empty((0, *totals.shape[1:]))
    )
    second = (
        _scores(unit, model, names, second_totals, config, embeddings)
        if n_worlds
        else {g: np.empty(0) for g in ("F", "M")}
    )
    return {
        g: SimulatedScores(first=first[g], second=second[g].reshape(n_worlds, n_sims))
        for g in ("F", "M")
    }


def calibrate_rows(
    rows: list[dict[str, object]],
    draws: list[np.ndarray],
    ratios: list[np.ndarray],
    config: AnalysisConfig,
) -> None:
    """Fill the interval columns of the score ``rows`` (their level-one ``draws`` in the
    same order) from the run's pooled calibration ``ratios``."""
    calibration = calibrate_simulated(
        np.concatenate(ratios) if ratios else np.empty(0), config.ci_level
    )
    for row, first in zip(rows, draws, strict=True):
        score = row["score"]
        estimate = float(score) if isinstance(score, (int, float)) else float("nan")
        g = str(row["gender"])
        sizes = {
            f"S_A{g}": int(row["n_words"]),  # type: ignore[call-overload]
            "S_F": int(row["n_words_specified_F"]),  # type: ignore[call-overload]
            "S_M": int(row["n_words_specified_M"]),  # type: ignore[call-overload]
        }
        lo, hi, note = simulated_interval(estimate, first, calibration, sizes)
        row.update(ci_low=lo, ci_high=hi, interval_note=note, **calibration.columns())
        row.update(interval_scheme=SIMULATED, interval_draws=config.n_simulations)
