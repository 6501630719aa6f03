"""Selecting group rows (and intersections) from a table of generations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gasp.errors import DataError
from gasp.stats import group_mask, parse_selector, selector_name

TABLE = pd.DataFrame(
    {
        "race": ["a Black", "a Black", "a White", "a White", None],
        "gender": ["W", "M", "W", "M", "W"],
        "year": [2020, 2021, 2020, 2021, 2020],
    }
)


def test_single_column_and_intersection() -> None:
    assert group_mask(TABLE, {"gender": "W"}).tolist() == [True, False, True, False, True]
    both = group_mask(TABLE, {"race": "a Black", "gender": "W"})
    assert both.tolist() == [True, False, False, False, False]
    assert both.dtype == np.bool_


def test_values_compare_as_text() -> None:
    assert group_mask(TABLE, {"year": "2021"}).tolist() == [False, True, False, True, False]
    assert group_mask(TABLE, {"race": " a White "}).sum() == 2


def test_unknown_column_value_and_empty_selector() -> None:
    with pytest.raises(DataError, match="unknown column 'colour'"):
        group_mask(TABLE, {"colour": "red"})
    with pytest.raises(DataError, match="never occurs in column 'race'"):
        group_mask(TABLE, {"race": "an Asian"})
    with pytest.raises(DataError, match="at least one"):
        group_mask(TABLE, {})


def test_parse_selector() -> None:
    assert parse_selector("race=a Black, gender=W") == {"race": "a Black", "gender": "W"}
    assert parse_selector("gender=M,") == {"gender": "M"}
    assert selector_name(parse_selector("race=a Black,gender=W")) == "a Black W"
    for bad in ["race", "=W", "race=", "", "gender=W,gender=M"]:
        with pytest.raises(DataError, match="bad group selector"):
            parse_selector(bad)
