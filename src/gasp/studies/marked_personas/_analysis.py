"""Every analysis of Marked Personas on a prepared frame (see :mod:`._frame`), per kind of
text (personas, stories): Marked Words, one-vs-rest SVMs, JSD top words, stereotype
lexicons, resilience, VADER sentiment; the refusals before all of them.

Marked Words comparisons (Section 3.2, as the authors' code does them):

* each marked value of an axis (Black; woman) against all texts of the axis's
  unmarked value (White; man);
* each unmarked value (White; man) against each marked value of its axis, a word
  significant in every comparison;
* each intersection of marked values (Black woman) against each axis's unmarked value
  (all White texts, all texts of men), significant in both.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from gasp._defaults import DEFAULT_THRESHOLD
from gasp.stats import (
    BOOTSTRAP,
    IntervalScheme,
    SignificanceRule,
    marked_words,
    reselect,
    study_rule,
)
from gasp.stats import chance_table as chance_table_of
from gasp.studies.marked_personas._jsd import jsd_top_words
from gasp.studies.marked_personas._lexicons import (
    COUNTINGS,
    DEFAULT_COUNTING,
    lexicon_rates,
    race_lexicons,
    resilience,
    word_presence,
)
from gasp.studies.marked_personas._model import Axis, MarkedPersonasStudy
from gasp.studies.marked_personas._sentiment import compound, group_sentiment, word_sentiment
from gasp.studies.marked_personas._svm import one_vs_rest_svm
from gasp.text import DocTermCounts, count_words


@dataclass(frozen=True)
class Settings:
    """The analysis settings (saved with the results)."""

    anonymizer: str = "paper"
    svm_seed: int = 42
    min_df: float = 0.001
    test_size: float = 0.2
    top_k: int = 10
    threshold: float = DEFAULT_THRESHOLD
    fdr: float | None = None
    fdr_scope: str = "comparison"
    refusal_patterns: tuple[str, ...] = ("language model",)
    exclude_refusals: bool = False
    lexicon_axis: str = "race"
    lexicon_counting: str = DEFAULT_COUNTING
    resilience_counting: str = "words"
    interval_draws: int = 1000
    interval_seed: int = 0

    def interval_scheme(self) -> IntervalScheme:
        """How lexicon rates, mean sentiment and SVM accuracies get their intervals: each
        is a mean of per-text values, so the texts are bootstrapped."""
        return IntervalScheme(BOOTSTRAP, self.interval_draws, self.interval_seed)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values, with the interval scheme's record under ``interval``."""
        values = {k: list(v) if isinstance(v, tuple) else v for k, v in vars(self).items()}
        return {**values, "interval": self.interval_scheme().record()}

    def rule(self) -> SignificanceRule:
        """The significance rule of Marked Words (a study-wide FDR still unresolved)."""
        return SignificanceRule(threshold=self.threshold, fdr=self.fdr, fdr_scope=self.fdr_scope)


@dataclass(frozen=True)
class Comparison:
    """One Marked Words target and its unmarked groups (name -> axis selector)."""

    group: str
    role: str  # marked | unmarked | intersectional
    target: dict[str, str]
    unmarked: dict[str, dict[str, str]] = field(default_factory=dict)


def comparisons(study: MarkedPersonasStudy) -> list[Comparison]:
    """The Marked Words comparisons of the study's axes (see the module docstring)."""
    out: list[Comparison] = []
    label = {a.name: {v.value: v.label for v in a.values} for a in study.axes}
    for axis in study.axes:
        base = {label[axis.name][axis.unmarked]: {axis.name: axis.unmarked}}
        out.append(
            Comparison(
                label[axis.name][axis.unmarked],
                "unmarked",
                {axis.name: axis.unmarked},
                {v.label: {axis.name: v.value} for v in axis.marked},
            )
        )
        out.extend(Comparison(v.label, "marked", {axis.name: v.value}, base) for v in axis.marked)
    if len(study.axes) > 1:
        for combo in itertools.product(*(a.marked for a in study.axes)):
            target = {a.name: v.value for a, v in zip(study.axes, combo, strict=True)}
            unmarked = {label[a.name][a.unmarked]: {a.name: a.unmarked} for a in study.axes}
            out.append(
                Comparison(" ".join(v.label for v in combo), "intersectional", target, unmarked)
            )
    return out


def _mask(frame: pd.DataFrame, selector: dict[str, str]) -> np.ndarray:
    mask = np.ones(len(frame), dtype=bool)
    for col, value in selector.items():
        mask &= frame[col].to_numpy() == value
    return mask


MarkedTables = list[tuple[Comparison, pd.DataFrame]]
"""The all-words Marked Words table of each comparison of one kind of text."""


