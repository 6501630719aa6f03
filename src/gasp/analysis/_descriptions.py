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

Beyond the paper, each score gets a percentile bootstrap interval (generations
resampled with replacement within each of the five groups, marked words and SRB
recomputed; seeded), and a permutation test shuffles the associated labels ``F``/``M``
among each unit's associated generations (named word sets fixed) and recomputes both
scores. Its statistic is the mean over units of ``score_F - score_M``; an associated
word set left empty (no marked word besides pronouns: nothing sets the gender apart)
counts as a score of 0, so the statistic is defined for every shuffle; units whose
named word sets are empty take no part. The p-value is
``(1 + #{|stat_perm| >= |stat_obs|}) / (1 + P)``.

Tables (names from :mod:`gasp.analysis._results`):

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
    generations of that gender), ci_low, ci_high (percentile bootstrap interval, NaN
    without bootstrap), boot_mean (mean of the bootstrap scores), n_bootstrap (resamples
    whose score was defined), reason (empty when the score is defined, else why not).
    The SRB score is not a smooth statistic: a resample repeats generations, which lets
    more words pass the threshold, and larger word sets have smaller Chamfer distances,
    so bootstrap scores lean toward 0. ``boot_mean - score`` shows that shift; read the
    interval as the spread of the score under resampling, not as an unbiased interval
    around it.

``srb_test`` (:data:`SRB_TEST`), one row per test (and template when not pooled):
    template, test (``welch`` or ``permutation``), statistic (Welch: t of the scores of
    associated women minus men; permutation: mean over units of ``score_F - score_M``
    with empty associated sets as 0), p_value, df (Welch only), n_subjects_F,
    n_subjects_M (units taking part), mean_F, mean_M, n_permutations (shuffles run; 0
    for Welch), reason (empty when the test is defined, else why not).

``excluded_subjects`` (:data:`EXCLUDED`):
    subject, template, step (``how``), reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from gasp.analysis._config import ALL_TEMPLATES, AnalysisConfig
from gasp.analysis._prepare import PreparedRun
from gasp.analysis._resampled import Pair, group_totals, marked_sets
from gasp.errors import ConfigError
from gasp.stats import (
    Comparison,
    SignificanceRule,
    SRBResult,
    marked_words_many,
    srb_scores,
    welch_t_test,
)
from gasp.text import DocTermCounts, is_pronoun

GROUPS: tuple[str, ...] = ("AF", "AM", "F", "M", "N")
"""Group codes: associated women and men, named women, men and non-binary people."""

_MW_COLUMNS = [
    "subject",
    "template",
    "source",
    "gender",
    "against",
    "word",
    "count_target",
    "z_sum",
    "z_min",
    "is_pronoun",
    "n_target",
]
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
    "reason",
]
_TEST_COLUMNS = [
    "template",
    "test",
    "statistic",
    "p_value",
    "df",
    "n_subjects_F",
    "n_subjects_M",
    "mean_F",
    "mean_M",
    "n_permutations",
    "reason",
]


@dataclass(frozen=True)
class Unit:
    """The generations of one analysis unit: local counts and one mask per group."""

    subject: str
    template: str
    counts: DocTermCounts
    masks: dict[str, np.ndarray]

    def size(self, group: str) -> int:
        """Number of generations of ``group``."""
        return int(self.masks[group].sum())


@dataclass(frozen=True)
class _Spec:
    """One marked-words comparison of a unit: target group against unmarked groups."""

    source: str
    gender: str
    target: str
    unmarked: tuple[str, ...]


_SPECS: tuple[_Spec, ...] = (
    _Spec("named", "F", "F", ("M",)),
    _Spec("named", "N", "N", ("M",)),
    _Spec("named", "M", "M", ("F", "N")),
    _Spec("associated", "F", "AF", ("AM",)),
    _Spec("associated", "M", "AM", ("AF",)),
)


@dataclass
class DescriptionResults:
    """Tables of the "how" analysis and the word sets behind them."""

    marked_words: pd.DataFrame
    srb_scores: pd.DataFrame
    srb_test: pd.DataFrame
    excluded: pd.DataFrame
    word_sets: dict[tuple[str, str], dict[tuple[str, str], list[str]]] = field(default_factory=dict)


def _group_codes(run: PreparedRun) -> np.ndarray:
    named = run.named
    assoc = run.associated
    codes = np.where(named != "", named, "")
    codes = np.where((named == "") & (assoc == "F"), "AF", codes)
    codes = np.where((named == "") & (assoc == "M"), "AM", codes)
    return codes.astype(object)


def _local_counts(counts: DocTermCounts, rows: np.ndarray) -> DocTermCounts:
    """The counts of ``rows`` over the words those rows use (sorted vocabulary kept)."""
    sub = counts.matrix[rows]
    cols = np.unique(sub.indices)
    return DocTermCounts(matrix=sub[:, cols].tocsr(), vocabulary=counts.vocabulary[cols])


