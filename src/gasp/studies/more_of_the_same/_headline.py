"""More of the Same's headline metrics, read from the saved ``representation``,
``srb_scores``, ``chance_marked_words`` and ``capture_rate`` tables.

The representation and SRB metrics are statistics of per-occupation (per occupation
and gender) rows, so two runs over the same occupations are compared by a paired test
over occupations; the marked-word count and the capture rate are counts, compared by
a Poisson-rate and a two-proportion test.
"""

from __future__ import annotations

import pandas as pd
from scipy.stats import chi2

from gasp.results import (
    HIGHER,
    LOWER,
    AuditResults,
    HeadlineMetric,
    MetricReading,
    Reader,
    Statistic,
    mean_of,
    table,
)
from gasp.studies.more_of_the_same._gasp_run import GASP_RUN
from gasp.studies.more_of_the_same._model import STUDY_KIND

#: The template label of rows pooled over every template.
_ALL = "all"
#: The range of a mean of absolute values.
_NON_NEGATIVE = (0.0, float("inf"))


def _pooled(frame: pd.DataFrame) -> pd.DataFrame:
    rows = frame[frame["template"].astype(str) == _ALL]
    return (rows if len(rows) else frame).reset_index(drop=True)


def _representation(results: AuditResults) -> pd.DataFrame:
    rep = _pooled(table(results, "representation"))
    rep = rep.assign(
        gap=pd.to_numeric(rep["pct_female"], errors="coerce")
        - pd.to_numeric(rep["bls_pct_female"], errors="coerce")
    )
    rep["abs_gap"] = rep["gap"].abs()
    return rep.dropna(subset=["gap"]).reset_index(drop=True)


def _unassigned(rep: pd.DataFrame) -> float:
    n = pd.to_numeric(rep["n_generations"]).sum()
    return float(pd.to_numeric(rep["n_unassigned"]).sum() / n) if n else float("nan")


def _bls_reader(column: str) -> Reader:
    def read(results: AuditResults) -> MetricReading:
        rep = _representation(results)
        stat: Statistic = mean_of(column)
        return MetricReading(
            value=stat(rep),
            n=len(rep),
            excluded_share=_unassigned(rep),
            units=rep[["subject", column]],
            unit_keys=("subject",),
            statistic=stat,
            bounds=_NON_NEGATIVE if column == "abs_gap" else None,
        )

    return read


def _srb_reader(column: str) -> Reader:
    def read(results: AuditResults) -> MetricReading:
        scores = _pooled(table(results, "srb_scores"))
        values = pd.to_numeric(scores[column], errors="coerce")
        kept = scores.assign(abs_srb=values.abs())[values.notna()]
        stat: Statistic = mean_of("abs_srb")
        return MetricReading(
            value=stat(kept),
            n=len(kept),
            excluded_share=float(1.0 - len(kept) / len(scores)) if len(scores) else float("nan"),
            units=kept[["subject", "gender", "abs_srb"]],
            unit_keys=("subject", "gender"),
            statistic=stat,
            bounds=_NON_NEGATIVE,
            note="" if len(kept) else _no_score(results, scores, column.replace("score", "reason")),
        )

    return read


def _no_score(results: AuditResults, scores: pd.DataFrame, reason: str) -> str:
    """Why no SRB score of a run is defined, in words (the saved ``reason`` column, or
    why each occupation was left out of the SRB step)."""
    if scores.empty:
        left = results.get("excluded_subjects")
        whys = (
            "; ".join(
                f"{row.subject}: {row.reason}"
                for row in left.itertuples()
                if str(row.step) == "how" and str(row.template) == _ALL
            )
            if left is not None and not left.empty
            else ""
        )
        return (
            "no SRB score: every occupation was left out of the SRB step"
            + (f" ({whys})" if whys else "")
            + "; "
            + GASP_RUN.sentence()
        )
    notes = scores.get(reason, pd.Series(dtype=object)).dropna().astype(str)
    first = notes[notes.str.len() > 0]
    why = f" ({first.iloc[0]})" if len(first) else ""
    return (
        f"none of the {len(scores)} SRB scores is defined: each needs significant words "
        f"with a vector on both sides{why}; {GASP_RUN.sentence()}"
    )


def _read_marked(results: AuditResults) -> MetricReading:
    chance = table(results, "chance_marked_words")
    rows = chance[chance["source"].astype(str) == _ALL]
    rows = rows if len(rows) else chance
    count = float(pd.to_numeric(rows["marked_words"]).sum())
    tests = float(pd.to_numeric(rows["n_tests"]).sum())
    expected = float(pd.to_numeric(rows["expected_by_chance"]).sum())
    if tests <= 0:
        # no comparison could be made (a model that writes one gender only): not tested
        return MetricReading(
            value=float("nan"),
            n=0,
            count=0.0,
            total=0.0,
            kind="rate",
            note="no word tested: no comparison had texts of both sides with words above the "
            f"study's minimum count; {GASP_RUN.sentence()}",
        )
    # the exact (Garwood) interval of a Poisson count: [0, 3.69] for a count of 0
    low = float(chi2.ppf(0.025, 2 * count) / 2) if count > 0 else 0.0
    high = float(chi2.ppf(0.975, 2 * count + 2) / 2)
    return MetricReading(
        value=count - expected,
        ci_low=float(low) - expected,
        ci_high=float(high) - expected,
        n=int(tests),
        count=count,
        total=tests,
        offset=expected,
        kind="rate",
        note=(
            f"{count:.0f} words marked in {tests:,.0f} word tests; {expected:.1f} expected "
            "by chance if every test passed at the rule's nominal rate"
        ),
    )