def marked_tables(
    frame: pd.DataFrame, counts: DocTermCounts, study: MarkedPersonasStudy, s: Settings
) -> MarkedTables:
    """Every comparison's all-words table (significance within the comparison)."""
    out = []
    rule = s.rule()
    per_comparison = rule if rule.fdr_scope == "comparison" else SignificanceRule()
    for comp in comparisons(study):
        target = _mask(frame, comp.target)
        unmarked = {n: _mask(frame, sel) for n, sel in comp.unmarked.items()}
        if not target.any() or not all(m.any() for m in unmarked.values()):
            continue
        out.append(
            (comp, marked_words(counts, target, unmarked, rule=per_comparison, all_words=True))
        )
    return out


def _marked(tables: MarkedTables, rule: SignificanceRule) -> pd.DataFrame:
    rows = []
    for comp, every in tables:
        table = reselect(every, rule)
        records = zip(
            table["word"].tolist(),
            table["z_sum"].tolist(),
            table["count_target"].tolist(),
            strict=True,
        )
        for rank, (word, z_sum, count) in enumerate(records, start=1):
            rows.append(
                {
                    "group": comp.group,
                    "role": comp.role,
                    "rank": rank,
                    "word": word,
                    "z_sum": float(z_sum),
                    "count_target": int(count),
                    "against": ", ".join(comp.unmarked),
                }
            )
    return pd.DataFrame(
        rows, columns=["group", "role", "rank", "word", "z_sum", "count_target", "against"]
    )


def chance_table(
    tables: MarkedTables, rule: SignificanceRule, asked: SignificanceRule
) -> pd.DataFrame:
    """Tests and marked words expected by chance per comparison and for the kind (``all``).

    ``rule`` marked the words (a study-wide FDR resolved); ``asked`` is named in ``rule``.
    """
    groups = [((comp.group, comp.role), [table]) for comp, table in tables]
    return chance_table_of(groups, ("group", "role"), rule, asked)


def _svm(
    frame: pd.DataFrame, study: MarkedPersonasStudy, s: Settings
) -> tuple[pd.DataFrame, pd.DataFrame]:
    # Stratify on the stored values (the split depends on the order of the class labels:
    # stored values, as in the published data, reproduce the published top words).
    axes = [a.name for a in study.axes]
    groupings: dict[str, list[str]] = {a: frame[a].tolist() for a in axes}
    names: dict[str, str] = {}
    for a in study.axes:
        names.update({v.value: v.label for v in a.values})
    if len(axes) > 1:
        cross = [" ".join(row) for row in frame[axes].itertuples(index=False, name=None)]
        groupings[" x ".join(axes)] = cross
        names.update(dict(zip(cross, frame["group"], strict=True)))
    result = one_vs_rest_svm(
        frame["text"].tolist(),
        groupings,
        anonymizer=s.anonymizer,
        min_df=s.min_df,
        test_size=s.test_size,
        seed=s.svm_seed,
        top_k=s.top_k,
        label=lambda v: names.get(v, v),
        scheme=s.interval_scheme(),
    )
    return result.accuracy, result.top_words


def _jsd(
    frame: pd.DataFrame, counts: DocTermCounts, study: MarkedPersonasStudy, s: Settings
) -> pd.DataFrame:
    parts = []
    for comp in comparisons(study):
        if comp.role == "unmarked":
            continue
        target = _mask(frame, comp.target)
        for name, selector in comp.unmarked.items():
            base = _mask(frame, selector) & ~target
            if not target.any() or not base.any():
                continue
            top = jsd_top_words(
                counts.vocabulary, counts.totals(base), counts.totals(target), s.top_k
            )
            parts.append(top.assign(group=comp.group, role=comp.role, against=name))
    cols = ["group", "role", "against", "rank", "word", "contribution", "p_marked", "p_unmarked"]
    return pd.concat(parts, ignore_index=True)[cols] if parts else pd.DataFrame(columns=cols)


def _lexicon_axis(study: MarkedPersonasStudy, s: Settings) -> Axis:
    return next((a for a in study.axes if a.name == s.lexicon_axis), study.axes[0])


