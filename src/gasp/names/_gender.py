"""Gender of first names from US Social Security birth records.

``share_female`` is the share of babies given a name who were recorded as
female, summed over 1880 onward. A name is ``F`` when that share is at least
``threshold`` (default 0.9), ``M`` when at most ``1 - threshold``, and ``None``
(ambiguous, such as Jordan or Taylor) in between or when the name does not
occur (``total`` is 0 then). The records list two sexes only, so the result
can never be non-binary.

Why a name has no gender is kept in ``reason``: ``not_in_table`` when fewer than
``min_count`` babies were given it (0 by default; a story's protagonist needs
:data:`DEFAULT_NAME_MIN_COUNT`, 100, so that words recorded as a name a few times,
such as "The" with 5 births or "Her" with 16, never decide a gender), ``ambiguous``
when its female share lies between the two cut-offs.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from gasp.errors import ConfigError
from gasp.names._keys import name_key
from gasp.names._ssa import _name_totals

DEFAULT_GENDER_THRESHOLD = 0.9
#: Births (or table counts) a protagonist's name needs before its gender is read.
DEFAULT_NAME_MIN_COUNT = 100
#: Why a story has no gender: no first name found, a name the table does not hold (or
#: holds fewer than the minimum count of times), a name given to girls and boys alike.
NO_NAME, NOT_IN_TABLE, AMBIGUOUS = "no_name", "not_in_table", "ambiguous"


def _keys(names: Iterable[str]) -> list[str]:
    """Lookup key per name (:func:`gasp.names.name_key`: ``Zoë``: ``zoe``, ``Mary Ann``:
    ``maryann``)."""
    return [name_key(n) for n in names]


def first_name_gender(
    names: Iterable[str],
    *,
    threshold: float = DEFAULT_GENDER_THRESHOLD,
    table: pd.DataFrame | None = None,
    min_count: float = 0,
) -> pd.DataFrame:
    """Gender of each first name from its share of female births.

    ``table`` replaces the SSA statistics with a user's name table (the layout of
    :func:`name_statistics`, for example from :func:`read_name_table`). Names are looked
    up with accents folded (:func:`gasp.names.name_key`); a name given fewer than
    ``min_count`` times counts as absent from the table.

    Returns one row per input name (in order) with columns ``name`` (as given),
    ``share_female`` (NaN for unknown names), ``total`` (births with the name),
    ``gender`` (``F``, ``M`` or ``None``) and ``reason`` (``None`` when a gender was
    read, else ``not_in_table`` or ``ambiguous``).
    """
    if not 0.5 < threshold <= 1.0:
        raise ConfigError(f"gender threshold must lie in (0.5, 1], got {threshold}")
    if not min_count >= 0:
        raise ConfigError(f"the minimum name count must be >= 0, got {min_count}")
    names_list = list(names)
    totals = (_name_totals() if table is None else table).reindex(_keys(names_list))
    total = totals["total"].fillna(0).to_numpy(dtype=np.int64)
    female = totals["female"].fillna(0).to_numpy(dtype=np.float64)
    known = (total > 0) & (total >= min_count)
    share = np.divide(female, total, out=np.full(total.shape, np.nan), where=known)
    with np.errstate(invalid="ignore"):
        gender = np.select(
            [share >= threshold, share <= 1.0 - threshold], ["F", "M"], default=""
        ).astype(object)
    gender[gender == ""] = None
    reason = np.where(known, AMBIGUOUS, NOT_IN_TABLE).astype(object)
    reason[gender != None] = None  # noqa: E711 (element-wise on an object array)
    return pd.DataFrame(
        {
            "name": pd.Series(names_list, dtype=object),
            "share_female": share,
            "total": total,
            "gender": pd.Series(gender, dtype=object),
            "reason": pd.Series(reason, dtype=object),
        }
    )