def build_units(
    run: PreparedRun, config: AnalysisConfig
) -> tuple[list[Unit], list[dict[str, str]]]:
    """The eligible analysis units of ``run`` and the excluded ones with their reason."""
    codes = _group_codes(run)
    frame = run.samples
    keys = ["subject"] if config.pool_templates else ["subject", "template"]
    units: list[Unit] = []
    excluded: list[dict[str, str]] = []
    for key, index in frame.groupby(keys, sort=True).indices.items():
        parts: tuple[object, ...] = key if isinstance(key, tuple) else (key,)
        subject = str(parts[0])
        template = ALL_TEMPLATES if config.pool_templates else str(parts[1])
        rows = np.asarray(index, dtype=np.int64)
        unit_codes = codes[rows]
        n = {g: int((unit_codes == g).sum()) for g in GROUPS}
        n_unspecified = int((run.named[rows] == "").sum())
        reason = ""
        if n_unspecified == 0:
            reason = "no generations with the gender unspecified"
        elif min(n["AF"], n["AM"]) < config.min_samples:
            reason = (
                f"fewer than n={config.min_samples} associated generations "
                f"(women {n['AF']}, men {n['AM']})"
            )
        elif min(n["AF"], n["AM"]) < config.min_share * n_unspecified:
            reason = (
                f"an associated gender below {config.min_share:.0%} of the unspecified "
                f"generations (women {n['AF']}, men {n['AM']} of {n_unspecified})"
            )
        elif n["F"] == 0 or n["M"] == 0:
            reason = f"no generations naming women ({n['F']}) or men ({n['M']})"
        if reason:
            excluded.append(
                {"subject": subject, "template": template, "step": "how", "reason": reason}
            )
            continue
        counts = _local_counts(run.counts, rows)
        masks = {g: unit_codes == g for g in GROUPS}
        units.append(Unit(subject=subject, template=template, counts=counts, masks=masks))
    return units, excluded


def _specs_for(masks: dict[str, np.ndarray]) -> list[_Spec]:
    out = []
    for spec in _SPECS:
        if not masks[spec.target].any():
            continue
        unmarked = tuple(g for g in spec.unmarked if masks[g].any())
        if not unmarked:
            continue
        out.append(_Spec(spec.source, spec.gender, spec.target, unmarked))
    return out


def _marked_tables(
    counts: DocTermCounts,
    comparisons: Sequence[Comparison],
    config: AnalysisConfig,
) -> list[pd.DataFrame]:
    """Marked words of many comparisons over the same counts (batched when calibrated)."""
    rule = SignificanceRule.from_options(config.threshold, config.fdr_alpha, config.min_count)
    return marked_words_many(
        counts, comparisons, calibrated=config.calibrated, config=config.calibration, rule=rule
    )


def _word_set(table: pd.DataFrame) -> list[str]:
    return [str(w) for w in table.loc[table["significant"], "word"]]


def _srb_many(
    triples: Sequence[tuple[list[str], list[str], list[str]]], embeddings: Any
) -> list[SRBResult]:
    """``SRB(S || S_F, S_M)`` of many triples (pronouns removed by the SRB function)."""
    if not triples:
        return []
    return srb_scores(triples, embeddings, remove_pronouns=True)


def _load_embeddings(config: AnalysisConfig) -> Any:
    if not isinstance(config.embeddings, str):
        return config.embeddings
    from gasp.embeddings import load_embeddings

    return load_embeddings(config.embeddings)


