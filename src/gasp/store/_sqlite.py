"""The run store: one SQLite file (WAL mode) per run, the single source of truth."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.errors import ConfigError, DataError
from gasp.store._schema import (
    CELL_COLUMNS,
    DDL,
    SAMPLE_COLUMNS,
    SCHEMA_VERSION,
    UPSERT_CELL,
    UPSERT_SAMPLE,
)
from gasp.studies import Study

#: Columns of :meth:`RunStore.samples`, in order.
SAMPLES_FRAME_COLUMNS: tuple[str, ...] = (
    "run_id",
    "study",
    "template",
    "subject",
    "condition",
    "named_gender",
    "sample_index",
    "prompt",
    "text",
    "stop_reason",
    "error",
    "model_id",
    "prompt_tokens",
    "completion_tokens",
    "latency_s",
    "attempts",
    "created_at",
    "seed",
    "fault_kinds",
)


def utc_now() -> str:
    """The current UTC time in ISO 8601 with microseconds."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class SampleRecord:
    """One row of the ``samples`` table (see :mod:`gasp.store._schema`)."""

    template: str
    subject: str
    condition: str
    sample_index: int
    named_gender: str | None
    prompt: str
    seed: int | None
    text: str | None
    stop_reason: str
    error: str | None = None
    fault_kinds: str | None = None
    model_id: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float | None = None
    attempts: int = 1
    created_at: str = ""

    def as_row(self) -> tuple[Any, ...]:
        """Values in the order of :data:`SAMPLE_COLUMNS`."""
        values = [getattr(self, c) for c in SAMPLE_COLUMNS]
        if not self.created_at:
            values[SAMPLE_COLUMNS.index("created_at")] = utc_now()
        return tuple(values)


@dataclass(frozen=True)
class CellRecord:
    """One row of the ``cells`` table: the runner's decision for a cell."""

    template: str
    subject: str
    condition: str
    status: str
    reason: str | None
    n_samples: int
    n_female: int | None = None
    n_male: int | None = None

    def as_row(self) -> tuple[Any, ...]:
        """Values in the order of :data:`CELL_COLUMNS`."""
        return (*(getattr(self, c) for c in CELL_COLUMNS[:-1]), utc_now())


def read_manifest(path: str | Path) -> dict[str, Any] | None:
    """The manifest of an existing store, opened read-only (the file is not modified).

    Returns None when the file has no manifest yet; raises :class:`DataError` when the
    file is not a gasp run store.
    """
    file = Path(path)
    try:
        conn = sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise DataError(f"cannot open run store {file}: {exc}") from None
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            return None
        if "manifest" not in tables:
            raise DataError(f"{file} is not a gasp run store")
        row = conn.execute("SELECT body FROM manifest WHERE id = 1").fetchone()
    except sqlite3.DatabaseError as exc:
        raise DataError(f"{file} is not a gasp run store ({exc})") from None
    finally:
        conn.close()
    return None if row is None else dict(json.loads(row[0]))


