"""SIGINT, SIGTERM and SIGHUP stop a run alike and cleanly: every answer the server
completed is in the store, the session is recorded as interrupted, the process exits
with 128 + the signal, and a resumed run asks only for what was not stored."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _kill import rows_now
from gasp.testing import FakeOpenAIServer

SCRIPT = """
import sys
from gasp.backends import RetryPolicy
from gasp.errors import Interrupted
from gasp.runner import FixedN, Item, RunOptions, StudyPlan, generate

items = tuple(Item(key=("p", str(i)), prompt=f"Describe person {i}.", n=4) for i in range(60))
plan = StudyPlan(kind="signals", name="signals", items=items, spec={}, stopping=FixedN())
options = RunOptions(
    progress=False, base_url=sys.argv[2], max_concurrency=8, retry=RetryPolicy(max_attempts=1)
)
try:
    summary = generate(plan, "openai-compatible/fake-model", sys.argv[1], options)
except Interrupted as stopped:
    print(f"gasp: {stopped}", file=sys.stderr)
    sys.exit(stopped.exit_code)
print("COMPLETE" if summary.complete else "INCOMPLETE", flush=True)
"""
PLANNED = 240


def _seeds(path: Path) -> set[int]:
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return {int(r[0]) for r in conn.execute("SELECT seed FROM samples")}
    finally:
        conn.close()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_commits_every_answer_and_records_the_session(
    tmp_path: Path, signum: signal.Signals
) -> None:
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    store = tmp_path / "run.sqlite"
    with FakeOpenAIServer(seed=2, latency_s=0.05) as server:
        proc = subprocess.Popen(
            [sys.executable, str(script), str(store), server.base_url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline and rows_now(store) < 30:
            time.sleep(0.02)
        sent = time.monotonic()
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
        answered = zip(server.answered_at, server.answered_seeds, strict=True)
        early = {int(str(seed)) for at, seed in answered if at < sent - 0.1}
    assert proc.returncode == 128 + signum, err
    assert f"gasp: stopped by {signum.name}" in err
    stored = _seeds(store)
    assert len(early) >= 10 and early <= stored
    conn = sqlite3.connect(store)
    outcome = conn.execute("SELECT outcome FROM sessions").fetchall()
    conn.close()
    assert outcome == [("interrupted",)]

    with FakeOpenAIServer(seed=2) as server:
        result = subprocess.run(
            [sys.executable, str(script), str(store), server.base_url],
            capture_output=True,
            text=True,
            timeout=300,
        )
        asked = {int(str(body.get("seed"))) for body in server.bodies}
    assert "COMPLETE" in result.stdout.split(), result.stderr
    assert not asked & stored and len(asked) == PLANNED - len(stored)
