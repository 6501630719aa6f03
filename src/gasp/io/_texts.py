"""A user's texts in one frame: the roles a study needs, the rows chosen, and one note
per thing left out or assumed.

A study declares the columns it reads as :class:`TableRole` s (``text`` first); a user
maps their own column names onto them (``--column ROLE=NAME``) and chooses rows
(``--where COLUMN=VALUE``). Everything :func:`read_texts` leaves out or assumes is one
line in :attr:`TextTable.notes`, printed and saved with the results; nothing is dropped
silently.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gasp.errors import ConfigError, DataError
from gasp.io._tables import refuse_repeated_names
from gasp.text import parse_assignments

#: Columns that name the model or source of a text: a table holding several values in
#: one of them is refused unless ``--where`` picks one.
SOURCE_COLUMNS = ("model", "model_id", "model_name", "source")
#: The columns that name the model of a text (other tools' logs write ``model``).
MODEL_COLUMNS = ("model", "model_id", "model_name")
#: The role holding each text.
TEXT_ROLE = "text"
#: Roles that number a text among others (repeats of one prompt): whole numbers >= 0.
INDEX_ROLES = ("sample_index",)


@dataclass(frozen=True)
class TableRole:
    """One column a study reads from a table of texts."""

    name: str
    help: str
    required: bool = True
    #: The note written when an optional role's column is absent (None: no note).
    when_missing: str | None = None


@dataclass
class TextTable:
    """Texts and their attributes, one row per text, columns named by role."""

    frame: pd.DataFrame
    source: str
    format: str
    notes: list[str] = field(default_factory=list)

    def model(self) -> str | None:
        """The model that wrote the texts: the values of the first model column
        (:data:`MODEL_COLUMNS`) the table has, joined by ", " (one value unless rows of
        several were let through), or None."""
        for column in MODEL_COLUMNS:
            if column in self.frame.columns:
                values = sorted({v for v in _as_text(self.frame[column]) if v})
                if values:
                    return ", ".join(values)
        return None

    def record(self) -> dict[str, Any]:
        """What was read and every note, for the results' settings."""
        return {
            "source": self.source,
            "format": self.format,
            "rows": len(self.frame),
            "notes": list(self.notes),
        }


def column_mapping(values: Iterable[str], roles: Sequence[TableRole]) -> dict[str, str]:
    """``--column ROLE=NAME`` values as role -> column name, checked against ``roles``."""
    known = {r.name for r in roles}
    mapping: dict[str, str] = {}
    for role, names in parse_assignments(values, "--column").items():
        if role not in known:
            raise ConfigError(f"--column {role}: no such role (roles: {', '.join(sorted(known))})")
        if len(names) > 1:
            raise ConfigError(f"--column {role} is given twice")
        mapping[role] = names[0]
    read_as: dict[str, str] = {}
    for role, name in mapping.items():
        if name in read_as:
            raise ConfigError(
                f"--column {read_as[name]}={name} and --column {role}={name} read one column "
                "as two roles: name a different column for each"
            )
        read_as[name] = role
    return mapping


def _as_text(values: pd.Series) -> pd.Series:
    return values.map(lambda v: "" if v is None or (isinstance(v, float) and v != v) else str(v))


def select_rows(
    frame: pd.DataFrame, where: Mapping[str, Sequence[str]], source: str
) -> tuple[pd.DataFrame, list[str]]:
    """The rows whose ``column`` equals one of its values (compared as text), for each
    column of ``where``; a note of how many rows were kept."""
    if not where:
        return frame, []
    keep = pd.Series(True, index=frame.index)
    for column, values in where.items():
        if column not in frame.columns:
            known = ", ".join(map(str, frame.columns))
            raise DataError(f"--where {column}: no such column in {source} (columns: {known})")
        keep &= _as_text(frame[column]).isin(values)
    chosen = ", ".join(f"{c}={'|'.join(v)}" for c, v in where.items())
    if not keep.any():
        raise DataError(f"no row of {source} has {chosen}")
    note = f"kept {int(keep.sum())} of {len(frame)} rows where {chosen}"
    return frame[keep], [note]


def check_single_source(frame: pd.DataFrame, source: str, ignore: Iterable[str] = ()) -> None:
    """Refuse a table whose model/source column holds several values (pooling texts of
    several models silently would mix them)."""
    skip = set(ignore)
    for column in SOURCE_COLUMNS:
        if column in frame.columns and column not in skip:
            values = sorted({v for v in _as_text(frame[column]) if v})
            if len(values) > 1:
                shown = ", ".join(repr(v) for v in values[:8])
                more = f" and {len(values) - 8} more" if len(values) > 8 else ""
                raise ConfigError(
                    f"{source} holds texts of several {column}s ({shown}{more}); "
                    f"choose one with --where {column}=VALUE"
                )


