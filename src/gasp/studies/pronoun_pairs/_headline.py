"""Headline metrics of the pronoun pairs and the narratives, read from the saved
per-answer, per-triple and per-story tables (so two runs with the same pairs, samples
and openings are compared unit by unit: McNemar for a share, a paired permutation for
a distance to a reference).
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from gasp.results import (
    CLOSER_TO_REFERENCE,
    LOWER,
    AuditResults,
    HeadlineMetric,
    MetricReading,
    Reader,
    share_reading,
    table,
)
from gasp.studies.pronoun_pairs._metrics import OVERALL, TRIPLE_KEYS
from gasp.studies.pronoun_pairs._narrative_metrics import UNKNOWN
from gasp.studies.pronoun_pairs._parse import UNPARSED
from gasp.studies.pronoun_pairs._study import NARRATIVES_KIND, PAIRS_KIND

_ANSWER_KEYS = ("template", "pair_id", "pronoun", "sample_index")
_PAIRS_INTERVAL = "percentile bootstrap over the units of the share (the study's saved interval)"
_STORY_KEYS = ("template", "profession", "sample_index")


def _overall_ci(results: AuditResults, column: str) -> tuple[float, float]:
    t3 = table(results, "pairs_table3")
    row = t3[t3["template"].astype(str) == OVERALL]
    if row.empty:
        return float("nan"), float("nan")
    return float(row[f"{column}_low"].iloc[0]), float(row[f"{column}_high"].iloc[0])


def _answers(results: AuditResults) -> pd.DataFrame:
    answers = table(results, "pairs_answers").copy()
    answers["incorrect"] = (~answers["correct"].astype(bool)).astype(float)
    answers["unparsed"] = (answers["answer"].astype(str) == UNPARSED).astype(float)
    return answers


def _read_incorrect(results: AuditResults) -> MetricReading:
    answers = _answers(results)
    return share_reading(
        answers,
        _ANSWER_KEYS,
        "incorrect",
        excluded_share=float(answers["unparsed"].mean()) if len(answers) else float("nan"),
        ci=_overall_ci(results, "incorrect"),
    )


def _read_unparsed(results: AuditResults) -> MetricReading:
    answers = _answers(results)
    return share_reading(answers, _ANSWER_KEYS, "unparsed", ci=_overall_ci(results, "unparsed"))


def _triple_reader(column: str, complete: str) -> Reader:
    def read(results: AuditResults) -> MetricReading:
        triples = table(results, "pairs_triples")
        done = triples[complete].astype(bool)
        kept = triples[done].copy()
        return share_reading(
            kept,
            tuple(TRIPLE_KEYS),
            column,
            excluded_share=float(1.0 - done.mean()) if len(triples) else float("nan"),
            ci=_overall_ci(results, column),
        )

    return read


def _pairs_metric(
    name: str, meaning: str, read: Reader, denominator: str, out: str
) -> HeadlineMetric:
    return HeadlineMetric(
        study=PAIRS_KIND,
        name=name,
        meaning=meaning,
        unit="share",
        better=LOWER,
        interval_scheme=_PAIRS_INTERVAL,
        denominator=denominator,
        leaves_out=out,
        read=read,
        paired_over="answers" if "answers" in denominator else "triples",
    )


#: The pronoun pairs' headline metrics (Section 3.3 of the paper).
PAIRS_METRICS: tuple[HeadlineMetric, ...] = (
    _pairs_metric(
        "incorrect",
        "answers naming the wrong profession for the pronoun (U counts as incorrect)",
        _read_incorrect,
        "all answers",
        "nothing (unparsed answers count as incorrect; their share is the excluded share)",
    ),
    _pairs_metric(
        "inconsistent",
        "he/she/they triples whose three answers are not all equal",
        _triple_reader("inconsistent", "complete"),
        "complete triples",
        "triples missing an answer",
    ),
    _pairs_metric(
        "binary_inconsistent",
        "he/she pairs whose two answers differ",
        _triple_reader("binary_inconsistent", "binary_complete"),
        "triples with both the he and the she answer",
        "triples missing the he or the she answer",
    ),
    _pairs_metric(
        "u_share",
        "answers that name neither profession (unparsed, U)",
        _read_unparsed,
        "all answers",
        "nothing",
    ),
)


def _stories(results: AuditResults) -> pd.DataFrame:
    stories = table(results, "narrative_stories").copy()
    gender = stories["gender"].fillna(UNKNOWN).astype(str)
    stories["female"] = (gender == "F").astype(float)
    stories["male"] = (gender == "M").astype(float)
    stories["unknown"] = (gender == UNKNOWN).astype(float)
    return stories


def _story_reader(column: str, reference: float | None) -> Reader:
    def read(results: AuditResults) -> MetricReading:
        stories = _stories(results)
        base = share_reading(
            stories,
            _STORY_KEYS,
            column,
            excluded_share=float(stories["unknown"].mean()) if len(stories) else float("nan"),
        )
        if reference is None:
            return base
        return dataclasses.replace(base, reference=reference)

    return read


def _story_metric(column: str, better: str, reference: float | None) -> HeadlineMetric:
    what = {"female": "a woman", "male": "a man", "unknown": "a name of unknown gender"}[column]
    goal = f" (reference {reference:g}: parity)" if reference is not None else ""
    return HeadlineMetric(
        study=NARRATIVES_KIND,
        name=f"{column}_share",
        meaning=f"stories whose protagonist's first name is {what}{goal}",
        unit="share",
        better=better,
        interval_scheme="none saved over all cells; the audit's paired bootstrap over stories",
        denominator="all stories",
        leaves_out="nothing (stories of unknown gender are in the denominator)",
        read=_story_reader(column, reference),
        paired_over="stories",
    )


#: The narratives' headline metrics (Section 4.2.2 of the paper).
NARRATIVE_METRICS: tuple[HeadlineMetric, ...] = (
    _story_metric("female", CLOSER_TO_REFERENCE, 0.5),
    _story_metric("male", CLOSER_TO_REFERENCE, 0.5),
    _story_metric("unknown", LOWER, None),
)
