"""Writes to a run store: one transaction, and the upserts of samples and scores.

Both the store (:class:`~gasp.store.RunStore`) and the batch ledger write answers;
they share these so that an answer's rule (one that succeeded is never replaced, an
error row is) and the transaction's rollback live in one place.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence

from gasp.store._items import ItemKinds
from gasp.store._records import SampleRecord, ScoreRecord
from gasp.store._schema import UPSERT_SAMPLE, UPSERT_SCORE


class Transaction:
    """Runs its body in one ``BEGIN IMMEDIATE`` transaction; rolls back on any exception."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self._conn.execute("BEGIN IMMEDIATE")
        return self._conn

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            try:
                self._conn.execute("COMMIT")
            except sqlite3.Error:
                self._rollback()  # a failed COMMIT (a full disk) leaves the transaction open
                raise
        else:
            self._rollback()

    def _rollback(self) -> None:
        if self._conn.in_transaction:
            # SQLite may have rolled back already (an I/O error ends the transaction)
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")


def upsert_samples(
    conn: sqlite3.Connection, kinds: ItemKinds, records: Sequence[SampleRecord], now: str
) -> int:
    """Write ``records`` (inside the caller's transaction); the number of rows changed.

    Every sample's item must be a stored ``generate`` item.
    """
    kinds.check(((r.item_id, None) for r in records), "generate")
    before = conn.total_changes
    conn.executemany(UPSERT_SAMPLE, [r.as_row(now) for r in records])
    return conn.total_changes - before


def upsert_scores(
    conn: sqlite3.Connection, kinds: ItemKinds, records: Sequence[ScoreRecord], now: str
) -> int:
    """Write ``records`` (inside the caller's transaction); the number of rows changed.

    Every score's item must be a stored ``score`` item listing the candidate.
    """
    kinds.check(((r.item_id, r.candidate) for r in records), "score")
    before = conn.total_changes
    conn.executemany(UPSERT_SCORE, [r.as_row(now) for r in records])
    return conn.total_changes - before
