"""How people are represented (seed ``000`` Sections 3.2, 4.2, 5.2, Appendix A.3, A.4, B.4).

For each analysis unit (a subject pooled over templates by default, as in Figure 3 of
the paper which shows one score per occupation; or a subject and template with
``AnalysisConfig(pool_templates=False)``) the generations fall into five groups:
associated women ``AF`` and men ``AM`` (unspecified prompts), and named women ``F``,
men ``M`` and non-binary people ``N``. Calibrated Marked Words (or plain Marked Words)
compares, within the unit:

* named ``F`` against named ``M``; named ``N`` against named ``M``; named ``M`` against
  named ``F`` and named ``N`` (a word must pass against both);
* ``AF`` against ``AM`` and ``AM`` against ``AF``.

The topic prior of every comparison is the unit's own generations (all five groups
and the unassigned ones), and the vocabulary is the words those generations use.
Pronouns are removed from the word sets before the Subset Representational Bias
scores ``SRB(S_AF || S_F, S_M)`` and ``SRB(S_AM || S_F, S_M)`` (Definition 1,
Algorithm 6). Welch's t-test compares the two scores across units (Table 13).

A unit takes part only when both associated genders reach ``min_samples``
generations and ``min_share`` of its unspecified generations, and when it has
generations naming women and men; the others are listed with the reason.

Beyond the paper, each score gets an interval calibrated on simulations of the run's
own fitted world (:mod:`._simulated`, :mod:`._simulated_scores`; ``n_simulations``; with 0,
from subsamples as before; seeded; ``docs/intervals.md``), the mean scores across units get
units (occupations), and a permutation test shuffles the associated labels ``F``/``M``
among each unit's associated generations (named word sets fixed) and recomputes both
scores. Its statistic is the mean over units of ``score_F - score_M``; an associated
word set left empty (no marked word besides pronouns: nothing sets the gender apart)
counts as a score of 0, so the statistic is defined for every shuffle; units whose
named word sets are empty take no part. The p-value is
``(1 + #{|stat_perm| >= |stat_obs|}) / (1 + P)``.

Tables (names from :mod:`gasp.results`):

``marked_words`` (:data:`MARKED_WORDS`), long format, significant words only:
    subject, template, source (``named`` or ``associated``), gender (``F``, ``M``,
    ``N``), against (the unmarked groups, e.g. ``M`` or ``F+N``), word, count_target,
    z_sum, z_min (smallest z over the unmarked groups), is_pronoun, n_target
    (generations of the target group).

``srb_scores`` (:data:`SRB_SCORES`), one row per unit and associated gender:
    subject, template, gender (``F``: ``SRB(S_AF || S_F, S_M)``; ``M``:
    ``SRB(S_AM || S_F, S_M)``), score, ch_specified_F, ch_specified_M (Chamfer distances
    to the named-women and named-men word sets), n_words (candidate words with an
    embedding), n_words_specified_F, n_words_specified_M, n_generations (associated
    generations of that gender), ci_low, ci_high (the interval, NaN without one),
    boot_mean, n_bootstrap (mean and number of the defined simulated or subsample
    scores), interval_scheme, interval_draws, interval_seed (how the interval was
    obtained), interval_note (why a score has no interval: the score is undefined, or
    defined in fewer than half of the draws, or one of its three word sets holds a single
    word with a vector, or the run's calibration failed; empty otherwise),
    interval_factor, simulated_coverage, nominal_coverage, calibration_ratios (the run's
    calibration: the factor ``c`` of ``score -+ c spread``, the coverage of the calibrated
    interval on held-out split halves and that of the uncalibrated one, the splits
    pooled), reason
    (empty when the score is defined, else why not).
    Next to the paper's score, the name-free variant (:mod:`._name_free`) removes person
    first names and explicit gender terms from ``S``, ``A`` and ``B`` alike, computed in
    the same pass: score_names_removed, ch_specified_F_names_removed,
    ch_specified_M_names_removed, n_words_names_removed, n_words_specified_F_names_removed,
    n_words_specified_M_names_removed, names_removed and gender_terms_removed (removed
    from the candidate set), names_removed_specified and gender_terms_removed_specified
    (removed from the named-women and named-men sets together), reason_names_removed.
    It has no bootstrap interval.

``srb_test`` (:data:`SRB_TEST`), one row per test and variant (and template when not
    pooled): template, variant (``paper``: the paper's SRB, pronouns removed;
    ``names_removed``: the name-free variant), test (``welch`` or ``permutation``),
    statistic (Welch: t of the scores of associated women minus men; permutation: mean
    over units of ``score_F - score_M`` with empty associated sets as 0), p_value, df
    (Welch only), n_subjects_F, n_subjects_M (units taking part), mean_F, mean_M,
    n_permutations (shuffles run; 0 for Welch), mean_F_low, mean_F_high, mean_M_low,
    mean_M_high (Welch rows: interval of each mean from units drawn with replacement),
    about (what the test is: Welch is the paper's unpaired test, kept for reproduction;
    the paired tests are in ``srb_paired``, :mod:`._paired`), reason (empty when the
    test is defined, else why not: no scores, zero variance, too few units).

``excluded_subjects`` (:data:`EXCLUDED`):
    subject, template, step (``how``), reason.

``chance_marked_words``: the tests of the run and the marked words expected by chance
(:mod:`._multiplicity`, which also resolves a study-wide FDR before any unit is scored).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from gasp.errors import ConfigError
from gasp.stats import (
    IntervalScheme,
    interval_or_reason,
    mean_interval,
    splits_per_unit,
    welch_t_test,
)
from gasp.studies.more_of_the_same.analysis._config import AnalysisConfig
from gasp.studies.more_of_the_same.analysis._multiplicity import (
    CHANCE_COLUMNS,
    applied_config,
    chance_table,
)
from gasp.studies.more_of_the_same.analysis._name_free import NAMES_REMOVED, PAPER, NameFilter
from gasp.studies.more_of_the_same.analysis._prepare import PreparedRun
from gasp.studies.more_of_the_same.analysis._simulated_scores import (
    SimulatedScores,
    calibrate_rows,
    simulated_scores,
)
from gasp.studies.more_of_the_same.analysis._units import (
    MW_COLUMNS,
    UnitAnalysis,
    build_units,
    unit_tables,
    zero_if_empty,
)

_SRB_COLUMNS = [
    "subject",
    "template",
    "gender",
    "score",
    "ch_specified_F",
    "ch_specified_M",
    "n_words",
    "n_words_specified_F",
    "n_words_specified_M",
    "n_generations",
    "ci_low",
    "ci_high",
    "boot_mean",
    "n_bootstrap",
    "interval_scheme",
    "interval_draws",
    "interval_seed",
    "interval_note",
    "interval_factor",
    "simulated_coverage",
    "nominal_coverage",
    "calibration_ratios",
    "reason",
    "score_names_removed",
    "ch_specified_F_names_removed",
    "ch_specified_M_names_removed",
    "n_words_names_removed",
    "n_words_specified_F_names_removed",
    "n_words_specified_M_names_removed",
    "names_removed",
    "gender_terms_removed",
    "names_removed_specified",
    "gender_terms_removed_specified",
    "reason_names_removed",
]
_TEST_COLUMNS = [
    "template",
    "variant",
    "test",
    "statistic",
    "p_value",
    "df",
    "n_subjects_F",
    "n_subjects_M",
    "mean_F",
    "mean_M",
    "n_permutations",
    "mean_F_low",
    "mean_F_high",
    "mean_M_low",
    "mean_M_high",
    "interval_scheme",
    "interval_draws",
    "interval_seed",
    "about",
    "reason",
]
_ABOUT = {
    "welch": "the paper's test (Table 13), kept for reproduction: unpaired, it treats the "
    "F and M scores of an occupation as independent (see srb_paired for the paired test)",
    "permutation": "associated F/M labels shuffled within each occupation",
}


@dataclass
class DescriptionResults:
    """Tables of the "how" analysis and the word sets behind them."""

    marked_words: pd.DataFrame
    srb_scores: pd.DataFrame
    srb_test: pd.DataFrame
    excluded: pd.DataFrame
    word_sets: dict[tuple[str, str], dict[tuple[str, str], list[str]]] = field(default_factory=dict)
    chance: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=CHANCE_COLUMNS))


def _load_embeddings(config: AnalysisConfig) -> Any:
    if not isinstance(config.embeddings, str):
        return config.embeddings
    from gasp.embeddings import load_embeddings

    return load_embeddings(config.embeddings)


def _welch(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float, str]:
    """Welch's t (a minus b), p-value, degrees of freedom; NaN and the reason where undefined."""
    result = welch_t_test(a, b, unit="subjects")
    return float(result.t), float(result.p_value), float(result.df), result.reason or ""