def _lexicons(
    frame: pd.DataFrame, study: MarkedPersonasStudy, s: Settings
) -> dict[str, pd.DataFrame]:
    axis = _lexicon_axis(study, s)
    labels = {v.value: v.label for v in axis.values}
    groups = [labels.get(v, v) for v in frame[axis.name]]
    texts = frame["text"].tolist()
    lexicons = race_lexicons()
    rates = pd.concat(
        [
            lexicon_rates(texts, groups, lexicons, c, s.interval_scheme()).assign(counting=c)
            for c in COUNTINGS
        ],
        ignore_index=True,
    )
    every = word_presence(texts, groups, [w for ws in lexicons.values() for w in ws])
    presence = pd.concat(
        [
            every[every["word"].isin({w.lower() for w in ws})]
            .set_index("word")
            .loc[list(dict.fromkeys(w.lower() for w in ws))]
            .reset_index()
            .assign(lexicon=name)
            for name, ws in lexicons.items()
        ],
        ignore_index=True,
    )
    return {
        "lexicon_rates": rates[
            [
                "counting",
                "lexicon",
                "group",
                "n",
                "mean_pct",
                "se_pct",
                "se_sd",
                "low_pct",
                "high_pct",
            ]
        ],
        "lexicon_words": presence[
            ["lexicon", "word", "group", "n", "share_containing", "per_text", "occurrences"]
        ],
        "resilience": resilience(texts, frame["group"].tolist(), s.resilience_counting),
    }


def _sentiment(
    frame: pd.DataFrame,
    counts: DocTermCounts,
    words: list[str],
    study: MarkedPersonasStudy,
    scheme: IntervalScheme,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    scores = compound(frame["text"].tolist())
    columns = [a.name for a in study.axes]
    if "model" in frame and frame["model"].nunique() > 1:
        columns.append("model")  # a table of several models: per model too
    by_axis = [group_sentiment(scores, [f"{c}: {v}" for v in frame[c]], scheme) for c in columns]
    groups = group_sentiment(scores, frame["group"].tolist(), scheme)
    table = pd.concat(
        [groups.iloc[:1], *(t.iloc[1:] for t in by_axis), groups.iloc[1:]], ignore_index=True
    )
    idx = counts.index_of(words)
    present = [(w, j) for w, j in zip(words, idx, strict=True) if j >= 0]
    columns = counts.matrix[:, [j for _, j in present]].tocsc()  # one slice for all words
    contains: dict[str, np.ndarray] = {}
    for k, (word, _) in enumerate(present):
        mask = np.zeros(counts.n_documents, dtype=bool)
        mask[columns.indices[columns.indptr[k] : columns.indptr[k + 1]]] = True
        contains[word] = mask
    return table, word_sentiment(words, contains, scores)


def analyze_kind(
    frame: pd.DataFrame,
    study: MarkedPersonasStudy,
    settings: Settings,
    marked_words_of: tuple[DocTermCounts, MarkedTables] | None = None,
    rule: SignificanceRule | None = None,
) -> dict[str, pd.DataFrame]:
    """Every table of one kind of text (the frame holds that kind only).

    ``marked_words_of`` (the counts and :func:`marked_tables` of ``frame``) and ``rule``
    (the rule that marks words, a study-wide FDR resolved over every kind) are computed
    from ``frame`` alone when not given.
    """
    if marked_words_of is None:
        counts = count_words(frame["text"].tolist())
        tables = marked_tables(frame, counts, study, settings)
    else:
        counts, tables = marked_words_of
    applied = rule if rule is not None else study_rule(settings.rule(), (t for _, t in tables))
    marked = _marked(tables, applied)
    accuracy, top = _svm(frame, study, settings)
    jsd = _jsd(frame, counts, study, settings)
    sentiment, words = _sentiment(
        frame, counts, sorted(set(marked["word"])), study, settings.interval_scheme()
    )
    return {
        "marked_words": marked,
        "chance_marked_words": chance_table(tables, applied, settings.rule()),
        "svm_accuracy": accuracy,
        "svm_top_words": top,
        "jsd_top_words": jsd,
        "sentiment": sentiment,
        "word_sentiment": words,
        **_lexicons(frame, study, settings),
    }


def word_table(marked: pd.DataFrame, top: pd.DataFrame) -> pd.DataFrame:
    """Table 3 style: per group its Marked Words (SVM top words marked with ``*``) and,
    in ``svm_only``, the SVM top words that are not Marked Words (the paper's grey words)."""
    svm_of: dict[str, list[str]] = {}
    for group, sub in top.groupby("group", sort=False):
        svm_of[str(group)] = sub.sort_values("rank")["word"].tolist()
    rows = []
    groups = list(dict.fromkeys([*marked["group"].tolist(), *svm_of]))
    for group in groups:
        sub = marked[marked["group"] == group]
        words = sub["word"].tolist()
        svm = svm_of.get(group, [])
        rows.append(
            {
                "group": group,
                "role": sub["role"].iloc[0] if len(sub) else "",
                "n_marked_words": len(words),
                "marked_words": ", ".join(words),
                "also_svm_top": ", ".join(w for w in words if w in svm),
                "svm_only": ", ".join(w for w in svm if w not in set(words)),
            }
        )
    return pd.DataFrame(
        rows,
        columns=["group", "role", "n_marked_words", "marked_words", "also_svm_top", "svm_only"],
    )
