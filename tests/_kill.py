"""Killing a run mid-way and reading what its store holds: shared by the resume tests."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from gasp.store import RunStore


def run_in_process(source: str, *args: str) -> None:
    """Run the script ``source`` in this process, as ``python run.py ARGS`` would."""
    namespace: dict[str, object] = {}
    argv = sys.argv
    try:
        sys.argv = ["run.py", *args]
        exec(compile(source, "run.py", "exec"), namespace)
    finally:
        sys.argv = argv


def rows_now(path: Path) -> int:
    """How many samples the store at ``path`` holds now (0 before its schema is committed),
    checking that the file is sound."""
    if not path.exists():
        return 0
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return int(conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0])
    except sqlite3.OperationalError:  # killed before the schema was committed
        return 0
    finally:
        conn.close()


def kill_when(proc: subprocess.Popen[bytes], path: Path, rows: int, extra_s: float) -> None:
    """SIGKILL ``proc`` once ``path`` holds ``rows`` samples, ``extra_s`` later."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if rows_now(path) >= rows:
            break
        time.sleep(0.01)
    time.sleep(extra_s)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)


def sample_texts(path: Path) -> dict[tuple[str, int], str]:
    """Each stored sample's text by (item, sample index), checking that the store is sound,
    that no sample is stored twice and that none is an error."""
    with RunStore.open(path) as store:
        frame = store.samples(include_errors=True)
        assert store.integrity_check() == "ok"
    assert not frame.duplicated(["item_id", "sample_index"]).any()
    assert (frame["stop_reason"] != "error").all()
    return {(r.item_id, int(r.sample_index)): r.text for r in frame.itertuples()}