def _free_reason(reason: str | None) -> str:
    """The reason of a name-free score, naming the removal it adds."""
    if not reason:
        return ""
    return reason.replace("after pronoun and", "after pronoun, person-name, gender-term and")


def _tests(
    template: str,
    variant: str,
    scores: pd.DataFrame,
    observed: np.ndarray | None,
    perm_f: np.ndarray | None,
    perm_m: np.ndarray | None,
    mean_scheme: IntervalScheme,
) -> list[dict[str, object]]:
    """Welch's t-test across units and, with shuffles, the permutation test, of one variant."""
    column = "score" if variant == PAPER else f"score_{variant}"
    f = scores.loc[scores["gender"] == "F", column].to_numpy(dtype=float)
    m = scores.loc[scores["gender"] == "M", column].to_numpy(dtype=float)
    t, p, df, reason = _welch(f, m)

    def _mean(x: np.ndarray) -> float:
        return float(np.nanmean(x)) if np.isfinite(x).any() else float("nan")

    rows: list[dict[str, object]] = [
        {"template": template, "variant": variant, "test": "welch", "statistic": t,
         "p_value": p, "df": df,
         "n_subjects_F": int(np.isfinite(f).sum()), "n_subjects_M": int(np.isfinite(m).sum()),
         "mean_F": _mean(f), "mean_M": _mean(m), "n_permutations": 0,
         "about": _ABOUT["welch"], "reason": reason}
    ]  # fmt: skip
    for name, values in (("F", f), ("M", m)):
        _, low, high = mean_interval(values, mean_scheme)
        rows[0][f"mean_{name}_low"], rows[0][f"mean_{name}_high"] = low, high
    rows[0].update(mean_scheme.columns())
    if observed is not None and perm_f is not None and perm_m is not None and perm_f.shape[1]:
        n_perm = int(perm_f.shape[1])
        keep = np.isfinite(observed).all(axis=1) & np.isfinite(perm_f).all(axis=1)
        keep &= np.isfinite(perm_m).all(axis=1)
        if keep.any():
            stat = float(np.mean(observed[keep, 0] - observed[keep, 1]))
            null = np.mean(perm_f[keep] - perm_m[keep], axis=0)
            extreme = int((np.abs(null) >= abs(stat) - 1e-12).sum())
            p_perm = (1 + extreme) / (1 + n_perm)
        else:
            stat, p_perm = float("nan"), float("nan")
        rows.append(
            {"template": template, "variant": variant, "test": "permutation",
             "statistic": stat, "p_value": p_perm,
             "df": float("nan"), "n_subjects_F": int(keep.sum()), "n_subjects_M": int(keep.sum()),
             "mean_F": _mean(observed[keep, 0]), "mean_M": _mean(observed[keep, 1]),
             "n_permutations": n_perm, "about": _ABOUT["permutation"],
             "reason": "" if keep.any() else "no subject has both scores in every shuffle"}
        )  # fmt: skip
    return rows


