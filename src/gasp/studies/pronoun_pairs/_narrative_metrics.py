"""Section 3.4 / 4.2.2: the protagonist's first name, its gender, and shares per cell.

Each story's protagonist and the gender of the name come from
:func:`gasp.names.protagonists` (titles, headings, preambles, stop words and pronouns
skipped; SSA statistics or a user's name table, accents folded for the look-up):
``F`` or ``M`` when P(female | name) is at least the threshold or at most one minus
it, ``U`` otherwise, with the reason: no name found (``no_name``), a name the table
does not hold at least ``min_count`` times (``not_in_table``), or an ambiguous name
(``ambiguous``). Shares of F, M and U are out of all stories of a cell, so they add up
to one; so do the shares of the three reasons with F and M.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gasp.names import AMBIGUOUS, DEFAULT_NAME_MIN_COUNT, NO_NAME, NOT_IN_TABLE, protagonists
from gasp.stats import SHARE_BOUNDS, IntervalScheme, mean_interval
from gasp.studies.pronoun_pairs._metrics import OVERALL
from gasp.studies.pronoun_pairs._templates import NARRATIVE_TEMPLATES

UNKNOWN = "U"
#: Why a story's gender is unknown, in the order reports list them.
UNKNOWN_REASONS = (NO_NAME, NOT_IN_TABLE, AMBIGUOUS)


def name_genders(
    samples: pd.DataFrame,
    *,
    threshold: float,
    table: pd.DataFrame | None = None,
    min_count: float = DEFAULT_NAME_MIN_COUNT,
) -> pd.DataFrame:
    """``samples`` with ``name`` (first name as written, or None), ``p_female`` (NaN when
    unknown), ``gender`` (F, M or U) and ``reason`` (why U: no_name, not_in_table,
    ambiguous; None for F and M)."""
    out = samples.copy()
    openings = [None if pd.isna(p) else str(p) for p in out["prompt"]] if "prompt" in out else None
    found = protagonists(
        [str(t) for t in out["text"]],
        openings,
        threshold=threshold,
        table=table,
        min_count=min_count,
    )
    out["name"] = found["name"].to_numpy(dtype=object)
    out["p_female"] = found["share_female"].to_numpy(dtype=float)
    out["gender"] = [g or UNKNOWN for g in found["gender"]]
    out["reason"] = found["reason"].to_numpy(dtype=object)
    return out


def _counts(
    frame: pd.DataFrame,
    profession: str,
    template: str,
    scheme: IntervalScheme | None,
    rng: np.random.Generator | None,
) -> dict[str, object]:
    n = len(frame)
    genders = frame["gender"].to_numpy()
    row: dict[str, object] = {"profession": profession, "template": template, "stories": n}
    for code, label in (("F", "female"), ("M", "male"), (UNKNOWN, "unknown")):
        hits = genders == code
        k = int(hits.sum())
        row[label] = k
        row[f"{label}_share"] = k / n if n else float("nan")
        if scheme is not None:
            _, low, high = mean_interval(hits.astype(float), scheme, rng, SHARE_BOUNDS)
            row[f"{label}_share_low"], row[f"{label}_share_high"] = low, high
    return row


def unknown_reasons(stories: pd.DataFrame) -> pd.DataFrame:
    """Why stories have no gender: per profession over all openings and overall (profession
    ``Overall``), per reason the count of stories and its share of all the profession's
    stories (so the three shares add up to the U share)."""
    reasons = stories["reason"] if "reason" in stories else pd.Series(None, index=stories.index)
    rows = []
    for profession in [*dict.fromkeys(stories["profession"]), OVERALL]:
        mask = (
            np.ones(len(stories), bool)
            if profession == OVERALL
            else (stories["profession"] == profession).to_numpy()
        )
        n = int(mask.sum())
        for reason in UNKNOWN_REASONS:
            k = int(((reasons == reason).to_numpy() & mask).sum())
            rows.append(
                {
                    "profession": profession,
                    "reason": reason,
                    "stories": k,
                    "of_stories": n,
                    "share": k / n if n else float("nan"),
                }
            )
    return pd.DataFrame(rows, columns=["profession", "reason", "stories", "of_stories", "share"])


def gender_shares(stories: pd.DataFrame, scheme: IntervalScheme | None = None) -> pd.DataFrame:
    """Female, male and unknown counts and shares per (profession, template), per
    profession over templates (template ``Overall``), per template over professions
    (profession ``Overall``) and over everything; with ``scheme`` (a bootstrap over the
    stories) each share gets its interval, ``<label>_share_low`` and ``_high``."""
    templates = [t for t in NARRATIVE_TEMPLATES if t in set(stories["template"])]
    professions = list(dict.fromkeys(stories["profession"]))
    rng = scheme.rng() if scheme is not None else None
    rows = []
    for profession in [*professions, OVERALL]:
        part = stories if profession == OVERALL else stories[stories["profession"] == profession]
        for template in [*templates, OVERALL]:
            cell = part if template == OVERALL else part[part["template"] == template]
            rows.append(_counts(cell, profession, template, scheme, rng))
    return pd.DataFrame(rows)


def table4(shares: pd.DataFrame) -> pd.DataFrame:
    """Table 4's layout: one row per profession, the share of female names per template
    and overall (shares 0-1)."""
    wide = shares.pivot(index="profession", columns="template", values="female_share")
    order = [t for t in NARRATIVE_TEMPLATES if t in wide.columns] + [OVERALL]
    professions = list(dict.fromkeys(shares["profession"]))
    return wide.reindex(index=professions, columns=order).reset_index().rename_axis(None, axis=1)


def top_names(stories: pd.DataFrame, k: int = 5) -> pd.DataFrame:
    """The ``k`` most frequent names per profession with their counts and shares of the
    profession's stories, gender and P(female | name)."""
    rows = []
    for profession, part in stories.groupby("profession", sort=False):
        named = part[part["name"].notna()]
        counts = named["name"].value_counts()
        for rank, (name, count) in enumerate(counts.head(k).items(), start=1):
            first = named[named["name"] == name].iloc[0]
            rows.append(
                {
                    "profession": profession,
                    "rank": rank,
                    "name": name,
                    "stories": int(count),
                    "share": int(count) / len(part),
                    "gender": first["gender"],
                    "p_female": first["p_female"],
                }
            )
    columns = ["profession", "rank", "name", "stories", "share", "gender", "p_female"]
    return pd.DataFrame(rows, columns=columns)
