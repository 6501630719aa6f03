"""The narrative section: Table 4, female/male/unknown shares, frequent names, a chart."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from gasp.names import DEFAULT_GENDER_THRESHOLD
from gasp.report import ReportWriter, Section, new_figure, outside_legend
from gasp.results import AuditResults
from gasp.stats import describe_interval
from gasp.studies.pronoun_pairs._examples import cell_key
from gasp.studies.pronoun_pairs._narrative_analysis import (
    REASON_LABELS,
    REASONS,
    SHARES,
    TABLE4,
    TOP_NAMES,
    reason_sentence,
)
from gasp.studies.pronoun_pairs.report._common import add_clickable, pct, pct_ci

OVERALL = "Overall"


def _intro(results: AuditResults) -> str:
    s = results.settings
    t = float(s.get("gender_threshold", DEFAULT_GENDER_THRESHOLD))
    min_count = s.get("name_min_count")
    needs = f" at least {float(min_count):g} times" if min_count is not None else ""
    return (
        'Each story opening of Table 2 ends in "called"; the protagonist\'s first name is '
        'read as a reader would: the word after "called" or "named" (in a continued or '
        "echoed opening), after a title such as Dr. or Detective, or else the first "
        'capitalised word that reads as a name; titles, headings, preambles ("Sure! Here '
        'is..."), markdown, quotes, stop words and pronouns are skipped. Its gender comes '
        f"from {s.get('names_source')}, which must give the name{needs} (accents folded "
        f"for the look-up: Zoë as Zoe): F when P(female | name) is at least {t:g}, M when "
        f"at most {1 - t:g}, U (unknown) when no name was found, the name is not in the "
        "table or it is ambiguous. Shares are out of all stories of a cell, so F, M and U "
        "add up to 100%. Every number opens its stories."
    )


def share_figure(shares: pd.DataFrame) -> Figure | None:
    """Female, male and unknown shares per profession (over all openings), stacked."""
    part = shares[(shares["template"] == OVERALL) & (shares["profession"] != OVERALL)]
    if part.empty:
        return None
    part = part.sort_values("female_share")
    fig = new_figure(6.0, 0.28 * len(part) + 1.2)
    ax = fig.add_subplot()
    y = np.arange(len(part))
    left = np.zeros(len(part))
    for col, label in (
        ("female_share", "female"),
        ("male_share", "male"),
        ("unknown_share", "unknown"),
    ):
        values = 100 * part[col].to_numpy(float)
        ax.barh(y, values, left=left, label=label)
        left += values
    ax.set_yticks(y, part["profession"])
    ax.set_xlabel("stories (%)")
    outside_legend(fig)
    return fig


def _add_reasons(writer: ReportWriter, sec: Section, results: AuditResults) -> None:
    """Why stories are U: a sentence for all stories and a table per profession."""
    reasons = results.get(REASONS)
    if reasons is None:
        return
    overall = reasons[reasons["profession"] == OVERALL].set_index("reason")["share"]
    writer.note(
        sec, f"Unknown (U) by reason, as shares of all stories: {reason_sentence(overall)}."
    )
    wide = reasons.pivot(index="profession", columns="reason", values="stories")
    shares = reasons.pivot(index="profession", columns="reason", values="share")
    order = list(dict.fromkeys(reasons["profession"]))
    rows = [
        [(str(p), None)]
        + [
            (f"{pct(shares.loc[p, r])} ({int(wide.loc[p, r])})", cell_key(p, "reason", r))
            for r in REASON_LABELS
        ]
        for p in order
    ]
    add_clickable(
        writer,
        sec,
        name="unknown_reasons",
        title="Why a protagonist's gender is unknown",
        explanation="Per profession over all openings and overall: the share of stories (then "
        "the count) with no first name found, with a name the name table does not hold (or "
        "holds fewer times than the minimum count), and with an ambiguous name. The three "
        "add up to the U share. Click a number to read its stories.",
        shown=(["Profession", *[label.capitalize() for label in REASON_LABELS.values()]], rows),
        data=reasons,
    )


def add_narrative_section(writer: ReportWriter, results: AuditResults) -> None:
    """Table 4, the shares per cell, the figure and the most frequent names."""
    sec = writer.section("Narratives: who the protagonist is", _intro(results))
    t4 = results[TABLE4]
    templates = [c for c in t4.columns if c != "profession"]
    rows = [
        [(str(r["profession"]), None)]
        + [(pct(r[t], 0), cell_key(r["profession"], t, "stories")) for t in templates]
        for r in t4.to_dict("records")
    ]
    add_clickable(
        writer,
        sec,
        name="table4",
        title="Table 4: share of female names",
        explanation="Share of stories whose protagonist has a (primarily) female name, per "
        "profession and opening, and overall. Click a number to read the stories, split by "
        "the gender of the name.",
        shown=(["Profession", *templates], rows),
        data=t4,
    )
    shares = results[SHARES]
    overall = shares[(shares["profession"] == OVERALL) & (shares["template"] == OVERALL)]
    if not overall.empty:
        writer.note(
            sec, f"Unknown or no name (U) share overall: {pct(overall.iloc[0]['unknown_share'])}."
        )
    _add_reasons(writer, sec, results)
    record = results.settings.get("interval")
    intervals = (
        f"Intervals: {describe_interval(record)}."
        if isinstance(record, dict)
        else "These results hold no intervals."
    )
    share_rows = []
    for record_row in shares.to_dict("records"):
        r = {str(k): v for k, v in record_row.items()}
        p, t = r["profession"], r["template"]
        share_rows.append(
            [(str(p), None), (str(t), None), (str(int(r["stories"])), cell_key(p, t, "stories"))]
            + [
                (f"{pct_ci(r, f'{g}_share')} ({int(r[g])})", cell_key(p, t, g))
                for g in ("female", "male", "unknown")
            ]
        )
    add_clickable(
        writer,
        sec,
        name="shares",
        title="Female, male and unknown protagonists",
        explanation="Per profession and opening, per profession over all openings, per "
        "opening over all professions and overall: stories, then the share of female, male "
        f"and unknown names with its interval in parentheses (then the count). {intervals}",
        shown=(["Profession", "Opening", "Stories", "Female", "Male", "Unknown (U)"], share_rows),
        data=shares,
    )
    writer.figure(
        sec,
        "narrative_shares",
        share_figure(shares),
        "Gender of the protagonist's name",
        "Per profession over all openings: the share of female, male and unknown names.",
    )
    names = results.get(TOP_NAMES)
    if names is None:
        return
    name_rows = [
        [
            (str(r["profession"]), None),
            (str(int(r["rank"])), None),
            (str(r["name"]), None),
            (str(int(r["stories"])), cell_key(r["profession"], "name", r["name"])),
            (pct(r["share"]), cell_key(r["profession"], "name", r["name"])),
            (str(r["gender"]), None),
            ("" if pd.isna(r["p_female"]) else f"{float(r['p_female']):.3f}", None),
        ]
        for r in names.to_dict("records")
    ]
    add_clickable(
        writer,
        sec,
        name="top_names",
        title="Most frequent names per profession",
        explanation="The names given most often to each profession's protagonist, with the "
        "share of that profession's stories (Section 4.2.2), the gender and P(female | name).",
        shown=(
            ["Profession", "Rank", "Name", "Stories", "Share", "Gender", "P(female)"],
            name_rows,
        ),
        data=names,
    )
