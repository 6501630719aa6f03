"""Selecting the rows of a group (possibly an intersection) from a table of generations."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from gasp.errors import DataError
from gasp.text import parse_assignments


def parse_selector(text: str) -> dict[str, str]:
    """Parse ``"race=a Black,gender=W"`` into ``{"race": "a Black", "gender": "W"}``.

    Pairs are separated by commas; spaces around names and values are ignored.
    """
    bad = f"bad group selector {text!r}: expected column=value[,column=value]"
    parts = [p for p in text.split(",") if p.strip()]
    try:
        given = parse_assignments(parts, "a group selector", error=DataError)
    except DataError:
        raise DataError(bad) from None
    selector: dict[str, str] = {}
    for column, values in given.items():
        if any(not v for v in values):
            raise DataError(bad)
        if len(set(values)) > 1:
            raise DataError(f"bad group selector {text!r}: column {column!r} is given twice")
        selector[column] = values[0]
    if not selector:
        raise DataError(f"bad group selector {text!r}: expected column=value[,column=value]")
    return selector


def selector_name(selector: Mapping[str, str]) -> str:
    """A short name for a group: its values joined by ``" "`` (``"a Black W"``)."""
    return " ".join(str(v) for v in selector.values())


def group_mask(table: pd.DataFrame, selector: Mapping[str, str]) -> np.ndarray:
    """Boolean mask of the rows of ``table`` whose columns equal every value of ``selector``.

    Several columns select an intersection (``{"race": "a Black", "gender": "W"}``).
    Values are compared as text, so ``{"year": "2020"}`` matches the integer 2020.
    Raises :class:`~gasp.errors.DataError` for an empty selector, an unknown column or a
    value that never occurs in its column.
    """
    if not selector:
        raise DataError("a group needs at least one column=value condition")
    mask = np.ones(len(table), dtype=bool)
    for column, value in selector.items():
        if column not in table.columns:
            known = ", ".join(map(str, table.columns))
            raise DataError(f"unknown column {column!r} in group selector (columns: {known})")
        as_text = table[column].astype("string").str.strip()
        matches = (as_text == str(value).strip()).fillna(False).to_numpy(dtype=bool)
        if not matches.any():
            values = sorted(as_text.dropna().unique().tolist())
            shown = ", ".join(map(repr, values[:20])) + (", ..." if len(values) > 20 else "")
            raise DataError(f"value {value!r} never occurs in column {column!r} (values: {shown})")
        mask &= matches
    return mask
