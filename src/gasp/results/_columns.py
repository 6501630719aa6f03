"""The columns of every saved table with their type and unit, written into
``results.json`` so that other tools read the tables without reading gasp's code
(the format ``gasp.results/1``, described in docs/results.md)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import pandas as pd

#: The identifier of the documented results format (``schema`` in ``results.json``).
RESULTS_SCHEMA = "gasp.results/1"
#: Units a column may carry (None: a plain number or label the study's docs describe).
UNITS = (
    "count",
    "share",
    "percent",
    "probability",
    "z-score",
    "log-odds",
    "seconds",
    "label",
    "word",
)
_PROBABILITY = {"p", "p_value", "pvalue", "q_value", "p_adjusted", "p_fdr", "p_holm"}


def _type(series: pd.Series) -> str:
    if pd.api.types.is_bool_dtype(series):
        return "boolean"
    if pd.api.types.is_integer_dtype(series):
        return "integer"
    if pd.api.types.is_numeric_dtype(series):
        return "number"
    return "string"


def column_unit(name: str, kind: str, layout: Any) -> str | None:
    """The unit of a column from its table's layout, then from naming conventions."""
    low = name.lower()
    if name in getattr(layout, "share_columns", ()):
        return "percent" if getattr(layout, "percent", False) else "share"
    if name in getattr(layout, "word_columns", ()):
        return "word"
    if low in _PROBABILITY or low.startswith("p_value"):
        return "probability"
    if low == "z" or low.startswith("z_") or low.endswith("_z"):
        return "z-score"
    if "log_odds" in low:
        return "log-odds"
    if low.endswith("_s") or low.endswith("seconds"):
        return "seconds"
    if "share" in low or "accuracy" in low or low.startswith("baseline"):
        return "share"
    if kind == "integer":
        return "count"
    if kind in ("string", "boolean"):
        return "label"
    return None


def describe_columns(table: pd.DataFrame, layout: Any) -> list[dict[str, Any]]:
    """Name, type (integer, number, string, boolean) and unit of each column."""
    out = []
    for name in table.columns:
        kind = _type(table[name])
        out.append({"name": str(name), "type": kind, "unit": column_unit(str(name), kind, layout)})
    return out


@cache
def results_schema() -> dict[str, Any]:
    """The JSON Schema of ``results.json`` (format ``gasp.results/1``)."""
    text = resources.files("gasp.results").joinpath("schema/results-1.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
