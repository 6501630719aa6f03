"""Runs over a fleet of three fake servers: one slow, one stopped mid-run and restarted."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from _cli import gasp_exit_code
from _kill import kill_when, rows_now, run_in_process, sample_texts
from gasp.backends import RetryPolicy
from gasp.runner import FixedN, Item, RunOptions, StudyPlan, generate
from gasp.store import RunStore
from gasp.testing import FakeOpenAIServer

pytest.importorskip("openai")

#: Every server has the same seed, so an answer's text never depends on the server.
SEED = 7
FAST_S = 0.01
SLOW_S = 0.5
RETRY = RetryPolicy(max_attempts=8, base_delay_s=0.01, max_delay_s=0.05, timeout_s=30.0)
PROBE = {"probe_after_s": 0.05, "probe_max_s": 0.1}


def _plan(items: int, n: int) -> StudyPlan:
    return StudyPlan(
        kind="fleet-check",
        name="fleet-check",
        items=tuple(
            Item(key=("p", str(i)), prompt=f"Describe person {i}.", attributes={"i": i}, n=n)
            for i in range(items)
        ),
        spec={"items": items, "n": n},
        stopping=FixedN(),
    )


@pytest.fixture
def servers() -> Iterator[tuple[FakeOpenAIServer, FakeOpenAIServer, FakeOpenAIServer]]:
    """A fast, a slow and a fast server (the third is the one stopped and restarted)."""
    trio = (
        FakeOpenAIServer(seed=SEED, latency_s=FAST_S),
        FakeOpenAIServer(seed=SEED, latency_s=SLOW_S),
        FakeOpenAIServer(seed=SEED, latency_s=FAST_S),
    )
    for server in trio:
        server.start()
    yield trio
    for server in trio:
        server.stop()


class Outage(threading.Thread):
    """Stops ``victim`` once ``watch`` has had ``stop_at`` requests (unless it is down
    already), and restarts it once ``watch`` has had ``restart_at``."""

    def __init__(
        self, watch: FakeOpenAIServer, victim: FakeOpenAIServer, stop_at: int, restart_at: int
    ) -> None:
        super().__init__(daemon=True)
        self.watch, self.victim = watch, victim
        self.stop_at, self.restart_at = stop_at, restart_at
        self.victim_requests_at_restart: int | None = None

    def _wait(self, count: int) -> None:
        deadline = time.monotonic() + 120
        while self.watch.requests < count and time.monotonic() < deadline:
            time.sleep(0.002)

    def run(self) -> None:
        if self.stop_at:
            self._wait(self.stop_at)
            self.victim.stop()
        self._wait(self.restart_at)
        self.victim_requests_at_restart = self.victim.requests
        self.victim.start()


def _check_no_error_and_no_duplicate(frame: pd.DataFrame) -> None:
    assert (frame["stop_reason"] != "error").all()
    assert not frame.duplicated(["item_id", "sample_index"]).any()


def _check_each_sample_once(path: Path, items: int, n: int) -> None:
    with RunStore.open(path) as store:
        frame = store.samples(include_errors=True)
    _check_no_error_and_no_duplicate(frame)
    counts = frame.groupby("item_id").size()
    assert len(counts) == items and (counts == n).all()


def test_a_run_spreads_over_the_fleet_and_survives_a_server_going_away(
    tmp_path: Path, servers: tuple[FakeOpenAIServer, FakeOpenAIServer, FakeOpenAIServer]
) -> None:
    fast, slow, flaky = servers
    urls = [s.base_url for s in servers]
    items, n = 24, 20
    outage = Outage(fast, flaky, stop_at=40, restart_at=120)
    outage.start()
    path = tmp_path / "fleet.sqlite"
    options = RunOptions(
        progress=False, base_urls=urls, max_concurrency=12, retry=RETRY, backend_options=PROBE
    )
    summary = generate(_plan(items, n), "openai-compatible/fake-model", path, options)
    outage.join(timeout=5)
    assert summary.complete and summary.failed == 0 and summary.generated == items * n
    _check_each_sample_once(path, items, n)

    by_url = {e.url: e for e in summary.endpoints}
    assert list(by_url) == urls
    fast_counts, slow_counts, flaky_counts = (by_url[u] for u in urls)
    # least outstanding requests: the slow server keeps its calls longer and gets fewer
    assert 2 * slow_counts.sent < fast_counts.sent
    # the stopped server's calls failed, it was drained, and they were answered elsewhere
    assert flaky_counts.failed >= 1 and flaky_counts.drained >= 1
    assert sum(e.succeeded for e in summary.endpoints) == items * n
    assert sum(e.failed for e in summary.endpoints) == sum(summary.faults_by_kind.values())
    assert sum(e.sent for e in summary.endpoints) == items * n + flaky_counts.failed
    # restarted, it was probed, served again, and answered new requests
    assert outage.victim_requests_at_restart is not None
    assert flaky.requests > outage.victim_requests_at_restart
    assert not flaky_counts.drained_now
    assert fast.successes + slow.successes + flaky.successes >= items * n

    with RunStore.open(path) as store:
        manifest = store.manifest()
        session = json.loads(store.sessions()["summary"].iloc[-1])
    assert manifest["model"]["base_urls"] == urls
    assert manifest["model"]["base_url"] == urls[0]
    assert manifest["model"]["backend"] == "FleetBackend"
    assert [e["url"] for e in session["endpoints"]] == urls
    assert session["endpoints"][2]["drained"] == flaky_counts.drained


def test_gasp_generate_with_three_base_urls_prints_each_servers_counts(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    servers: tuple[FakeOpenAIServer, FakeOpenAIServer, FakeOpenAIServer],
) -> None:
    fast, _, down = servers
    urls = [s.base_url for s in servers]
    down.stop()  # down when the run starts: it starts drained, and rejoins once restarted
    outage = Outage(fast, down, stop_at=0, restart_at=30)
    monkeypatch.setenv("COLUMNS", "200")
    out = tmp_path / "cli.sqlite"
    outage.start()
    code = gasp_exit_code(
        monkeypatch, "generate", "-m", "openai-compatible/fake-model", "--out", str(out),
        "--base-url", urls[0], "--base-url", urls[1], "--base-url", urls[2],
        "--occupations", "nurse", "--n", "30", "--templates", "persona",
        "--max-concurrency", "12", "--model-option", "probe_after_s=0.05",
        "--model-option", "probe_max_s=0.1",
    )  # fmt: skip
    outage.join(timeout=5)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    rows = {u: line for line in captured.out.splitlines() for u in urls if u in line}
    assert set(rows) == set(urls)
    assert "drained 1 time(s)" in rows[urls[2]] and "drained at the end" not in rows[urls[2]]
    with RunStore.open(out) as store:
        frame = store.samples(include_errors=True)
        states = store.item_states()
        session = json.loads(store.sessions()["summary"].iloc[-1])
    _check_no_error_and_no_duplicate(frame)
    assert (states["status"] == "complete").all()
    sent = {e["url"]: e["sent"] for e in session["endpoints"]}
    succeeded = sum(e["succeeded"] for e in session["endpoints"])
    assert succeeded == len(frame)
    assert sent[urls[2]] > 0 and down.requests > 0  # it rejoined and answered
    assert 2 * sent[urls[1]] < sent[urls[0]]


SCRIPT = """
import sys
from gasp.backends import RetryPolicy
from gasp.runner import FixedN, Item, RunOptions, StudyPlan, generate