class _UnitAnalysis:
    """Observed marked words and SRB scores of one unit, plus its resampling statistics."""

    def __init__(self, unit: Unit, config: AnalysisConfig, embeddings: Any) -> None:
        self.unit = unit
        self.config = config
        self.embeddings = embeddings
        specs = _specs_for(unit.masks)
        comps = [
            Comparison(
                target=unit.masks[s.target],
                unmarked={g: unit.masks[g] for g in s.unmarked},
                topic=np.ones(unit.counts.n_documents, dtype=bool),
                name=f"{unit.subject}/{s.source}/{s.gender}",
            )
            for s in specs
        ]
        tables = _marked_tables(unit.counts, comps, config)
        self.tables = {(s.source, s.gender): (s, t) for s, t in zip(specs, tables, strict=True)}
        self.sets = {key: _word_set(t) for key, (_, t) in self.tables.items()}
        s_f = self.sets.get(("named", "F"), [])
        s_m = self.sets.get(("named", "M"), [])
        results = _srb_many(
            [(self.sets.get(("associated", g), []), s_f, s_m) for g in ("F", "M")], embeddings
        )
        self.scores = dict(zip(("F", "M"), results, strict=True))

    def marked_rows(self) -> pd.DataFrame:
        """The long marked-words rows of this unit."""
        parts = []
        for (source, gender), (spec, table) in self.tables.items():
            if table.empty:
                continue
            zcols = [f"z_{g}" for g in spec.unmarked]
            words = table["word"].astype(str).tolist()
            parts.append(
                pd.DataFrame(
                    {
                        "subject": self.unit.subject,
                        "template": self.unit.template,
                        "source": source,
                        "gender": gender,
                        "against": "+".join(spec.unmarked),
                        "word": words,
                        "count_target": table["count_target"].to_numpy(),
                        "z_sum": table["z_sum"].to_numpy(),
                        "z_min": table[zcols].min(axis=1).to_numpy(),
                        "is_pronoun": is_pronoun(words),
                        "n_target": self.unit.size(spec.target),
                    }
                )
            )
        if not parts:
            return pd.DataFrame(columns=_MW_COLUMNS)
        return pd.concat(parts, ignore_index=True)[_MW_COLUMNS]

    def bootstrap(self, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """Bootstrap SRB scores per associated gender (NaN where undefined).

        Each resample draws, with replacement, as many generations as each group has
        from that group (the unit's other generations, which feed the topic prior, too).
        """
        n_boot = self.config.n_bootstrap
        if n_boot == 0:
            return {g: np.empty(0) for g in ("F", "M")}
        unit = self.unit
        n_rows = unit.counts.n_documents
        in_group = np.zeros(n_rows, dtype=bool)
        for g in GROUPS:
            in_group |= unit.masks[g]
        members = {g: np.flatnonzero(unit.masks[g]) for g in GROUPS}
        members["other"] = np.flatnonzero(~in_group)
        names = [g for g in (*GROUPS, "other") if members[g].size]
        n_groups = len(names)
        weights = np.zeros((n_boot * n_groups + n_boot, n_rows), dtype=np.float64)
        for b in range(n_boot):
            for gi, g in enumerate(names):
                draw = rng.choice(members[g], size=members[g].size)
                weights[b * n_groups + gi] = np.bincount(draw, minlength=n_rows)
            weights[n_boot * n_groups + b] = weights[b * n_groups : (b + 1) * n_groups].sum(0)
        totals = group_totals(unit.counts, weights)
        specs = _specs_for(unit.masks)
        row = {g: gi for gi, g in enumerate(names)}
        pairs = [
            Pair(
                comparison=b * len(specs) + si,
                target=b * n_groups + row[spec.target],
                unmarked=b * n_groups + row[u],
                topic=n_boot * n_groups + b,
            )
            for b in range(n_boot)
            for si, spec in enumerate(specs)
            for u in spec.unmarked
        ]
        sets = marked_sets(unit.counts.vocabulary, totals, pairs, n_boot * len(specs), self.config)
        triples: list[tuple[list[str], list[str], list[str]]] = []
        for b in range(n_boot):
            found = {
                (spec.source, spec.gender): list(sets[b * len(specs) + si])
                for si, spec in enumerate(specs)
            }
            s_f = found.get(("named", "F"), [])
            s_m = found.get(("named", "M"), [])
            triples.extend((found.get(("associated", g), []), s_f, s_m) for g in ("F", "M"))
        scores = np.array([r.score for r in _srb_many(triples, self.embeddings)], dtype=np.float64)
        return {"F": scores[0::2], "M": scores[1::2]}

    def permutations(self, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """SRB scores per associated gender after shuffling the associated labels.

        An empty associated word set counts as a score of 0 (see the module notes).
        """
        n_perm = self.config.n_permutations
        if n_perm == 0:
            return {g: np.empty(0) for g in ("F", "M")}
        unit = self.unit
        pool = np.flatnonzero(unit.masks["AF"] | unit.masks["AM"])
        n_f = unit.size("AF")
        n_rows = unit.counts.n_documents
        weights = np.zeros((2 * n_perm + 1, n_rows), dtype=np.float64)
        for p in range(n_perm):
            shuffled = rng.permutation(pool)
            weights[2 * p, shuffled[:n_f]] = 1.0
            weights[2 * p + 1, shuffled[n_f:]] = 1.0
        weights[2 * n_perm] = 1.0
        totals = group_totals(unit.counts, weights)
        topic = 2 * n_perm
        pairs = []
        for p in range(n_perm):
            pairs.append(Pair(2 * p, 2 * p, 2 * p + 1, topic))
            pairs.append(Pair(2 * p + 1, 2 * p + 1, 2 * p, topic))
        sets = marked_sets(unit.counts.vocabulary, totals, pairs, 2 * n_perm, self.config)
        s_f = self.sets.get(("named", "F"), [])
        s_m = self.sets.get(("named", "M"), [])
        triples = [(list(words), s_f, s_m) for words in sets]
        scores = np.array(
            [_zero_if_empty(r) for r in _srb_many(triples, self.embeddings)], dtype=float
        )
        return {"F": scores[0::2], "M": scores[1::2]}


def _zero_if_empty(result: SRBResult) -> float:
    """The score, or 0 when only the candidate set is empty (no word sets the gender apart)."""
    if result.n_s == 0 and result.n_a > 0 and result.n_b > 0:
        return 0.0
    return float(result.score)


def _welch(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float, str]:
    """Welch's t (a minus b), p-value, degrees of freedom; NaN and the reason where undefined."""
    result = welch_t_test(a, b, unit="subjects")
    return float(result.t), float(result.p_value), float(result.df), result.reason or ""


def _tests(
    template: str,
    scores: pd.DataFrame,
    observed: np.ndarray | None,
    perm_f: np.ndarray | None,
    perm_m: np.ndarray | None,
) -> list[dict[str, object]]:
    """Welch's t-test across units and, with shuffles, the permutation test."""
    f = scores.loc[scores["gender"] == "F", "score"].to_numpy(dtype=float)
    m = scores.loc[scores["gender"] == "M", "score"].to_numpy(dtype=float)
    t, p, df, reason = _welch(f, m)

    def _mean(x: np.ndarray) -> float:
        return float(np.nanmean(x)) if np.isfinite(x).any() else float("nan")

    rows: list[dict[str, object]] = [
        {"template": template, "test": "welch", "statistic": t, "p_value": p, "df": df,
         "n_subjects_F": int(np.isfinite(f).sum()), "n_subjects_M": int(np.isfinite(m).sum()),
         "mean_F": _mean(f), "mean_M": _mean(m), "n_permutations": 0, "reason": reason}
    ]  # fmt: skip
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
            {"template": template, "test": "permutation", "statistic": stat, "p_value": p_perm,
             "df": float("nan"), "n_subjects_F": int(keep.sum()), "n_subjects_M": int(keep.sum()),
             "mean_F": _mean(observed[keep, 0]), "mean_M": _mean(observed[keep, 1]),
             "n_permutations": n_perm,
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
    seeds = np.random.SeedSequence(config.seed).spawn(max(len(units), 1))
    marked: list[pd.DataFrame] = []
    srb_rows: list[dict[str, object]] = []
    perm: dict[tuple[str, str], dict[str, np.ndarray]] = {}
    zeroed: dict[tuple[str, str], tuple[float, float]] = {}
    word_sets: dict[tuple[str, str], dict[tuple[str, str], list[str]]] = {}
    alpha = 1.0 - config.ci_level
    for unit, seed in zip(units, seeds, strict=False):
        boot_rng, perm_rng = (np.random.default_rng(s) for s in seed.spawn(2))
        analysis = _UnitAnalysis(unit, config, emb)
        marked.append(analysis.marked_rows())
        word_sets[(unit.subject, unit.template)] = analysis.sets
        boot = analysis.bootstrap(boot_rng)
        perm[(unit.subject, unit.template)] = analysis.permutations(perm_rng)
        zeroed[(unit.subject, unit.template)] = (
            _zero_if_empty(analysis.scores["F"]),
            _zero_if_empty(analysis.scores["M"]),
        )
        for g in ("F", "M"):
            sc = analysis.scores[g]
            b = boot[g][np.isfinite(boot[g])]
            lo, hi = np.quantile(b, [alpha / 2, 1 - alpha / 2]) if b.size else (np.nan, np.nan)
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
                    "reason": sc.reason or "",
                }
            )
    scores = pd.DataFrame(srb_rows, columns=_SRB_COLUMNS)
    tests: list[dict[str, object]] = []
    for template in sorted(scores["template"].unique()) if len(scores) else []:
        part = scores[scores["template"] == template]
        subjects = part["subject"].unique()
        perm_f = perm_m = observed = None
        if config.n_permutations > 0:
            perm_f = np.stack([perm[(s, template)]["F"] for s in subjects])
            perm_m = np.stack([perm[(s, template)]["M"] for s in subjects])
            observed = np.array([zeroed[(s, template)] for s in subjects], dtype=float)
        tests.extend(_tests(template, part, observed, perm_f, perm_m))
    marked_table = (
        pd.concat(marked, ignore_index=True) if marked else pd.DataFrame(columns=_MW_COLUMNS)
    )
    return DescriptionResults(
        marked_words=marked_table,
        srb_scores=scores,
        srb_test=pd.DataFrame(tests, columns=_TEST_COLUMNS),
        excluded=pd.DataFrame(excluded, columns=["subject", "template", "step", "reason"]),
        word_sets=word_sets,
    )
