"""The paper's SRB and the name-free variant side by side (the "how" section).

Built from the saved ``srb_test`` table (column ``variant``: ``paper`` or
``names_removed``); a test that is undefined shows its ``reason`` instead of a number.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

SIDE_BY_SIDE = "srb_test_side_by_side"
"""Name of the CSV of the side-by-side table."""

_LABELS = {"paper": "paper's SRB", "names_removed": "names and gender terms removed"}


def _cell(row: pd.Series | None, column: str, digits: int, why: bool) -> str:
    """The number, or (``why``) the reason the test is undefined, else ``undefined``."""
    if row is None:
        return "not computed"
    value = float(row[column])
    if math.isnan(value):
        reason = row.get("reason")
        return str(reason) if why and isinstance(reason, str) and reason else "undefined"
    return f"{value:.{digits}g}"


def side_by_side(tests: pd.DataFrame | None) -> pd.DataFrame | None:
    """One row per template and test: statistic and p-value of both variants (or why not).

    None when ``tests`` lacks the ``variant`` column (results saved before the variant).
    """
    if tests is None or tests.empty or "variant" not in tests.columns:
        return None
    rows: list[dict[str, Any]] = []
    keys = ["template", "test"]
    for (template, test), part in tests.groupby(keys, sort=False):
        by = {str(r["variant"]): r for _, r in part.iterrows()}
        row: dict[str, Any] = {"template": template, "test": test}
        for variant, label in _LABELS.items():
            r = by.get(variant)
            row[f"{label}: statistic"] = _cell(r, "statistic", 3, why=False)
            row[f"{label}: p-value"] = _cell(r, "p_value", 3, why=True)
            row[f"{label}: mean F / mean M"] = (
                "not computed" if r is None else f"{_fmt(r['mean_F'])} / {_fmt(r['mean_M'])}"
            )
        rows.append(row)
    return pd.DataFrame(rows)


def _fmt(value: Any) -> str:
    number = float(value)
    return "no score" if math.isnan(number) else f"{number:.3f}"


def variants_explanation(settings: dict[str, Any]) -> str:
    """What the two variants remove and how to read a difference between them."""
    srb = settings.get("srb") if isinstance(settings, dict) else None
    removed = srb.get("names_removed") if isinstance(srb, dict) else None
    extra = removed.get("extra_gender_terms") if isinstance(removed, dict) else None
    ratio = removed.get("name_ratio") if isinstance(removed, dict) else None
    terms = "the package's list of explicit gender terms (woman, men, mother, mrs ...)"
    if extra:
        terms += f" plus {', '.join(str(w) for w in extra)}"
    names = "first names from US Social Security records"
    if ratio is not None:
        names += f" (a common word counts as a name at {ratio:g} times its word frequency)"
    return (
        "The paper's SRB removes only pronouns from the word sets; the name-free variant "
        f"also removes {names} and {terms} from the associated and the named word sets "
        "alike. A difference that is significant with the paper's SRB but vanishes once "
        "names and gender terms are removed comes from names and gender words, not from "
        "describing words; a difference that stays in both is carried by describing words. "
        "Where a test is undefined the cell says why."
    )
