"""Gender of first names from US Social Security birth records.

``share_female`` is the share of babies given a name who were recorded as
female, summed over 1880 onward. A name is ``F`` when that share is at least
``threshold`` (default 0.9), ``M`` when at most ``1 - threshold``, and ``None``
(ambiguous, such as Jordan or Taylor) in between or when the name does not
occur (``total`` is 0 then). The records list two sexes only, so the result
can never be non-binary.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from gasp.errors import ConfigError
from gasp.names._ssa import _name_totals
from gasp.text import normalize

DEFAULT_GENDER_THRESHOLD = 0.9


def _keys(names: Iterable[str]) -> list[str]:
    """Lookup key per name: lower case, letters only, parts joined (``Mary Ann``: ``maryann``)."""
    return ["".join(normalize(n).split()) if isinstance(n, str) else "" for n in names]


def first_name_gender(
    names: Iterable[str],
    *,
    threshold: float = DEFAULT_GENDER_THRESHOLD,
    table: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Gender of each first name from its share of female births.

    ``table`` replaces the SSA statistics with a user's name table (the layout of
    :func:`name_statistics`, for example from :func:`read_name_table`).

    Returns one row per input name (in order) with columns ``name`` (as given),
    ``share_female`` (NaN for unknown names), ``total`` (births with the name)
    and ``gender`` (``F``, ``M`` or ``None``).
    """
    if not 0.5 < threshold <= 1.0:
        raise ConfigError(f"gender threshold must lie in (0.5, 1], got {threshold}")
    names_list = list(names)
    totals = (_name_totals() if table is None else table).reindex(_keys(names_list))
    total = totals["total"].fillna(0).to_numpy(dtype=np.int64)
    female = totals["female"].fillna(0).to_numpy(dtype=np.float64)
    share = np.divide(female, total, out=np.full(total.shape, np.nan), where=total > 0)
    with np.errstate(invalid="ignore"):
        gender = np.select(
            [share >= threshold, share <= 1.0 - threshold], ["F", "M"], default=""
        ).astype(object)
    gender[gender == ""] = None
    return pd.DataFrame(
        {
            "name": pd.Series(names_list, dtype=object),
            "share_female": share,
            "total": total,
            "gender": pd.Series(gender, dtype=object),
        }
    )
