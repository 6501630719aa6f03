"""Analysis units of the "how" analysis: their generations, marked words and SRB scores.

A unit is a subject (pooled over templates) or a subject and template; its generations
fall into the groups of :data:`GROUPS`. :class:`UnitAnalysis` computes the observed
marked words and SRB scores of a unit and, for :mod:`._descriptions`, the
bootstrap and permutation statistics (see that module for the method).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from gasp.stats import (
    Comparison,
    SignificanceRule,
    SRBResult,
    draw_weights,
    marked_words_many,
    reselect,
    srb_scores,
)
from gasp.studies.more_of_the_same.analysis._config import ALL_TEMPLATES, AnalysisConfig
from gasp.studies.more_of_the_same.analysis._name_free import NameFilter
from gasp.studies.more_of_the_same.analysis._prepare import PreparedRun
from gasp.studies.more_of_the_same.analysis._resampled import Pair, group_totals, marked_sets
from gasp.text import DocTermCounts, is_pronoun

GROUPS: tuple[str, ...] = ("AF", "AM", "F", "M", "N")
"""Group codes: associated women and men, named women, men and non-binary people."""

MW_COLUMNS = [
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
    "kind",
    "n_target",
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


Tables = dict[tuple[str, str], tuple[_Spec, pd.DataFrame]]
"""The marked-words table of each comparison of a unit, by (source, gender)."""


def unit_tables(unit: Unit, config: AnalysisConfig) -> Tables:
    """The all-words marked-words tables of every comparison of ``unit`` (one batch).

    Their ``significant`` column follows ``config`` within each comparison; a study-wide
    rule is decided afterwards over the tables of every unit (:mod:`._multiplicity`).
    """
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
    rule = SignificanceRule.from_options(config.threshold, config.fdr_alpha, config.min_count)
    tables = marked_words_many(
        unit.counts,
        comps,
        calibrated=config.calibrated,
        config=config.calibration,
        rule=rule,
        all_words=True,
    )
    return {(s.source, s.gender): (s, t) for s, t in zip(specs, tables, strict=True)}


def _word_set(table: pd.DataFrame) -> list[str]:
    return [str(w) for w in table.loc[table["significant"], "word"]]


def _srb_many(
    triples: Sequence[tuple[list[str], list[str], list[str]]], embeddings: Any
) -> list[SRBResult]:
    """``SRB(S || S_F, S_M)`` of many triples (pronouns removed by the SRB function)."""
    if not triples:
        return []
    return srb_scores(triples, embeddings, remove_pronouns=True)


Removed = tuple[int, int, int, int]
"""Names and gender terms removed from ``S``, then from ``A`` and ``B`` together."""


class UnitAnalysis:
    """Observed marked words and SRB scores of one unit, plus its resampling statistics.

    ``scores`` holds the paper's SRB per associated gender, ``free_scores`` the name-free
    variant (person names and gender terms removed, see :mod:`._name_free`) and
    ``removed`` the names and gender terms that variant removed. ``tables`` (the
    all-words tables of :func:`unit_tables`) are computed when not given; the words
    significant under ``config``'s rule are kept.
    """

    def __init__(
        self,
        unit: Unit,
        config: AnalysisConfig,
        embeddings: Any,
        names: NameFilter | None = None,
        tables: Tables | None = None,
    ) -> None:
        self.unit = unit
        self.config = config
        self.embeddings = embeddings
        self.names = (
            names if names is not None else NameFilter(config.extra_gender_terms, config.name_ratio)
        )
        every = tables if tables is not None else unit_tables(unit, config)
        self.tables = {key: (spec, reselect(t, config.rule())) for key, (spec, t) in every.items()}
        self.sets = {key: _word_set(t) for key, (_, t) in self.tables.items()}
        s_f = self.sets.get(("named", "F"), [])
        s_m = self.sets.get(("named", "M"), [])
        paper = [(self.sets.get(("associated", g), []), s_f, s_m) for g in ("F", "M")]
        free_f, names_f, terms_f = self.names.split(s_f)
        free_m, names_m, terms_m = self.names.split(s_m)
        free: list[tuple[list[str], list[str], list[str]]] = []
        self.removed: dict[str, Removed] = {}
        for g, (s, _, _) in zip(("F", "M"), paper, strict=True):
            kept, n_names, n_terms = self.names.split(s)
            free.append((kept, free_f, free_m))
            self.removed[g] = (n_names, n_terms, names_f + names_m, terms_f + terms_m)
        results = _srb_many(paper + free, embeddings)
        self.scores = dict(zip(("F", "M"), results[:2], strict=True))
        self.free_scores = dict(zip(("F", "M"), results[2:], strict=True))

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
                        "kind": self.names.kinds(words),
                        "n_target": self.unit.size(spec.target),
                    }
                )
            )
        if not parts:
            return pd.DataFrame(columns=MW_COLUMNS)
        return pd.concat(parts, ignore_index=True)[MW_COLUMNS]

    def bootstrap(self, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """SRB scores per associated gender of each resampled draw (NaN where undefined).

        The draws follow :meth:`AnalysisConfig.srb_interval_scheme`: each draw keeps a
        share of every group's generations (``b`` in the first half of the draws,
        ``sqrt(b)`` in the second, in that order), chosen without replacement
        (the unit's other generations, which feed the topic prior, too), so that no
        generation is repeated and the marked word sets are those of a real smaller
        sample. The interval is made from these draws by :func:`gasp.stats.interval_from_draws`.
        """
        scheme = self.config.srb_interval_scheme()
        n_boot = scheme.draws
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
        for gi, g in enumerate(names):
            drawn = draw_weights(scheme, rng, int(members[g].size))
            weights[np.ix_(np.arange(n_boot) * n_groups + gi, members[g])] = drawn
            weights[n_boot * n_groups :, members[g]] += drawn
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

        Keys ``F`` and ``M`` hold the paper's SRB, ``F_names_removed`` and
        ``M_names_removed`` the name-free variant of the same shuffles. An empty
        associated word set counts as a score of 0 (see the module notes).
        """
        n_perm = self.config.n_permutations
        keys = ("F", "M", "F_names_removed", "M_names_removed")
        if n_perm == 0:
            return {k: np.empty(0) for k in keys}
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
        free_f, free_m = self.names.keep(s_f), self.names.keep(s_m)
        triples += [(self.names.keep(words), free_f, free_m) for words in sets]
        scores = np.array(
            [zero_if_empty(r) for r in _srb_many(triples, self.embeddings)], dtype=float
        )
        paper, free = scores[: 2 * n_perm], scores[2 * n_perm :]
        return dict(zip(keys, (paper[0::2], paper[1::2], free[0::2], free[1::2]), strict=True))


def zero_if_empty(result: SRBResult) -> float:
    """The score, or 0 when only the candidate set is empty (no word sets the gender apart)."""
    if result.n_s == 0 and result.n_a > 0 and result.n_b > 0:
        return 0.0
    return float(result.score)
