"""Section 3.4 / 4.2.2: the protagonist's first name, its gender, and shares per cell.

Each story's first name comes from :func:`first_name`; its gender from
:func:`gasp.names.first_name_gender` (SSA statistics or a user's name table):
``F`` or ``M`` when P(female | name) is at least the threshold or at most one minus
it, ``U`` when the name is unknown, ambiguous, or no name was found. Shares of F, M
and U are out of all stories of a cell, so they add up to one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gasp.names import first_name_gender
from gasp.stats import SHARE_BOUNDS, IntervalScheme, mean_interval
from gasp.studies.pronoun_pairs._metrics import OVERALL
from gasp.studies.pronoun_pairs._parse import first_name
from gasp.studies.pronoun_pairs._templates import NARRATIVE_TEMPLATES

UNKNOWN = "U"


def name_genders(
    samples: pd.DataFrame, *, threshold: float, table: pd.DataFrame | None = None
) -> pd.DataFrame:
    """``samples`` with ``name`` (first name or None), ``p_female`` (NaN when unknown)
    and ``gender`` (F, M or U)."""
    out = samples.copy()
    names = [
        first_name(str(r.text), str(r.prompt) if "prompt" in out else None)
        for r in out.itertuples(index=False)
    ]
    out["name"] = names
    found = [n for n in names if n]
    genders = first_name_gender(found, threshold=threshold, table=table) if found else None
    p_female, gender = [], []
    row = 0
    for name in names:
        if not name or genders is None:
            p_female.append(float("nan"))
            gender.append(UNKNOWN)
            continue
        p_female.append(float(genders["share_female"].iloc[row]))
        gender.append(genders["gender"].iloc[row] or UNKNOWN)
        row += 1
    out["p_female"] = p_female
    out["gender"] = gender
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
