"""Writing items once and checking that samples and scores refer to stored items."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from gasp.errors import DataError
from gasp.store._schema import INSERT_ITEM, ITEM_COLUMNS


def insert_items(conn: sqlite3.Connection, rows: Sequence[tuple[Any, ...]]) -> int:
    """Insert item rows (inside the caller's transaction); return how many were new.

    A row already stored with the same values is skipped; one stored with other
    values raises :class:`DataError` naming the item and the first column that differs.
    """
    inserted = 0
    select = f"SELECT {', '.join(ITEM_COLUMNS)} FROM items WHERE item_id = ?"
    for row in rows:
        stored = conn.execute(select, (row[0],)).fetchone()
        if stored is None:
            conn.execute(INSERT_ITEM, row)
            inserted += 1
        elif tuple(stored) != tuple(row):
            field, old, new = next(
                (c, a, b) for c, a, b in zip(ITEM_COLUMNS, stored, row, strict=True) if a != b
            )
            raise DataError(
                f"item {row[0]!r} is stored with another {field} ({old!r}, now {new!r})"
            )
    return inserted


class ItemKinds:
    """The kind and candidates of stored items, read once each (items never change)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._known: dict[str, tuple[str, frozenset[str]]] = {}

    def check(self, keys: Iterable[tuple[str, str | None]], kind: str | None) -> None:
        """Raise :class:`DataError` unless every (item, candidate) is a stored item of
        ``kind`` (of any kind when None); a candidate of None is not checked."""
        for item_id, candidate in keys:
            known = self._known.get(item_id)
            if known is None:
                row = self._conn.execute(
                    "SELECT kind, candidates FROM items WHERE item_id = ?", (item_id,)
                ).fetchone()
                if row is None:
                    raise DataError(f"item {item_id!r} is not in the store; write it first")
                known = (row[0], frozenset(json.loads(row[1]) if row[1] else ()))
                self._known[item_id] = known
            if kind is not None and known[0] != kind:
                raise DataError(f"item {item_id!r} is a {known[0]} item, not a {kind} item")
            if candidate is not None and candidate not in known[1]:
                raise DataError(f"item {item_id!r} has no candidate {candidate!r}")
