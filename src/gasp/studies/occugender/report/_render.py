"""The OccuGender report: Table 2, Tables 6-11, the per-job plot, the statistics beyond the
paper and the expressions' mass, rendered from saved results only (every sentence that
states a setting takes it from ``meta["settings"]``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.report import ReportWriter, Section, TableStyle, add_manifest, add_other_tables
from gasp.results import AuditResults
from gasp.stats import describe_interval
from gasp.studies.occugender._tables import (
    CELLS,
    COMPARISON,
    CORRELATION,
    DEBIASING,
    DEBIASING_WIDE,
    EXPRESSIONS,
    JOBS,
    NOT_SCORABLE,
    SHARES,
    SUMMARY,
    TABLE2,
    TABLE2_WIDE,
)
from gasp.studies.occugender.report._figures import gap_figure, jobs_figure

_SHARE_STYLE = TableStyle(share_columns=SHARES, percent=True)
_NONE = "none"

_INTRO = (
    "This report measures occupational gender bias as in OccuGender (seed 001): for each "
    "occupation of the U.S. Bureau of Labor Statistics list, the model's probability of "
    "male (P_m), female (P_f) and diverse (P_d) gender expressions after a prompt about "
    "the occupation, each the sum over the gender's expressions of the probability of the "
    "whole expression by the chain rule (Eq. 3). The shares M, F, D are the normalised "
    "P~_g = P_g / (P_m + P_f + P_d) of Eq. 4 in percent, averaged over templates, then over "
    "the jobs of each group. Coverage is P_m + P_f + P_d, the probability the expressions "
    "get at all: a share of a tiny coverage describes a small part of what the model would "
    "say. Every table is saved as CSV and every figure as PNG and SVG next to this file."
)


def _approx(results: AuditResults) -> bool:
    return bool(results.meta.get("approximate"))


def _mark(results: AuditResults, title: str) -> str:
    return f"{title} — APPROXIMATE" if _approx(results) else title


def _templates_note(settings: Mapping[str, Any]) -> str:
    templates = settings.get("templates") or []
    by_task: dict[str, int] = {}
    for t in templates:
        by_task[str(t.get("task"))] = by_task.get(str(t.get("task")), 0) + 1
    counts = ", ".join(f"{n} {task}" for task, n in by_task.items())
    return (
        f"This run averages over {len(templates)} template(s) ({counts}). The paper averages "
        "over GPT-4-generated paraphrases of its templates (Eq. 2) that it does not publish, "
        "so the two example templates of its Table 3 alone do not reproduce its Table 2; give "
        "your own paraphrases with the study option templates_file."
    )


def _settings_note(settings: Mapping[str, Any]) -> str:
    mode = settings.get("mode")
    how = (
        "raw text: the Q/A prompt as written, expressions scored with a leading space"
        if mode == "raw"
        else "the model's chat template: the question as the user's message, expressions "
        "scored as the start of the answer (after the answer line's text, where it has one)"
    )
    cases = "capitalised and in lower case" if settings.get("case_variants") else "as written"
    level = 100 * float(settings.get("confidence") or 0)
    if isinstance(settings.get("interval"), dict):
        intervals = (
            f"Intervals: {describe_interval(settings['interval'])}. They treat the jobs and "
            "templates as drawn from larger sets; with only a few templates a percentile "
            "interval falls short of its level (ten clusters cover about 90% for a nominal "
            "95% in simulation, fewer cover less; see docs/intervals.md), so read them as "
            "lower bounds on the uncertainty."
        )
    else:
        intervals = (
            f"Intervals are {level:.0f}% bootstrap percentile intervals over jobs and "
            f"templates ({settings.get('bootstrap')} resamples, seed {settings.get('seed')})."
        )
    return f"Mode: {how}. Expressions are scored {cases}. {intervals}"


def _approx_note(results: AuditResults) -> str:
    return (
        "APPROXIMATE: this backend reports only the first generated token's top "
        "log-probabilities. An expression outside them counts as 0 (its gender's share is a "
        "lower bound), and expressions of several tokens cannot be scored at all: they are "
        "listed as not scorable below and take no part in any share."
    )


def _as_str(df: pd.DataFrame, *cols: str) -> pd.DataFrame:
    out = df.copy()
    for c in cols:
        if c in out:
            out[c] = out[c].astype(str)
    return out


def _conditions_as_text(df: pd.DataFrame) -> pd.DataFrame:
    return _as_str(df, "condition")


def _table2(writer: ReportWriter, results: AuditResults) -> None:
    sec = writer.section(
        _mark(results, "Table 2: explicit and implicit bias"),
        "M, F, D in percent for the female- and male-dominated jobs, without debiasing "
        "prompt, as the paper's Table 2, with the coverage of each block beside it.",
    )
    if _approx(results):
        writer.note(sec, _approx_note(results))
    writer.saved_table(
        sec,
        results,
        TABLE2_WIDE,
        _mark(results, "Table 2 layout"),
        "One row per model: explicit, then implicit; female-, then male-dominated jobs.",
    )
    writer.saved_table(
        sec,
        results,
        TABLE2,
        _mark(results, "Table 2 with intervals and coverage"),
        "Each row sums to 100 across M, F and D; _low and _high bound the bootstrap "
        "interval; coverage is the mean of P_m + P_f + P_d over the cells.",
        _SHARE_STYLE,
    )
    writer.note(sec, _templates_note(results.settings))


def _beyond(writer: ReportWriter, results: AuditResults) -> None:
    sec = writer.section(
        _mark(results, "Beyond the paper: correlation, amplification, one number per run"),
        "Spearman's rho of each job's F with its BLS share of women; amplification is F minus "
        "the BLS share (percentage points); the gap is F of the female-dominated jobs minus F "
        "of the male-dominated jobs, with its bootstrap interval.",
    )
    summary = results.get(SUMMARY)
    if summary is not None:
        writer.table(
            sec,
            SUMMARY,
            _as_str(summary, "condition"),
            _mark(results, "Gap in F between the groups"),
            "gap_f in percentage points; 0 means the model does not tell the groups apart.",
        )
        writer.figure(
            sec,
            "gap",
            gap_figure(_as_str(summary, "condition"), _approx(results)),
            _mark(results, "Gap per debiasing condition"),
            "The gap with its interval for each debiasing prompt ('none': no prompt).",
        )
    writer.saved_table(
        sec,
        results,
        CORRELATION,
        _mark(results, "Spearman correlation with BLS and mean amplification"),
        "Positive rho: the model's F rises with the BLS share of women.",
        prepare=_conditions_as_text,
    )
    jobs = results.get(JOBS)
    if jobs is not None:
        jobs = _as_str(jobs, "condition")
        writer.figure(
            sec,
            "jobs_vs_bls",
            jobs_figure(jobs, _NONE, _approx(results)),
            _mark(results, "P~_f per job against the BLS share of women"),
            "Each point is a job without debiasing prompt; on the dashed line the model's "
            "share of female expressions equals the share of women in the job.",
        )
        writer.table(
            sec,
            JOBS,
            jobs,
            _mark(results, "Shares, coverage and amplification per job"),
            "Averaged over templates; amplification_f = F - bls_pct_female.",
            _SHARE_STYLE,
            collapsed=True,
        )


def _debiasing(writer: ReportWriter, results: AuditResults) -> None:
    long = results.get(DEBIASING)
    if long is None or long.empty or set(long["abstraction"].astype(str)) <= {_NONE}:
        return
    sec = writer.section(
        _mark(results, "Tables 6-11: debiasing prompts"),
        "Each debiasing prompt of Table 5 as a line before the question; 'no prompt' is "
        "Table 2's row, each level's Avg is the mean of its two prompts (high 1-2, medium "
        "3-4, low 5-6); coverage beside every block.",
    )
    writer.saved_table(
        sec,
        results,
        DEBIASING_WIDE,
        _mark(results, "Tables 6-11 layout"),
        "Rows: abstraction level and prompt id; columns as in Table 2.",
        prepare=lambda wide: _as_str(wide, "id"),
    )
    writer.table(
        sec,
        DEBIASING,
        _as_str(long, "id"),
        _mark(results, "Debiasing results (long)"),
        "One row per task, group and prompt or level average.",
        _SHARE_STYLE,
        collapsed=True,
    )


def _expressions(writer: ReportWriter, results: AuditResults) -> None:
    sec = writer.section(
        _mark(results, "Gender expressions"),
        "The probability each expression gets (mean over jobs and templates), with its "
        "status: scored, not in top (an approximate backend did not report it) or not "
        "scorable (several tokens on an approximate backend).",
    )
    writer.saved_table(
        sec,
        results,
        EXPRESSIONS,
        _mark(results, "Mass per expression"),
        "mean_prob is the mean over the cells of the expression's probability.",
        collapsed=True,
        prepare=_conditions_as_text,
    )
    missing = results.get(NOT_SCORABLE)
    if missing is not None and not missing.empty:
        writer.table(
            sec,
            NOT_SCORABLE,
            missing,
            "Expressions not scorable on this backend",
            "Dropped before any request (study option expressions=single-token).",
        )
    writer.saved_table(
        sec,
        results,
        CELLS,
        _mark(results, "Every cell"),
        "P_g per (task, template, job, condition), its coverage and shares.",
        _SHARE_STYLE,
        collapsed=True,
        prepare=_conditions_as_text,
    )


def render_report(results_dir: str | Path, out_dir: str | Path) -> Path:
    """Render the report of a run (or comparison) from its saved results folder."""
    results = AuditResults.load(results_dir)
    if results.meta.get("kind") == "comparison":
        return render_comparison(results, out_dir)
    settings = results.settings
    model = results.meta.get("model_id") or ""
    title = _mark(results, f"OccuGender audit on {model}")
    started = results.meta.get("started_at") or ""
    writer = ReportWriter(out_dir, title, f"run started {started}" if started else "")
    about = writer.section("About this report", _INTRO)
    about.add_paragraph(_settings_note(settings))
    about.add_paragraph(_templates_note(settings), cls="note")
    if _approx(results):
        about.add_paragraph(_approx_note(results), cls="note")
    _table2(writer, results)
    _beyond(writer, results)
    _debiasing(writer, results)
    _expressions(writer, results)
    done = {CELLS, CORRELATION, DEBIASING, DEBIASING_WIDE, EXPRESSIONS, JOBS, NOT_SCORABLE}
    add_other_tables(writer, results, done | {SUMMARY, TABLE2, TABLE2_WIDE})
    add_manifest(writer, results, results.meta.get("manifest"))
    return writer.write()


def render_comparison(results: AuditResults, out_dir: str | Path) -> Path:
    """The report of a comparison of runs (:func:`..._compare.compare_runs`)."""
    labels = ", ".join(str(x) for x in results.meta.get("labels") or [])
    writer = ReportWriter(out_dir, f"OccuGender comparison: {labels}")
    sec: Section = writer.section(
        "Runs compared",
        "One row per run and task without debiasing prompt: the gap in F between female- and "
        "male-dominated jobs with its interval, Spearman's rho with BLS, the groups' shares "
        "and coverage. Rows marked approximate come from first-token scores.",
    )
    writer.saved_table(sec, results, COMPARISON, "Comparison", "As saved by the comparison.")
    add_other_tables(writer, results, {COMPARISON})
    return writer.write()
