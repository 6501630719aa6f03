"""Read-only looks into a run store: what it holds, how far a run has come, how it ended.

Every connection is opened with SQLite's ``mode=ro`` URI (``immutable=1`` where no
write-ahead log shows a writer), so viewing a run never writes beside its store.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gasp.errors import DataError
from gasp.store import lock_holder, read_only_uri


def _connect(store: Path) -> sqlite3.Connection:
    """A read-only connection whose schema could be read: ``mode=ro`` where a write-ahead
    log shows a writer (falling back to immutable where its shared memory cannot be
    opened, as in a read-only folder), else immutable (nothing is written beside it)."""
    plain = read_only_uri(store)
    uris = [plain, plain + "&immutable=1"] if Path(f"{store}-wal").exists() else []
    uris = uris or [plain + "&immutable=1"]
    failure: Exception | None = None
    for uri in uris:
        try:
            conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
        except sqlite3.Error as exc:
            failure = exc
            continue
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        except sqlite3.OperationalError as exc:
            conn.close()
            failure = exc
            continue
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise DataError(f"{store.name} is not a readable run store: {exc}") from None
        if "gasp_meta" not in tables or "manifest" not in tables:
            conn.close()
            raise DataError(f"{store.name} is not a gasp run store")
        return conn
    raise DataError(f"cannot open run store {store.name}: {failure}")


@contextlib.contextmanager
def read_only(store: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to ``store``; a file that is not a readable gasp store is a
    :class:`DataError` with SQLite's reason."""
    conn = _connect(store)
    try:
        yield conn
    except sqlite3.DatabaseError as exc:
        raise DataError(f"{store.name} cannot be read: {exc}") from None
    finally:
        conn.close()


@dataclass(frozen=True)
class StoreState:
    """What a run store says about its run."""

    study: str | None
    model: str | None
    started_at: str | None
    answers: int
    expected: int
    running: bool
    outcome: str | None
    manifest: dict[str, Any]


def _expected(conn: sqlite3.Connection, manifest: dict[str, Any]) -> int:
    """Answers a run of this store asks for: each generate item ``n`` times, each score
    item once per candidate and sample."""
    study = manifest.get("study") or {}
    n = study.get("n") if isinstance(study, dict) else None
    n = n if isinstance(n, int) and n > 0 else 1
    gen, cands = conn.execute(
        "SELECT SUM(kind = 'generate'), "
        "SUM(CASE WHEN kind = 'score' THEN json_array_length(candidates) ELSE 0 END) FROM items"
    ).fetchone()
    return int(gen or 0) * n + int(cands or 0)


def _count(conn: sqlite3.Connection, sql: str) -> int:
    try:
        return int(conn.execute(sql).fetchone()[0])
    except sqlite3.OperationalError:  # a table a store of this version lacks
        return 0


def answers(conn: sqlite3.Connection) -> int:
    """Answers in the store that did not fail (samples and scores)."""
    return _count(conn, "SELECT COUNT(*) FROM samples WHERE stop_reason != 'error'") + _count(
        conn, "SELECT COUNT(*) FROM scores WHERE status != 'error'"
    )


#: Everything :func:`store_state` reads from a store of schema version 2, in one query.
_STATE = (
    "SELECT (SELECT body FROM manifest WHERE id = 1), "
    "(SELECT COUNT(*) FROM samples WHERE stop_reason != 'error') "
    "+ (SELECT COUNT(*) FROM scores WHERE status != 'error'), "
    "(SELECT outcome FROM sessions ORDER BY id DESC LIMIT 1), "
    "(SELECT finished_at IS NOT NULL FROM sessions ORDER BY id DESC LIMIT 1)"
)


def _manifest(store: Path, body: Any) -> dict[str, Any]:
    if body is None:
        return {}
    try:
        manifest = json.loads(body)
    except (TypeError, json.JSONDecodeError):
        raise DataError(f"{store.name}: its manifest is not JSON") from None
    return manifest if isinstance(manifest, dict) else {}


def store_state(store: Path) -> StoreState:
    """The state of the run in ``store`` (a :class:`DataError` when it cannot be read)."""
    running = lock_holder(store) is not None
    with read_only(store) as conn:
        try:
            body, done, outcome, finished = conn.execute(_STATE).fetchone()
        except sqlite3.OperationalError:  # a table an older store lacks: one at a time
            body = conn.execute("SELECT body FROM manifest WHERE id = 1").fetchone()
            body, done, outcome, finished = (body or (None,))[0], answers(conn), None, True
            with contextlib.suppress(sqlite3.OperationalError):
                last = conn.execute(
                    "SELECT outcome, finished_at IS NOT NULL FROM sessions ORDER BY id DESC"
                ).fetchone()
                outcome, finished = last if last is not None else (None, True)
        manifest = _manifest(store, body)
        study = manifest.get("study")
        model = manifest.get("model")
        return StoreState(
            study=str(manifest.get("study_kind") or (study or {}).get("name") or "") or None,
            model=(model or {}).get("spec") if isinstance(model, dict) else None,
            started_at=manifest.get("started_at"),
            answers=int(done or 0),
            expected=_expected(conn, manifest) if "study" in manifest else 0,
            running=running,
            outcome=outcome if finished or outcome is None else "interrupted",
            manifest=manifest,
        )


def progress(store: Path) -> tuple[int, int, bool]:
    """Answers so far, answers asked for, and whether a process is generating now."""
    state = store_state(store)
    return state.answers, state.expected, state.running


__all__ = ["StoreState", "answers", "progress", "read_only", "store_state"]