class RunStore:
    """A run on disk: its manifest, one row per requested sample, and cell decisions.

    Open with :meth:`open`. Writes are atomic transactions: a crash loses at most the
    rows not yet committed, which a resumed run requests again.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self._conn = conn

    # -- opening -------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path, *, create: bool = False) -> RunStore:
        """Open the store at ``path``; with ``create`` make it when it does not exist."""
        file = Path(path)
        if not file.exists():
            if not create:
                raise DataError(f"no run store at {file}")
            if not file.parent.exists():
                file.parent.mkdir(parents=True, exist_ok=True)
        elif file.is_dir():
            raise DataError(f"{file} is a directory, not a run store")
        try:
            conn = sqlite3.connect(str(file), isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA busy_timeout = 10000")
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise DataError(f"cannot use WAL journaling for {file}")
            conn.execute("PRAGMA synchronous = NORMAL")
            store = cls(file, conn)
            store._initialize(create)
        except sqlite3.DatabaseError as exc:
            raise DataError(f"{file} is not a gasp run store ({exc})") from None
        return store

    def _initialize(self, create: bool) -> None:
        tables = {
            r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        if "gasp_meta" in tables:
            version = self.meta("schema_version")
            if version is None or int(version) != SCHEMA_VERSION:
                self.close()
                raise DataError(
                    f"{self.path} has store schema version {version}; "
                    f"this gasp reads version {SCHEMA_VERSION}"
                )
            return
        if tables:
            self.close()
            raise DataError(f"{self.path} is an SQLite file but not a gasp run store")
        if not create:
            self.close()
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

    def transaction(self) -> _Transaction:
        """A context manager running its body in one ``BEGIN IMMEDIATE`` transaction."""
        return _Transaction(self._conn)

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
        return dict(json.loads(row[0]))

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Write the manifest once; a second call raises :class:`ConfigError`."""
        body = json.dumps(manifest, ensure_ascii=False)  # keeps the study's own order
        with self.transaction():
            if self._conn.execute("SELECT 1 FROM manifest WHERE id = 1").fetchone() is not None:
                raise ConfigError(f"run store {self.path} already has a manifest")
            self._conn.execute("INSERT INTO manifest (id, body) VALUES (1, ?)", (body,))

    def study(self) -> Study:
        """The study this run generates, rebuilt from the manifest."""
        return Study.from_dict(self.manifest()["study"])

    # -- samples -------------------------------------------------------------------

    def write_samples(self, records: Iterable[SampleRecord]) -> int:
        """Write samples in one transaction; return how many rows were inserted or replaced.

        A sample that already succeeded is never overwritten; an error row is replaced.
        """
        rows = [r.as_row() for r in records]
        if not rows:
            return 0
        with self.transaction():
            before = self._conn.total_changes
            self._conn.executemany(UPSERT_SAMPLE, rows)
            return self._conn.total_changes - before

    def write_cells(self, records: Iterable[CellRecord]) -> None:
        """Record the runner's decisions for cells (one transaction)."""
        rows = [r.as_row() for r in records]
        if rows:
            with self.transaction():
                self._conn.executemany(UPSERT_CELL, rows)

    def stored_samples(self) -> pd.DataFrame:
        """Key, outcome and text of every stored row (what a resumed run starts from)."""
        return pd.read_sql_query(
            "SELECT template, subject, condition, sample_index, stop_reason, text, "
            "prompt_tokens, completion_tokens FROM samples",
            self._conn,
        )

    def count_samples(self, *, include_errors: bool = False) -> int:
        """Number of stored samples."""
        where = "" if include_errors else " WHERE stop_reason != 'error'"
        return int(self._conn.execute(f"SELECT COUNT(*) FROM samples{where}").fetchone()[0])

    def samples(self, *, include_errors: bool = False) -> pd.DataFrame:
        """Every stored sample as a DataFrame (columns :data:`SAMPLES_FRAME_COLUMNS`).

        Rows are in study order (subject, template, condition as the study lists them),
        then by sample index. Rows that record an error are left out unless
        ``include_errors``.
        """
        where = "" if include_errors else " WHERE stop_reason != 'error'"
        frame = pd.read_sql_query(
            f"SELECT {', '.join(SAMPLE_COLUMNS)} FROM samples{where}", self._conn
        )
        manifest = self.manifest() if self.has_manifest() else {}
        study = manifest.get("study", {})
        frame.insert(0, "study", study.get("name"))
        frame.insert(0, "run_id", self.run_id)
        frame = _study_order(frame, study)
        frame["named_gender"] = (
            frame["named_gender"].astype(object).where(frame["named_gender"].notna(), None)
        )
        for col in ("prompt_tokens", "completion_tokens", "seed"):
            frame[col] = frame[col].astype("Int64")
        frame["attempts"] = frame["attempts"].astype("int64")
        frame["sample_index"] = frame["sample_index"].astype("int64")
        frame["latency_s"] = frame["latency_s"].astype("float64")
        return frame[list(SAMPLES_FRAME_COLUMNS)].reset_index(drop=True)

    def cells(self) -> pd.DataFrame:
        """The runner's latest decision per cell (status, reason, counts)."""
        frame = pd.read_sql_query(f"SELECT {', '.join(CELL_COLUMNS)} FROM cells", self._conn)
        study = self.manifest().get("study", {}) if self.has_manifest() else {}
        return _study_order(frame, study, by_index=False).reset_index(drop=True)

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

    def integrity_check(self) -> str:
        """SQLite's ``PRAGMA integrity_check`` result (``ok`` when the file is sound)."""
        return str(self._conn.execute("PRAGMA integrity_check").fetchone()[0])


class _Transaction:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self._conn.execute("BEGIN IMMEDIATE")
        return self._conn

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            self._conn.execute("COMMIT")
        else:
            self._conn.execute("ROLLBACK")


def _study_order(
    frame: pd.DataFrame, study: dict[str, Any], *, by_index: bool = True
) -> pd.DataFrame:
    """Sort rows by the study's own order of subjects, templates and conditions."""
    if frame.empty:
        return frame
    orders: list[Sequence[str]] = [
        [s["name"] for s in study.get("subjects", [])],
        list(study.get("templates", {})),
        [c["name"] for c in study.get("conditions", [])],
    ]
    keys = []
    for col, order in zip(("subject", "template", "condition"), orders, strict=True):
        rank = {name: i for i, name in enumerate(order)}
        keys.append(frame[col].map(rank).fillna(len(rank)).astype("int64"))
    frame = frame.assign(_s=keys[0], _t=keys[1], _c=keys[2])
    columns = ["_s", "_t", "_c", "sample_index"] if by_index else ["_s", "_t", "_c"]
    frame = frame.sort_values(columns, kind="stable")
    return frame.drop(columns=["_s", "_t", "_c"])
