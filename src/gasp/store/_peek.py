"""Looking into a run store without changing it (read-only SQLite connections)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from gasp.errors import FULL_DISK_HINT, DataError, GaspError, RunFailed, refused_write


def damaged_store(file: Path, exc: sqlite3.DatabaseError) -> GaspError:
    """The one-line error of a store SQLite cannot read or write: locked by another
    program, damaged (a zeroed page, a file that is not SQLite), or refused a write (a
    full disk: :class:`~gasp.errors.RunFailed`, the work failed)."""
    if refused_write(exc):
        return RunFailed(
            f"the run store {file} cannot be written ({exc}: {FULL_DISK_HINT}); free space"
            " and run the same command again"
        )
    if "locked" in str(exc) or "busy" in str(exc):
        return DataError(f"{file} is locked by another program ({exc}); close it and try again")
    return DataError(f"{file} is not a gasp run store or is damaged ({exc})")


def read_only_uri(path: str | Path) -> str:
    """The SQLite URI that opens ``path`` read-only (no write, no journal file made)."""
    return f"{Path(path).resolve().as_uri()}?mode=ro"


def is_writable(path: str | Path) -> bool:
    """True when this process may write the store at ``path`` and create its journal
    files beside it (the file and its folder are writable)."""
    file = Path(path)
    folder = file.parent if str(file.parent) else Path(".")
    return os.access(file, os.W_OK) and os.access(folder, os.W_OK | os.X_OK)


def connect_read_only(path: str | Path, *, check: bool = True) -> sqlite3.Connection:
    """A read-only connection to the gasp run store at ``path``.

    A store without a write-ahead log (no process writes it), or whose shared-memory
    file cannot be made (a read-only folder), is read as immutable: nothing is written
    beside it. Raises :class:`DataError` when it cannot
    be read or (with ``check``) is not a gasp run store.
    """
    file = Path(path)
    plain, immutable = read_only_uri(file), read_only_uri(file) + "&immutable=1"
    # Without a write-ahead log no process is writing the store now: it is read as an
    # immutable file, so reading leaves no journal files behind.
    uris = (plain, immutable) if Path(f"{file}-wal").exists() else (immutable,)
    for uri in uris:
        try:
            conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
        except sqlite3.Error:
            continue
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        except sqlite3.OperationalError:
            conn.close()
            continue
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise damaged_store(file, exc) from None
        if check and "gasp_meta" not in tables:
            conn.close()
            raise DataError(f"{file} is not a gasp run store")
        return conn
    raise DataError(f"cannot open run store {file}")


def count_answers(path: str | Path) -> int:
    """How many answers (samples and scores that did not fail) the store at ``path`` holds.

    Zero for a store that only recorded failed requests, or none; the file is not
    modified. Raises :class:`DataError` when it is not a gasp run store.
    """
    file = Path(path)
    conn = connect_read_only(file, check=False)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        total = 0
        if "samples" in tables:
            total += conn.execute(
                "SELECT COUNT(*) FROM samples WHERE stop_reason != 'error'"
            ).fetchone()[0]
        if "scores" in tables:
            total += conn.execute("SELECT COUNT(*) FROM scores WHERE status != 'error'").fetchone()[
                0
            ]
        return int(total)
    except sqlite3.DatabaseError as exc:
        raise damaged_store(file, exc) from None
    finally:
        conn.close()


def remove_store(path: str | Path) -> None:
    """Delete the store file at ``path`` and its write-ahead log and shared-memory files."""
    file = Path(path)
    for suffix in ("-wal", "-shm", ""):
        Path(f"{file}{suffix}").unlink(missing_ok=True)


__all__ = ["connect_read_only", "count_answers", "is_writable", "read_only_uri", "remove_store"]
