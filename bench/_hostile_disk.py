"""The full-disk case of ``bench/bench_hostile.py``: a run against a server whose
answers are paid for, its files capped at :data:`FILE_LIMIT` bytes (``RLIMIT_FSIZE``,
what ``ulimit -f`` sets, with ``SIGXFSZ`` ignored so that a write past the cap fails
with ``EFBIG`` as a full disk fails with ``ENOSPC``). The run store's write-ahead log
reaches the cap after some answers are stored: the run must end in one line (exit 1),
and the same command, the cap lifted, must complete it with every stored answer as it
was and none of them asked for again."""

from __future__ import annotations

import resource
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

#: The case's name in the table.
CASE = "disk full mid-run (ulimit -f)"
#: The most bytes any file of the run may hold.
FILE_LIMIT = 200 * 1024
#: The samples per cell asked for (120 answers in all).
N = "10"
#: Requests the disk case's server has received so far (set by the bench).
ASKED: dict[str, Callable[[], int]] = {}


def cap_files() -> None:
    """In the case's process, before it runs: files may not grow past the cap."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, resource.RLIM_INFINITY))


def command(servers: Mapping[str, str]) -> list[str]:
    """The quick pronoun pairs, ten samples a cell, against the plain server."""
    return ["run", "pronoun-pairs", "--quick", "--n", N, "-m", "openai-compatible/fake",
            "--base-url", servers["plain"], "--out", "run", "--quiet"]  # fmt: skip


def _answers(store: Path) -> dict[tuple[str, int], str]:
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT item_id, sample_index, text FROM samples WHERE error IS NULL")
        return {(str(item), int(index)): str(text) for item, index, text in rows}
    finally:
        conn.close()


def check(root: Path, args: list[str], env: Mapping[str, str]) -> str:
    """After the capped run: the same command without the cap completes the run, keeps
    every answer stored before, and asks only for the missing ones; "" when it does,
    else what went wrong."""
    store = root / "run" / "run.sqlite"
    try:
        before = _answers(store)
    except sqlite3.Error as exc:
        return f"the capped run's store cannot be read: {exc}"
    asked = ASKED["plain"]()
    done = subprocess.run([sys.executable, "-m", "gasp", *args], cwd=root, env=dict(env),
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    if done.returncode != 0:
        return f"the resume exited {done.returncode}: {done.stderr.strip()[-200:]}"
    after = _answers(store)
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    rows, failed = conn.execute("SELECT COUNT(*), COUNT(error) FROM samples").fetchone()
    conn.close()
    resumed = ASKED["plain"]() - asked
    if not before or len(before) >= len(after):
        return f"{len(before)} of {len(after)} answers stored before the cap: not mid-run"
    if any(after.get(key) != text for key, text in before.items()):
        return "an answer stored before the cap changed on resume"
    if rows != len(after) or failed:
        return f"{rows} samples, {failed} failed, for {len(after)} answers"
    if resumed != len(after) - len(before):
        return f"the resume asked {resumed} requests for {len(after) - len(before)} answers"
    return ""