def analyze_descriptions(
    run: PreparedRun, config: AnalysisConfig, embeddings: Any = None
) -> DescriptionResults:
    """Marked words, SRB scores, bootstrap intervals and tests of every eligible unit."""
    if config.threshold <= 0 and config.fdr_alpha is None:
        raise ConfigError(f"the z-score threshold must be positive, got {config.threshold}")
    emb = embeddings if embeddings is not None else _load_embeddings(config)
    units, excluded = build_units(run, config)
    every = [unit_tables(unit, config) for unit in units]
    applied = applied_config(config, every)
    seeds = np.random.SeedSequence(config.seed).spawn(max(len(units), 1))
    marked: list[pd.DataFrame] = []
    srb_rows: list[dict[str, object]] = []
    perm: dict[tuple[str, str], dict[str, np.ndarray]] = {}
    zeroed: dict[tuple[str, str], dict[str, tuple[float, float]]] = {}
    names = NameFilter(config.extra_gender_terms, config.name_ratio)
    word_sets: dict[tuple[str, str], dict[tuple[str, str], list[str]]] = {}
    scheme = config.srb_interval_scheme()
    simulated = config.srb_simulated()
    simulated_rows: list[SimulatedScores] = []
    for unit, tables, seed in zip(units, every, seeds, strict=False):
        boot_rng, perm_rng, sim_rng = (np.random.default_rng(s) for s in seed.spawn(3))
        analysis = UnitAnalysis(unit, applied, emb, names, tables)
        marked.append(analysis.marked_rows())
        word_sets[(unit.subject, unit.template)] = analysis.sets
        if simulated:
            sims = simulated_scores(
                unit, applied, emb, sim_rng, config.n_simulations, splits_per_unit(len(units))
            )
            boot = {g: sims[g].first for g in ("F", "M")}
            simulated_rows.extend(sims[g] for g in ("F", "M"))
        else:
            boot = analysis.bootstrap(boot_rng)
        perm[(unit.subject, unit.template)] = analysis.permutations(perm_rng)
        zeroed[(unit.subject, unit.template)] = {
            PAPER: (zero_if_empty(analysis.scores["F"]), zero_if_empty(analysis.scores["M"])),
            NAMES_REMOVED: (
                zero_if_empty(analysis.free_scores["F"]),
                zero_if_empty(analysis.free_scores["M"]),
            ),
        }
        for g in ("F", "M"):
            sc = analysis.scores[g]
            free = analysis.free_scores[g]
            removed = analysis.removed[g]
            b = boot[g][np.isfinite(boot[g])]
            sizes = {f"S_A{g}": sc.n_s, "S_F": sc.n_a, "S_M": sc.n_b}
            lo, hi, note = (
                (float("nan"), float("nan"), "")
                if simulated
                else interval_or_reason(float(sc.score), boot[g], scheme, sizes)
            )
            srb_rows.append(
                {
                    "subject": unit.subject,
                    "template": unit.template,
                    "gender": g,
                    "score": float(sc.score),
                    "ch_specified_F": float(sc.ch_sa),
                    "ch_specified_M": float(sc.ch_sb),
                    "n_words": int(sc.n_s),
                    "n_words_specified_F": int(sc.n_a),
                    "n_words_specified_M": int(sc.n_b),
                    "n_generations": unit.size("A" + g),
                    "ci_low": float(lo),
                    "ci_high": float(hi),
                    "boot_mean": float(b.mean()) if b.size else float("nan"),
                    "n_bootstrap": int(b.size),
                    **scheme.columns(),
                    "interval_note": note,
                    "reason": sc.reason or "",
                    "score_names_removed": float(free.score),
                    "ch_specified_F_names_removed": float(free.ch_sa),
                    "ch_specified_M_names_removed": float(free.ch_sb),
                    "n_words_names_removed": int(free.n_s),
                    "n_words_specified_F_names_removed": int(free.n_a),
                    "n_words_specified_M_names_removed": int(free.n_b),
                    "names_removed": removed[0],
                    "gender_terms_removed": removed[1],
                    "names_removed_specified": removed[2],
                    "gender_terms_removed_specified": removed[3],
                    "reason_names_removed": _free_reason(free.reason),
                }
            )
    if simulated:
        calibrate_rows(srb_rows, simulated_rows, config)
    scores = pd.DataFrame(srb_rows, columns=_SRB_COLUMNS)
    tests: list[dict[str, object]] = []
    for template in sorted(scores["template"].unique()) if len(scores) else []:
        part = scores[scores["template"] == template]
        subjects = part["subject"].unique()
        for variant in (PAPER, NAMES_REMOVED):
            suffix = "" if variant == PAPER else f"_{variant}"
            perm_f = perm_m = observed = None
            if config.n_permutations > 0:
                perm_f = np.stack([perm[(s, template)][f"F{suffix}"] for s in subjects])
                perm_m = np.stack([perm[(s, template)][f"M{suffix}"] for s in subjects])
                observed = np.array([zeroed[(s, template)][variant] for s in subjects], float)
            tests.extend(
                _tests(
                    template,
                    variant,
                    part,
                    observed,
                    perm_f,
                    perm_m,
                    config.mean_interval_scheme(),
                )
            )
    marked_table = (
        pd.concat(marked, ignore_index=True) if marked else pd.DataFrame(columns=MW_COLUMNS)
    )
    return DescriptionResults(
        marked_words=marked_table,
        srb_scores=scores,
        srb_test=pd.DataFrame(tests, columns=_TEST_COLUMNS),
        excluded=pd.DataFrame(excluded, columns=["subject", "template", "step", "reason"]),
        word_sets=word_sets,
        chance=chance_table(every, applied, config.rule()),
    )
