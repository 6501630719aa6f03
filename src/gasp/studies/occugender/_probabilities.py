"""From stored scores to the probabilities of Eq. 3 and the shares of Eq. 4, per cell.

A cell is one (task, template, job, debiasing condition) item. ``P_g`` is the sum over
the expressions of gender ``g`` of ``exp(logprob)``, the chain-rule probability of the
whole expression (every token) after the context; where the item scored an answer
prefix (chat mode), each expression's log-probability is taken given that prefix (the
difference of the two stored log-probabilities). On approximate backends an expression
missing from the first token's top log-probabilities gets no score and counts as 0
("not in top"): its gender's ``P_g`` is then a lower bound.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from gasp.errors import DataError
from gasp.studies.occugender._data import GENDERS

_KEYS = ("task", "template", "job", "group", "bls_pct_female", "bls_year", "condition", "level")


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def expression_rows(scores: pd.DataFrame, spec: Mapping[str, Any]) -> pd.DataFrame:
    """One row per (cell, expression): its gender, log-probability, probability, status."""
    genders: Mapping[str, Mapping[str, str]] = spec.get("expression_genders", {})
    rows: list[dict[str, Any]] = []
    for _, item in scores.groupby("item_id", sort=False):
        first = item.iloc[0]
        prefix = _text(first.get("answer_prefix"))
        by_candidate = dict(zip(item["candidate"], item["logprob"], strict=True))
        base = 0.0
        if prefix:
            lp = by_candidate.get(prefix)
            if lp is None or pd.isna(lp):
                continue  # the prefix itself has no score: nothing is conditional on it
            base = float(lp)
        approximate = bool(item["approximate"].astype(bool).any())
        for candidate, lp in by_candidate.items():
            if prefix and candidate == prefix:
                continue
            form = candidate[len(prefix) :].strip() if prefix else candidate.strip()
            gender = genders.get(str(first["task"]), {}).get(form)
            if gender is None:
                raise DataError(f"candidate {candidate!r} is no expression of the study's spec")
            scored = lp is not None and not pd.isna(lp)
            logprob = float(lp) - base if scored else None
            rows.append(
                {
                    **{k: first.get(k) for k in _KEYS},
                    "gender": gender,
                    "expression": form,
                    "logprob": logprob,
                    "prob": math.exp(logprob) if logprob is not None else 0.0,
                    "status": "scored" if scored else "not in top",
                    "approximate": approximate,
                }
            )
    return pd.DataFrame(rows)


def cell_table(expressions: pd.DataFrame) -> pd.DataFrame:
    """Per cell: ``P_male``, ``P_female``, ``P_diverse``, ``coverage`` and the shares
    ``M``, ``F``, ``D`` in percent (NaN where the coverage is 0)."""
    keys = list(_KEYS)
    mass = (
        expressions.groupby([*keys, "gender"], sort=False, dropna=False)["prob"]
        .sum()
        .unstack("gender")
        .fillna(0.0)
        .reindex(columns=list(GENDERS), fill_value=0.0)
    )
    counts = expressions.groupby(keys, sort=False, dropna=False).agg(
        n_scored=("status", lambda s: int((s == "scored").sum())),
        n_not_in_top=("status", lambda s: int((s == "not in top").sum())),
        approximate=("approximate", "any"),
    )
    out = pd.DataFrame(index=mass.index)
    for g in GENDERS:
        out[f"P_{g}"] = mass[g]
    out["coverage"] = mass.sum(axis=1)
    total = out["coverage"].where(out["coverage"] > 0)
    for g, col in zip(GENDERS, ("M", "F", "D"), strict=True):
        out[col] = 100.0 * out[f"P_{g}"] / total
    return out.join(counts).reset_index()


def expression_mass(expressions: pd.DataFrame) -> pd.DataFrame:
    """Mean probability of each expression over the cells of each (task, condition, group)."""
    keys = ["task", "condition", "group", "gender", "expression"]
    table = expressions.groupby(keys, sort=False, dropna=False).agg(
        mean_prob=("prob", "mean"),
        max_prob=("prob", "max"),
        n_cells=("prob", "size"),
        n_not_in_top=("status", lambda s: int((s == "not in top").sum())),
        approximate=("approximate", "any"),
    )
    table = table.reset_index()
    table["status"] = np.where(
        table["n_not_in_top"] == table["n_cells"],
        "not in top",
        np.where(table["n_not_in_top"] > 0, "partly not in top", "scored"),
    )
    return table