def apply_roles(
    frame: pd.DataFrame,
    roles: Sequence[TableRole],
    columns: Mapping[str, str],
    source: str,
) -> tuple[pd.DataFrame, list[str]]:
    """Rename the mapped columns to their roles and check the required ones; notes for
    each renamed column and each absent optional role that has a note."""
    notes: list[str] = []
    out = frame.copy()
    for role in roles:
        name = columns.get(role.name)
        if name is not None and name != role.name:
            if name not in out.columns:
                raise DataError(
                    f"--column {role.name}={name}: no such column in {source} "
                    f"(columns: {', '.join(map(str, out.columns))})"
                )
            if role.name in out.columns:
                out = out.drop(columns=[role.name])
                notes.append(f"column {role.name!r} of the table left aside for {name!r}")
            out = out.rename(columns={name: role.name})
            notes.append(f"column {name!r} read as {role.name}")
    needed = ", ".join(r.name for r in roles if r.required)
    for role in roles:
        if role.name in out.columns:
            continue
        if role.required:
            raise DataError(
                f"{source} has no column {role.name!r} (needed: {needed}); "
                f"name yours with --column {role.name}=COLUMN"
            )
        if role.when_missing:
            notes.append(role.when_missing)
    return out, notes


def check_indexes(frame: pd.DataFrame, source: str) -> None:
    """Refuse an index column (:data:`INDEX_ROLES`) holding anything but whole numbers
    >= 0 (NaN, infinity, a fraction, a negative number or a word), naming its first
    such row (counted from 1 after the header, as the table was read)."""
    for role in INDEX_ROLES:
        if role not in frame.columns:
            continue
        values = pd.to_numeric(frame[role], errors="coerce").astype(float)
        whole = values.notna() & values.abs().lt(float("inf")) & values.ge(0)
        whole &= values.where(whole, 0).mod(1).eq(0)
        if not whole.all():
            at = int(whole.to_numpy().argmin())
            label = frame.index[at]
            row = label + 1 if isinstance(label, int | np.integer) else repr(label)
            value = frame[role].iloc[at]
            shown = repr(value) if isinstance(value, str) else str(value)
            raise DataError(
                f"{source}: {role} must be a whole number >= 0 in every row; row {row} "
                f"has {shown}: fix or remove that column"
            )


def drop_empty_texts(frame: pd.DataFrame, source: str) -> tuple[pd.DataFrame, list[str]]:
    """Texts as strings; rows without text dropped, with a note of how many."""
    texts = _as_text(frame[TEXT_ROLE])
    empty = texts.str.strip() == ""
    if empty.all():
        raise DataError(f"{source} has no text in any row")
    out = frame.assign(**{TEXT_ROLE: texts})[~empty].reset_index(drop=True)
    notes = [f"dropped {int(empty.sum())} rows with empty text"] if empty.any() else []
    return out, notes


def texts_from_frame(
    frame: pd.DataFrame,
    roles: Sequence[TableRole],
    *,
    source: str,
    fmt: str,
    columns: Mapping[str, str] | None = None,
    where: Mapping[str, Sequence[str]] | None = None,
    notes: Sequence[str] = (),
) -> TextTable:
    """Rows chosen by ``where``, one source checked, columns mapped to ``roles``, empty
    texts dropped: each step's notes kept in order."""
    mapping = dict(columns or {})
    refuse_repeated_names(frame.columns, source)
    kept, where_notes = select_rows(frame, dict(where or {}), source)
    check_single_source(kept, source, ignore=mapping.values())
    mapped, role_notes = apply_roles(kept, roles, mapping, source)
    check_indexes(mapped, source)
    texts, empty_notes = drop_empty_texts(mapped, source)
    return TextTable(texts, source, fmt, [*notes, *where_notes, *role_notes, *empty_notes])


def read_texts(
    path: str | Path,
    roles: Sequence[TableRole],
    *,
    fmt: str | None = None,
    columns: Mapping[str, str] | None = None,
    where: Mapping[str, Sequence[str]] | None = None,
) -> TextTable:
    """The texts of a table or another tool's log at ``path`` (see :func:`read_frame`)
    with the columns of ``roles``; see :func:`texts_from_frame`."""
    from gasp.io._sources import read_frame

    frame, found, notes = read_frame(path, fmt)
    return texts_from_frame(
        frame, roles, source=str(path), fmt=found, columns=columns, where=where, notes=notes
    )
