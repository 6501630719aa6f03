"""The run store's record of provider batches (the ``batches`` table, see docs/batch.md).

A submission to a provider's batch API is written here before the provider is asked
(status ``submitting``), updated with the provider's batch id once it exists, and
marked ``collected`` in the same transaction that commits its answers, so every
answer is committed once and a killed run finds its batches again.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gasp.store._items import ItemKinds
from gasp.store._records import SampleRecord, ScoreRecord, utc_now
from gasp.store._schema import (
    BATCH_COLUMNS,
    BATCH_DONE_STATUSES,
    BATCHES_DDL,
)
from gasp.store._writes import Transaction, upsert_samples, upsert_scores


@dataclass(frozen=True)
class BatchRecord:
    """One submission to a provider's batch API (a row of ``batches``).

    ``submission`` is the run's own id for it (sent to the provider as batch
    metadata); ``batch_id`` the provider's, None until the provider created it;
    ``request_keys`` the request keys of the lines it carries.
    """

    submission: str
    request_keys: tuple[str, ...]
    status: str = "submitting"
    batch_id: str | None = None
    input_file_id: str | None = None
    output_file_id: str | None = None
    error_file_id: str | None = None
    counts: Mapping[str, Any] | None = None
    error: str | None = None

    @property
    def done(self) -> bool:
        """True once its lines are committed, or when the provider never created it."""
        return self.status in BATCH_DONE_STATUSES


class BatchLedger:
    """Reads and writes the ``batches`` table of one open store.

    The table is created when missing (a version 2 store written before it existed).
    """

    def __init__(self, conn: sqlite3.Connection, kinds: ItemKinds) -> None:
        self._conn = conn
        self._kinds = kinds
        self._conn.execute(BATCHES_DDL)

    def records(self) -> list[BatchRecord]:
        """Every batch, in submission order."""
        rows = self._conn.execute(
            f"SELECT {', '.join(BATCH_COLUMNS[:-2])} FROM batches ORDER BY id"
        ).fetchall()
        return [_from_row(tuple(r)) for r in rows]

    def open_records(self) -> list[BatchRecord]:
        """The batches whose lines are not committed yet (what a resumed run polls)."""
        return [r for r in self.records() if not r.done]

    def add(self, record: BatchRecord) -> None:
        """Record a new submission (one transaction)."""
        now = utc_now()
        row = (*_to_row(record), now, now)
        self._write(
            f"INSERT INTO batches ({', '.join(BATCH_COLUMNS)}) "
            f"VALUES ({', '.join('?' for _ in BATCH_COLUMNS)})",
            row,
        )

    def update(self, record: BatchRecord) -> None:
        """Write a submission's new provider ids, status, counts and error (one transaction)."""
        self._write(_UPDATE, (*_to_row(record)[1:], utc_now(), record.submission))

    def commit(
        self,
        record: BatchRecord,
        samples: Sequence[SampleRecord],
        scores: Sequence[ScoreRecord],
    ) -> None:
        """Write a batch's answers and its new state (``collected``) in ONE transaction.

        Samples and scores follow the store's rule: an answer that succeeded is never
        replaced, an error row is.
        """
        now = utc_now()
        with Transaction(self._conn) as conn:
            if samples:
                upsert_samples(conn, self._kinds, samples, now)
            if scores:
                upsert_scores(conn, self._kinds, scores, now)
            conn.execute(_UPDATE, (*_to_row(record)[1:], now, record.submission))

    def _write(self, sql: str, row: Iterable[Any]) -> None:
        with Transaction(self._conn) as conn:
            conn.execute(sql, tuple(row))


_UPDATE = (
    "UPDATE batches SET "
    + ", ".join(f"{c} = ?" for c in BATCH_COLUMNS[1:-2])
    + ", updated_at = ? WHERE submission = ?"
)


def _to_row(record: BatchRecord) -> tuple[Any, ...]:
    return (
        record.submission,
        record.batch_id,
        json.dumps(list(record.request_keys), ensure_ascii=False),
        record.status,
        record.input_file_id,
        record.output_file_id,
        record.error_file_id,
        None if record.counts is None else json.dumps(dict(record.counts), sort_keys=True),
        record.error,
    )


def _from_row(row: tuple[Any, ...]) -> BatchRecord:
    submission, batch_id, keys, status, input_id, output_id, error_id, counts, error = row
    return BatchRecord(
        submission=str(submission),
        request_keys=tuple(str(k) for k in json.loads(keys)),
        status=str(status),
        batch_id=batch_id,
        input_file_id=input_id,
        output_file_id=output_id,
        error_file_id=error_id,
        counts=None if counts is None else dict(json.loads(counts)),
        error=error,
    )