items = tuple(Item(key=("p", str(i)), prompt=f"Describe person {i}.", n=12) for i in range(20))
plan = StudyPlan(kind="fleet-check", name="fleet-check", items=items, spec={}, stopping=FixedN())
options = RunOptions(
    progress=False, base_urls=sys.argv[2:], max_concurrency=6,
    retry=RetryPolicy(base_delay_s=0.01, max_delay_s=0.05),
)
summary = generate(plan, "openai-compatible/fake-model", sys.argv[1], options)
print("COMPLETE" if summary.complete else "INCOMPLETE", flush=True)
"""


@pytest.mark.slow
def test_a_fleet_run_killed_midway_resumes_to_the_same_answers_as_one_server(
    tmp_path: Path, servers: tuple[FakeOpenAIServer, FakeOpenAIServer, FakeOpenAIServer]
) -> None:
    urls = [s.base_url for s in servers]
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    reference, killed = tmp_path / "reference.sqlite", tmp_path / "killed.sqlite"
    run_in_process(SCRIPT, str(reference), urls[0])  # the same run on one server
    expected = sample_texts(reference)
    assert len(expected) == 240
    proc = subprocess.Popen(
        [sys.executable, str(script), str(killed), *urls],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    kill_when(proc, killed, 30, 0.0)
    assert 0 < rows_now(killed) < len(expected)
    resumed = subprocess.run(
        [sys.executable, str(script), str(killed), *urls],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert "COMPLETE" in resumed.stdout.split(), resumed.stderr
    assert sample_texts(killed) == expected
