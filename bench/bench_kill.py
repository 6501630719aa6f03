"""Signals against a generating run: is every answer the server completed in the store?

For each signal (SIGKILL, SIGHUP, SIGTERM, SIGINT) and each number of requests in
flight (1, 16, 64), a run generates from the fake OpenAI-compatible server
(:class:`gasp.testing.FakeOpenAIServer`, on loopback) in its own process and gets the
signal once it has stored a share of its answers. The server notes when it completed
each answer (its HTTP 200) and the answer's seed; the bench then checks

* every answer completed more than ``--grace-ms`` (100 ms) before the signal is in the
  store (the seed of each stored sample names its request);
* the store is sound (SQLite's integrity check) and holds no error row;
* a resumed run, against a fresh server, asks only for the answers not stored (no seed
  the store holds is requested again) and completes the plan.

Run: ``python bench/bench_kill.py`` (about a minute); ``--quick`` runs 1 and 16 in
flight only. Prints a Markdown table; exit status 1 when an answer was lost or asked
again.
"""

from __future__ import annotations

import argparse
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from gasp.testing import FakeOpenAIServer

SCRIPT = """
import sys
from gasp.backends import RetryPolicy
from gasp.errors import Interrupted
from gasp.runner import FixedN, Item, RunOptions, StudyPlan, generate

items = tuple(Item(key=("p", str(i)), prompt=f"Describe person {i}.", n=8) for i in range(400))
plan = StudyPlan(kind="kill-bench", name="kill-bench", items=items, spec={}, stopping=FixedN())
options = RunOptions(
    progress=False,
    base_url=sys.argv[2],
    max_concurrency=int(sys.argv[3]),
    retry=RetryPolicy(max_attempts=2, base_delay_s=0.01, max_delay_s=0.05),
)
try:
    summary = generate(plan, "openai-compatible/fake-model", sys.argv[1], options)
except Interrupted as stopped:
    print(f"gasp: {stopped}", file=sys.stderr)
    sys.exit(stopped.exit_code)
print("COMPLETE" if summary.complete else "INCOMPLETE", flush=True)
"""
PLANNED = 400 * 8
SIGNALS = {
    "SIGKILL": signal.SIGKILL,
    "SIGHUP": signal.SIGHUP,
    "SIGTERM": signal.SIGTERM,
    "SIGINT": signal.SIGINT,
}


@dataclass
class Outcome:
    """What one kill left: answers completed, stored and asked again."""

    signal: str
    in_flight: int
    completed: int
    completed_early: int
    stored: int
    lost: int
    exit_status: int | None
    session: str
    resumed_requests: int
    asked_again: int
    complete_after_resume: bool


def stored_seeds(path: Path) -> set[int]:
    """Seeds of the successful samples in the store at ``path`` (checking it is sound)."""
    if not path.exists():
        return set()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = conn.execute("SELECT seed, stop_reason FROM samples").fetchall()
    except sqlite3.OperationalError:  # killed before the schema was committed
        return set()
    finally:
        conn.close()
    assert all(reason != "error" for _, reason in rows), "an error row was stored"
    return {int(seed) for seed, _ in rows}


def last_session(path: Path) -> str:
    """The outcome the last session recorded (``open``: none recorded)."""
    conn = sqlite3.connect(path)
    try:
        row = conn.execute("SELECT outcome FROM sessions ORDER BY id DESC LIMIT 1").fetchone()
    finally:
        conn.close()
    return "none" if row is None else str(row[0] or "open")


def count_rows(path: Path) -> int:
    """Samples in the store now (0 before its schema exists)."""
    if not path.exists():
        return 0
    conn = sqlite3.connect(path, timeout=5)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        conn.close()


def one(name: str, in_flight: int, folder: Path, grace_s: float, latency_s: float) -> Outcome:
    """Generate, send ``name`` once a fifth of the plan is stored, check, resume."""
    script = folder / "run.py"
    script.write_text(SCRIPT)
    store = folder / f"{name}-{in_flight}.sqlite"
    with FakeOpenAIServer(seed=5, latency_s=latency_s) as server:
        proc = subprocess.Popen(
            [sys.executable, str(script), str(store), server.base_url, str(in_flight)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 120
        target = PLANNED // 5 if in_flight > 1 else 40
        while proc.poll() is None and time.monotonic() < deadline:
            if count_rows(store) >= target:
                break
            time.sleep(0.02)
        sent_at = time.monotonic()
        proc.send_signal(SIGNALS[name])
        try:
            proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate(timeout=60)
        with server._lock:
            answered = list(zip(server.answered_at, server.answered_seeds, strict=True))
    early = {int(str(seed)) for at, seed in answered if at < sent_at - grace_s}
    stored = stored_seeds(store)
    session = last_session(store)
    with FakeOpenAIServer(seed=5) as server:
        result = subprocess.run(
            [sys.executable, str(script), str(store), server.base_url, str(max(16, in_flight))],
            capture_output=True,
            text=True,
            timeout=600,
        )
        asked = {int(str(body.get("seed"))) for body in server.bodies}
    return Outcome(
        signal=name,
        in_flight=in_flight,
        completed=len(answered),
        completed_early=len(early),
        stored=len(stored),
        lost=len(early - stored),
        exit_status=proc.returncode,
        session=session,
        resumed_requests=len(asked),
        asked_again=len(asked & stored),
        complete_after_resume="COMPLETE" in result.stdout.split(),
    )


def table(rows: list[Outcome], grace_ms: int) -> str:
    """The outcomes as a Markdown table."""
    lines = [
        f"| signal | in flight | completed by the server | completed > {grace_ms} ms before "
        "| stored | of those lost | exit status | session recorded | resume asked "
        "| asked again | complete |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r.signal} | {r.in_flight} | {r.completed} | {r.completed_early} | {r.stored} "
            f"| {r.lost} | {r.exit_status} | {r.session} | {r.resumed_requests} | {r.asked_again} "
            f"| {'yes' if r.complete_after_resume else 'NO'} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 and 16 in flight only")
    parser.add_argument("--grace-ms", type=int, default=100)
    parser.add_argument("--latency-ms", type=float, default=20.0, help="the server's delay")
    parser.add_argument(
        "--signals", default=",".join(SIGNALS), help="comma-separated (default: all four)"
    )
    parser.add_argument("--flights", default="", help="comma-separated (default: 1,16,64)")
    args = parser.parse_args()
    flights: tuple[int, ...] = (1, 16) if args.quick else (1, 16, 64)
    if args.flights:
        flights = tuple(int(f) for f in args.flights.split(","))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.signals.split(","):
            for in_flight in flights:
                rows.append(
                    one(name, in_flight, Path(tmp), args.grace_ms / 1000, args.latency_ms / 1000)
                )
                print(rows[-1], file=sys.stderr, flush=True)
    print(table(rows, args.grace_ms))
    bad = [
        r
        for r in rows
        if r.lost
        or r.asked_again
        or not r.complete_after_resume
        or r.resumed_requests != PLANNED - r.stored
    ]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
