"""SIGKILL the generating process at random moments; re-running completes the exact plan."""

from __future__ import annotations

import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from gasp.store import RunStore

SCRIPT = """
import sys
from gasp.runner import RunOptions, generate
from gasp.studies.more_of_the_same import load_study

study = load_study("more-of-the-same").restrict(subjects=["nurse", "pilot"], n=6)
options = RunOptions(
    progress=False,
    max_concurrency=4,
    commit_rows=5,
    commit_interval_s=0.01,
    backend_options={"latency_s": 0.02, "female_share": 0.6},
)
summary = generate(study, "mock/personas", sys.argv[1], options)
print("COMPLETE" if summary.complete else "INCOMPLETE", flush=True)
"""


def _run(script: Path, store: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(script), str(store)], capture_output=True, text=True, timeout=120
    )


def _keys_and_texts(path: Path) -> dict[tuple[str, str, str, int], str]:
    with RunStore.open(path) as store:
        frame = store.samples(include_errors=True)
        assert store.integrity_check() == "ok"
    assert not frame.duplicated(["template", "subject", "condition", "sample_index"]).any()
    return {
        (r.template, r.subject, r.condition, int(r.sample_index)): r.text
        for r in frame.itertuples()
    }


def _rows_now(path: Path) -> int:
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


def _kill_when(proc: subprocess.Popen[bytes], path: Path, rows: int, extra_s: float) -> None:
    """SIGKILL ``proc`` once ``path`` holds ``rows`` samples, ``extra_s`` later."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if _rows_now(path) >= rows:
            break
        time.sleep(0.01)
    time.sleep(extra_s)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)


def test_sigkill_at_random_moments_then_resume_gives_exactly_the_planned_samples(
    tmp_path: Path,
) -> None:
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    reference = tmp_path / "reference.sqlite"
    namespace: dict[str, object] = {}
    sys_argv = sys.argv
    try:
        sys.argv = ["run.py", str(reference)]
        exec(compile(SCRIPT, "run.py", "exec"), namespace)  # the same run, in process
    finally:
        sys.argv = sys_argv
    expected = _keys_and_texts(reference)
    assert len(expected) > 100

    rng = random.Random(20240607)
    killed = tmp_path / "killed.sqlite"
    partial_counts = []
    for _ in range(3):
        stored = _rows_now(killed)
        target = stored + rng.randint(1, (len(expected) - stored) // 3)
        proc = subprocess.Popen(
            [sys.executable, str(script), str(killed)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        _kill_when(proc, killed, target, rng.uniform(0.0, 0.05))
        partial_counts.append(_rows_now(killed))
    # every kill landed in the middle of generation
    assert all(0 < c < len(expected) for c in partial_counts), partial_counts
    result = _run(script, killed)
    assert "COMPLETE" in result.stdout.split(), result.stderr
    assert _keys_and_texts(killed) == expected