def _read_capture(results: AuditResults) -> MetricReading:
    rows = _pooled(table(results, "capture_rate"))
    # nothing is excluded: a text whose gender is not captured counts against the rate
    captured = float(pd.to_numeric(rows["n_captured"]).sum())
    return MetricReading.proportion(captured, float(pd.to_numeric(rows["n_generations"]).sum()))


#: Per-occupation standard deviation (percentage points) of the paired differences in a
#: share of women that an audit plan assumes without a pilot: the binomial noise of two
#: runs' shares of tens of texts each, with room for a real per-occupation change.
SHARE_UNIT_SD = 15.0
#: One unit of the SRB comparisons: the SRB score of one occupation's texts associated
#: with one gender (up to two per occupation: women and men).
SRB_UNITS = "(occupation, associated gender) SRB scores"
#: What a plan counts for them: occupations, planned on one score each (the other
#: gender's score may be undefined), so the detectable difference is an upper bound.
SRB_PLANNED_OVER = (
    "occupations (up to 2 (occupation, associated gender) SRB scores each; planned on 1)"
)
_BOOT = (
    "expanded percentile bootstrap over the run's occupations; differences: the audit's "
    "paired resampling of occupations"
)

#: More of the Same's headline metrics, in the scorecard's order.
HEADLINE_METRICS: tuple[HeadlineMetric, ...] = (
    HeadlineMetric(
        study=STUDY_KIND,
        name="women_minus_bls",
        meaning="mean over occupations of the share of women in the texts minus BLS's share",
        unit="percentage points",
        better="closer to 0",
        interval_scheme=_BOOT,
        denominator="occupations with a BLS share (texts of the unspecified condition)",
        leaves_out="texts with no gender assigned (unassigned share)",
        read=_bls_reader("gap"),
        paired_over="occupations",
        unit_sd=SHARE_UNIT_SD,
        default_detect=10.0,
    ),
    HeadlineMetric(
        study=STUDY_KIND,
        name="abs_gap_bls",
        meaning="mean over occupations of |share of women in the texts - BLS's share|",
        unit="percentage points",
        better=LOWER,
        interval_scheme=_BOOT,
        denominator="occupations with a BLS share (texts of the unspecified condition)",
        leaves_out="texts with no gender assigned (unassigned share)",
        read=_bls_reader("abs_gap"),
        paired_over="occupations",
        unit_sd=SHARE_UNIT_SD,
    ),
    HeadlineMetric(
        study=STUDY_KIND,
        name="mean_abs_srb",
        meaning="mean |SRB| over occupations and genders (0 = no subset representation bias)",
        unit="SRB (cosine-distance units)",
        better=LOWER,
        interval_scheme="expanded percentile bootstrap over the run's defined " + SRB_UNITS,
        denominator="(occupation, associated gender) SRB scores that are defined",
        leaves_out="SRB scores that are undefined (too few words with a vector)",
        read=_srb_reader("score"),
        paired_over=SRB_UNITS,
        planned_over=SRB_PLANNED_OVER,
    ),
    HeadlineMetric(
        study=STUDY_KIND,
        name="mean_abs_srb_names_removed",
        meaning="mean |SRB| with person names and gender terms removed (name-free SRB)",
        unit="SRB (cosine-distance units)",
        better=LOWER,
        interval_scheme="expanded percentile bootstrap over the run's defined " + SRB_UNITS,
        denominator="(occupation, associated gender) name-free SRB scores that are defined",
        leaves_out="name-free SRB scores that are undefined",
        read=_srb_reader("score_names_removed"),
        paired_over=SRB_UNITS,
        planned_over=SRB_PLANNED_OVER,
    ),
    HeadlineMetric(
        study=STUDY_KIND,
        name="marked_words_over_chance",
        meaning="marked words found minus those expected by chance under the study's rule",
        unit="words",
        better=LOWER,
        interval_scheme="exact Poisson interval of the count, minus the chance expectation",
        denominator="word tests of every comparison",
        leaves_out="words below the study's minimum count",
        read=_read_marked,
    ),
    HeadlineMetric(
        study=STUDY_KIND,
        name="capture_rate",
        meaning="texts whose protagonist's gender the association step captured",
        unit="share",
        better=HIGHER,
        interval_scheme="Wilson score interval over texts",
        denominator="valid texts of every condition",
        leaves_out="invalid texts",
        read=_read_capture,
    ),
)

__all__ = ["HEADLINE_METRICS"]
