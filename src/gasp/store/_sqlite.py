"""The run store: one SQLite file (WAL mode) per run, the single source of truth."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.errors import ConfigError, DataError
from gasp.store import _migrate
from gasp.store._batches import BatchLedger
from gasp.store._frames import (
    SAMPLES_TRAILING_COLUMNS,
    SCORES_TRAILING_COLUMNS,
    ItemTable,
    chosen_columns,
    concat_chunks,
    finish_frame,
    order_candidates,
    parse_json_column,
    study_name,
)
from gasp.store._items import ItemKinds, insert_items
from gasp.store._peek import connect_read_only, damaged_store, is_writable
from gasp.store._records import (
    ItemRecord,
    ItemStateRecord,
    SampleRecord,
    ScoreRecord,
    stored_json,
    utc_now,
)
from gasp.store._schema import (
    DDL,
    ITEM_COLUMNS,
    SCHEMA_VERSION,
    UPSERT_ITEM_STATE,
)
from gasp.store._writes import Transaction, upsert_samples, upsert_scores

_SAMPLE_FIELDS: dict[str, str] = {
    "item_id": "s.item_id",
    "prompt": "i.prompt",
    **{c: f"s.{c}" for c in SAMPLES_TRAILING_COLUMNS if c != "prompt"},
}
_SCORE_SELECT = (
    "SELECT s.item_id, s.sample_index, s.candidate, s.logprob, s.n_tokens, s.tokens, "
    "s.token_ids, s.approximate, s.status, s.error, s.model_id, s.prompt_tokens, s.latency_s, "
    "s.attempts, s.created_at, s.fault_kinds, i.candidates AS _candidates "
    "FROM scores s JOIN items i ON i.item_id = s.item_id"
)
_ORDER = " ORDER BY i.ordinal, i.rowid, s.sample_index"


class RunStore:
    """A run on disk: its manifest, items, samples, scores and item decisions.

    Open with :meth:`open`. Writes are atomic transactions: a crash loses at most the
    rows not yet committed, which a resumed run requests again.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self._conn = conn
        self._kinds = ItemKinds(conn)

    # -- opening -------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path, *, create: bool = False) -> RunStore:
        """Open the store at ``path``; with ``create`` make it when it does not exist.

        A store of schema version 1 is migrated in place to version 2 first, after a
        backup copy next to it (see :mod:`gasp.store._migrate`). An existing store this
        process may not write (the file or its folder is read-only) opens read-only when
        ``create`` is False: reading works, a write raises :class:`DataError`.
        """
        file = Path(path)
        if not file.exists():
            if not create:
                raise DataError(f"no run store at {file}")
            if not file.parent.exists():
                file.parent.mkdir(parents=True, exist_ok=True)
        elif file.is_dir():
            raise DataError(f"{file} is a directory, not a run store")
        elif not create and file.stat().st_size == 0:  # refused as it is, never rewritten
            raise DataError(f"{file} is empty (0 bytes), not a gasp run store")
        elif not create and not is_writable(file):
            return cls._open_read_only(file)
        try:
            conn = sqlite3.connect(str(file), isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise DataError(f"cannot open run store {file}: {exc}") from None
        store = cls(file, conn)
        try:
            conn.execute("PRAGMA busy_timeout = 10000")
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise DataError(f"cannot use WAL journaling for {file}")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            store._initialize(create)
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise damaged_store(file, exc) from None
        except BaseException:
            conn.close()
            raise
        return store

    @classmethod
    def _open_read_only(cls, file: Path) -> RunStore:
        """Open a store this process may not write, for reading only."""
        conn = connect_read_only(file)
        try:
            if _migrate.schema_version(conn, file) < SCHEMA_VERSION:
                raise DataError(
                    f"{file} is an older run store that must be upgraded, and it is "
                    "read-only; copy the run folder somewhere writable first"
                )
        except BaseException:
            conn.close()
            raise
        return cls(file, conn)

    def _initialize(self, create: bool) -> None:
        tables = {
            r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        if "gasp_meta" in tables:
            version = _migrate.schema_version(self._conn, self.path)
            if version < SCHEMA_VERSION:
                _migrate.migrate_v1(self._conn, self.path)
            _migrate.add_missing_columns(self._conn)
            return
        if tables:
            raise DataError(f"{self.path} is an SQLite file but not a gasp run store")
        if not create:
            raise DataError(f"{self.path} is empty, not a gasp run store")
        with self.transaction():
            for statement in DDL:
                self._conn.execute(statement)
            self._conn.executemany(
                "INSERT INTO gasp_meta (key, value) VALUES (?, ?)",
                [
                    ("schema_version", str(SCHEMA_VERSION)),
                    ("run_id", str(uuid.uuid4())),
                    ("created_at", utc_now()),
                ],
            )

    def close(self) -> None:
        """Checkpoint the write-ahead log and close the file."""
        with contextlib.suppress(sqlite3.Error):
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._conn.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self) -> Transaction:
        """A context manager running its body in one ``BEGIN IMMEDIATE`` transaction."""
        return Transaction(self._conn)

    def integrity_check(self) -> str:
        """SQLite's integrity and foreign key checks: ``ok`` when the file is sound."""
        result = str(self._conn.execute("PRAGMA integrity_check").fetchone()[0])
        if result == "ok" and self._conn.execute("PRAGMA foreign_key_check").fetchone():
            return "foreign key violation"
        return result

    # -- metadata and manifest -----------------------------------------------------

    def meta(self, key: str) -> str | None:
        """A value of the ``gasp_meta`` table."""
        row = self._conn.execute("SELECT value FROM gasp_meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    @property
    def run_id(self) -> str:
        """The run's UUID, fixed when the store is created."""
        return self.meta("run_id") or ""

    def has_manifest(self) -> bool:
        """True once the manifest is written."""
        return self._conn.execute("SELECT 1 FROM manifest WHERE id = 1").fetchone() is not None

    def manifest(self) -> dict[str, Any]:
        """The run manifest (study spec, model, backend, decoding, seed, versions, start time)."""
        row = self._conn.execute("SELECT body FROM manifest WHERE id = 1").fetchone()
        if row is None:
            raise DataError(f"run store {self.path} has no manifest")
        return dict(stored_json(row[0], f"the manifest of {self.path}", dict))

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Write the manifest once; a second call raises :class:`ConfigError`."""
        body = json.dumps(manifest, ensure_ascii=False)  # keeps the study's own order
        try:
            with self.transaction():
                if self._conn.execute("SELECT 1 FROM manifest WHERE id = 1").fetchone():
                    raise ConfigError(f"run store {self.path} already has a manifest")
                self._conn.execute("INSERT INTO manifest (id, body) VALUES (1, ?)", (body,))
        except sqlite3.DatabaseError as exc:  # a full disk: one line, not a traceback
            raise damaged_store(self.path, exc) from None

    def _study_name(self) -> str | None:
        return study_name(self.manifest()) if self.has_manifest() else None

    # -- items ---------------------------------------------------------------------

    def write_items(self, records: Iterable[ItemRecord]) -> int:
        """Insert items in one transaction; return how many were new.

        An item already stored with the same content is left as it is; one stored with
        other content (ordinal, kind, prompt, messages, candidates or attributes)
        raises :class:`DataError` naming it, and nothing is written.
        """
        rows = [r.as_row() for r in records]
        if not rows:
            return 0
        try:
            with self.transaction():
                return insert_items(self._conn, rows)
        except sqlite3.DatabaseError as exc:  # a full disk: one line, not a traceback
            raise damaged_store(self.path, exc) from None

    def items(self) -> pd.DataFrame:
        """Every item, by ordinal: item_id, ordinal, kind, prompt, messages, candidates, then
        one column per attribute (messages and candidates parsed from JSON, or None)."""
        frame = pd.read_sql_query(
            f"SELECT {', '.join(ITEM_COLUMNS[:-1])} FROM items ORDER BY ordinal, rowid",
            self._conn,
        )
        for column in ("messages", "candidates"):
            parse_json_column(frame, column)
        frame["ordinal"] = frame["ordinal"].astype("int64")
        return self._item_table().attach(frame, after="candidates")

    def item_records(self) -> list[ItemRecord]:
        """Every item as an :class:`ItemRecord`, by ordinal."""
        rows = self._conn.execute(
            f"SELECT {', '.join(ITEM_COLUMNS)} FROM items ORDER BY ordinal, rowid"
        ).fetchall()
        return [ItemRecord.from_row(tuple(r)) for r in rows]

    def _item_table(self) -> ItemTable:
        return ItemTable(
            self._conn.execute("SELECT item_id, attributes FROM items ORDER BY ordinal, rowid")
        )

    # -- samples -------------------------------------------------------------------

    def write_samples(self, records: Iterable[SampleRecord]) -> int:
        """Write samples in one transaction; return how many rows were inserted or replaced.

        A sample that already succeeded is never overwritten; an error row is replaced.
        Every sample's item must be a stored ``generate`` item.
        """
        records = list(records)
        if not records:
            return 0
        with self.transaction():
            return upsert_samples(self._conn, self._kinds, records, utc_now())

    def stored_samples(self) -> pd.DataFrame:
        """Key, outcome and text of every stored row (what a resumed run starts from)."""
        return pd.read_sql_query(
            "SELECT item_id, sample_index, stop_reason, text, prompt_tokens, completion_tokens "
            "FROM samples ORDER BY id",
            self._conn,
        )

    def count_samples(self, *, include_errors: bool = False) -> int:
        """Number of stored samples."""
        where = "" if include_errors else " WHERE stop_reason != 'error'"
        return int(self._conn.execute(f"SELECT COUNT(*) FROM samples{where}").fetchone()[0])

    def samples(
        self,
        *,
        include_errors: bool = False,
        columns: Iterable[str] | None = None,
        chunk_size: int = 100_000,
    ) -> pd.DataFrame:
        """Every stored sample as a DataFrame, in study order (item ordinal, sample index).

        Columns: ``run_id, study, item_id``, one column per item attribute (first-seen
        order), then :data:`SAMPLES_TRAILING_COLUMNS`, or only those named in
        ``columns`` (``sample_index`` is always kept). Rows that record an error are
        left out unless ``include_errors``. Rows are read ``chunk_size`` at a time, so
        reading a large run holds its text once.
        """
        trailing = chosen_columns(SAMPLES_TRAILING_COLUMNS, columns)
        select = ", ".join(_SAMPLE_FIELDS[c] for c in ("item_id", *trailing))
        join = " JOIN items i ON i.item_id = s.item_id"
        where = "" if include_errors else " WHERE s.stop_reason != 'error'"
        parts = pd.read_sql_query(
            f"SELECT {select} FROM samples s{join}{where}{_ORDER}",
            self._conn,
            chunksize=max(1, int(chunk_size)),
        )
        frames = list(parts)  # with no row, one empty frame that has the columns
        frame = concat_chunks(frames)
        del frames
        return finish_frame(
            frame,
            run_id=self.run_id,
            study=self._study_name(),
            items=self._item_table(),
            trailing=trailing,
            nullable_ints=tuple(
                c for c in ("prompt_tokens", "completion_tokens", "seed") if c in trailing
            ),
        )

    # -- scores --------------------------------------------------------------------

    def write_scores(self, records: Iterable[ScoreRecord]) -> int:
        """Write scores in one transaction; return how many rows were inserted or replaced.

        A score that succeeded is never overwritten; an error row is replaced. Every
        score's item must be a stored ``score`` item listing the candidate.
        """
        records = list(records)
        if not records:
            return 0
        with self.transaction():
            return upsert_scores(self._conn, self._kinds, records, utc_now())

    def stored_scores(self) -> pd.DataFrame:
        """Key, status and log-probability of every stored score (what a resumed run reads)."""
        return pd.read_sql_query(
            "SELECT item_id, sample_index, candidate, status, logprob FROM scores ORDER BY id",
            self._conn,
        )

    def count_scores(self, *, include_errors: bool = False) -> int:
        """Number of stored scores."""
        where = "" if include_errors else " WHERE status != 'error'"
        return int(self._conn.execute(f"SELECT COUNT(*) FROM scores{where}").fetchone()[0])

    def scores(self, *, include_errors: bool = False) -> pd.DataFrame:
        """Every stored score as a DataFrame, by item ordinal, sample index and candidate.

        Columns: ``run_id, study, item_id``, the attribute columns, then
        :data:`SCORES_TRAILING_COLUMNS` (``tokens`` and ``token_ids`` as lists,
        ``approximate`` as bool). Candidates keep the item's order. Error rows are
        left out unless ``include_errors``.
        """
        where = "" if include_errors else " WHERE s.status != 'error'"
        frame = pd.read_sql_query(_SCORE_SELECT + where + _ORDER + ", s.id", self._conn)
        frame = order_candidates(frame)
        for column in ("tokens", "token_ids"):
            parse_json_column(frame, column)
        frame["approximate"] = frame["approximate"].astype(bool)
        frame["logprob"] = frame["logprob"].astype("float64")
        return finish_frame(
            frame,
            run_id=self.run_id,
            study=self._study_name(),
            items=self._item_table(),
            trailing=SCORES_TRAILING_COLUMNS,
            nullable_ints=("n_tokens", "prompt_tokens"),
        )

    # -- one answer ----------------------------------------------------------------

    def write_answer(
        self,
        samples: Iterable[SampleRecord] = (),
        scores: Iterable[ScoreRecord] = (),
        states: Iterable[ItemStateRecord] = (),
    ) -> None:
        """Commit one answer (its sample, or its scores) and the item decisions it
        changed in one transaction: on return it survives a kill of the process."""
        samples, scores, states = list(samples), list(scores), list(states)
        now = utc_now()
        with self.transaction():
            if samples:
                upsert_samples(self._conn, self._kinds, samples, now)
            if scores:
                upsert_scores(self._conn, self._kinds, scores, now)
            if states:
                self._kinds.check(((r.item_id, None) for r in states), None)
                self._conn.executemany(UPSERT_ITEM_STATE, [r.as_row(now) for r in states])

    # -- item states ---------------------------------------------------------------

    def write_item_states(self, records: Iterable[ItemStateRecord]) -> None:
        """Record the runner's latest decisions for stored items (one transaction)."""
        records = list(records)
        now = utc_now()
        rows = [r.as_row(now) for r in records]
        if rows:
            with self.transaction():
                self._kinds.check(((r.item_id, None) for r in records), None)
                self._conn.executemany(UPSERT_ITEM_STATE, rows)

    def item_states(self) -> pd.DataFrame:
        """The latest decision per item, by ordinal: item_id, the attribute columns,
        status, reason, n_samples, counts (a dict, or None) and updated_at."""
        frame = pd.read_sql_query(
            "SELECT s.item_id, s.status, s.reason, s.n_samples, s.counts, s.updated_at "
            "FROM item_states s JOIN items i ON i.item_id = s.item_id ORDER BY i.ordinal, i.rowid",
            self._conn,
        )
        parse_json_column(frame, "counts")
        frame["n_samples"] = frame["n_samples"].astype("int64")
        return self._item_table().attach(frame)

    def batch_ledger(self) -> BatchLedger:
        """The store's record of provider batches (``--batch``; docs/batch.md)."""
        return BatchLedger(self._conn, self._kinds)

    # -- sessions ------------------------------------------------------------------

    def begin_session(self) -> int:
        """Record the start of one runner invocation; return its id."""
        with self.transaction():
            cur = self._conn.execute("INSERT INTO sessions (started_at) VALUES (?)", (utc_now(),))
            return int(cur.lastrowid or 0)

    def end_session(self, session: int, outcome: str, summary: dict[str, Any]) -> None:
        """Record how a runner invocation ended."""
        with self.transaction():
            self._conn.execute(
                "UPDATE sessions SET finished_at = ?, outcome = ?, summary = ? WHERE id = ?",
                (utc_now(), outcome, json.dumps(summary, sort_keys=True), session),
            )

    def sessions(self) -> pd.DataFrame:
        """One row per runner invocation on this store."""
        return pd.read_sql_query("SELECT * FROM sessions ORDER BY id", self._conn)
