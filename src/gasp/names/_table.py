"""A user's table of first names with gender counts (for example UCI "Gender by Name").

The table is a CSV (UTF-8 or Latin-1) with a name column (``Name``), a gender column
(``Gender`` or ``Sex``: F/M, female/male) and a count column (``Count``, ``n`` or
``Births``); rows of one name and gender are summed. Without a count column every row
counts once. The result has the layout of :func:`gasp.names.name_statistics` (index:
lookup key; columns ``female``, ``male``, ``total``) and can be passed to
:func:`gasp.names.first_name_gender` as ``table``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from gasp.errors import DataError
from gasp.files import check_input_file
from gasp.names._keys import name_key

_GENDER = {"f": "female", "female": "female", "w": "female", "m": "male", "male": "male"}


def _column(columns: dict[str, str], options: tuple[str, ...]) -> str | None:
    return next((columns[c] for c in options if c in columns), None)


def read_name_table(path: str | Path) -> pd.DataFrame:
    """Per-name female and male counts from the CSV at ``path`` (see the module)."""
    file = check_input_file(path, "name table")  # no device, pipe or huge file
    raw = None
    for encoding in ("utf-8", "latin-1"):  # UTF-8, else Latin-1 (as the UCI table is)
        try:
            raw = pd.read_csv(file, dtype=str, keep_default_na=False, encoding=encoding)
            break
        except UnicodeDecodeError:
            continue
        except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            raise DataError(f"cannot read name table {file}: {exc}") from None
    if raw is None:
        raise DataError(f"cannot read name table {file}: unknown text encoding")
    columns = {str(c).strip().lower(): str(c) for c in raw.columns}
    name_col = _column(columns, ("name", "first_name", "firstname"))
    gender_col = _column(columns, ("gender", "sex"))
    count_col = _column(columns, ("count", "n", "births", "frequency"))
    if name_col is None or gender_col is None:
        raise DataError(
            f"{file}: a name table needs a Name and a Gender column "
            f"(columns: {', '.join(map(str, raw.columns))})"
        )
    gender = raw[gender_col].str.strip().str.lower().map(_GENDER)
    if count_col is not None:
        counts = pd.to_numeric(raw[count_col], errors="coerce")
        if counts.isna().any():
            raise DataError(f"{file}: column {count_col} must hold numbers")
    else:
        counts = pd.Series(1, index=raw.index)
    keys = [name_key(n) for n in raw[name_col]]
    frame = pd.DataFrame({"name": keys, "gender": gender, "n": counts})
    frame = frame[(frame["name"] != "") & frame["gender"].notna()]
    if frame.empty:
        raise DataError(f"{file}: no rows with a name and a gender F or M")
    wide = frame.pivot_table(index="name", columns="gender", values="n", aggfunc="sum")
    wide = wide.reindex(columns=["female", "male"]).fillna(0)
    out = pd.DataFrame({"female": wide["female"], "male": wide["male"]})
    out["total"] = out["female"] + out["male"]
    out.index = out.index.astype(object)
    out.index.name = "name"
    return out
