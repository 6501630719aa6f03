"""One run per folder: a second ``gasp run`` on a folder being generated is refused in one
line naming the first (or waits with ``--wait``), and a killed holder frees it at once."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from _cli import gasp_exit_code
from _locks import DEADLINE_S, held_elsewhere, until
from gasp.store import RunStore, StoreLock, StoreLockedError, lock_holder, lock_path
from gasp.testing import FakeOpenAIServer

RUN = ("-m", "gasp", "run", "narratives", "--quick", "-m", "openai-compatible/fake-model")
SKIP = ("--skip", "analyze", "--skip", "probe", "--skip", "report", "--max-concurrency", "1")


class Gate:
    """Holds every answer of the fake server until opened (the run stays mid-way)."""

    def __init__(self) -> None:
        self.open = threading.Event()

    def text(self, prompt: str, rng: np.random.Generator) -> str:
        self.open.wait(DEADLINE_S)
        return "Maria was a nurse. She worked nights and she loved it."


@pytest.fixture
def gated() -> Iterator[tuple[FakeOpenAIServer, Gate]]:
    gate = Gate()
    with FakeOpenAIServer(text=gate.text) as server:
        yield server, gate
        gate.open.set()


def _start(out: Path, url: str, log: Path, *extra: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    with log.open("wb") as err:
        return subprocess.Popen(
            [sys.executable, *RUN, "--base-url", url, "--out", str(out), *SKIP, *extra],
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
        )


def _samples(store: Path) -> int:
    with RunStore.open(store) as run:
        return len(run.samples(include_errors=False))


def test_second_run_is_refused_naming_the_first_and_wait_waits(
    tmp_path: Path,
    gated: tuple[FakeOpenAIServer, Gate],
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    server, gate = gated
    out = tmp_path / "run"
    store = out / "run.sqlite"
    first = _start(out, server.base_url, tmp_path / "first.err")
    # the first run holds the folder and waits on its first answer
    until(lambda: lock_holder(store) is not None and server.requests >= 1, "the first run")
    holder = lock_holder(store)
    assert holder is not None and holder.pid == first.pid

    capfd.readouterr()
    args = [*RUN[2:], "--base-url", server.base_url, "--out", str(out), *SKIP]
    assert gasp_exit_code(monkeypatch, *args) == 2
    refused = capfd.readouterr()
    lines = refused.err.splitlines()
    assert len(lines) == 1 and not refused.out, refused
    assert lines[0].startswith("gasp: error: ")
    assert f"pid {first.pid} on host {socket.gethostname()}" in lines[0]
    assert f"since {holder.started_at}" in lines[0] and "--wait" in lines[0]

    waiting = _start(out, server.base_url, tmp_path / "waiting.err", "--wait")
    until(lambda: "waiting for" in (tmp_path / "waiting.err").read_text(), "the --wait line")
    assert waiting.poll() is None
    gate.open.set()
    assert first.wait(DEADLINE_S) == 0, (tmp_path / "first.err").read_text()
    assert waiting.wait(DEADLINE_S) == 0, (tmp_path / "waiting.err").read_text()
    assert f"pid {first.pid}" in (tmp_path / "waiting.err").read_text()
    # every sample was requested exactly once: the waiting run found nothing left to do
    assert server.requests == _samples(store) == 8
    assert not lock_path(store).exists()


def test_a_killed_holder_frees_the_folder_at_once(
    tmp_path: Path,
    gated: tuple[FakeOpenAIServer, Gate],
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    server, gate = gated
    out = tmp_path / "run"
    store = out / "run.sqlite"
    first = _start(out, server.base_url, tmp_path / "first.err")
    until(lambda: lock_holder(store) is not None and server.requests >= 1, "the first run")
    first.send_signal(signal.SIGKILL)
    first.wait(DEADLINE_S)
    assert lock_path(store).exists()  # its record stays behind, its lock does not
    assert lock_holder(store) is None
    gate.open.set()
    capfd.readouterr()
    args = [*RUN[2:], "--base-url", server.base_url, "--out", str(out), *SKIP]
    assert gasp_exit_code(monkeypatch, *args) == 0
    assert "waiting" not in capfd.readouterr().err
    assert _samples(store) == 8
    assert not lock_path(store).exists()


def test_two_runs_started_together_on_a_new_folder_one_refused_in_one_line(
    tmp_path: Path, gated: tuple[FakeOpenAIServer, Gate]
) -> None:
    server, gate = gated
    out = tmp_path / "new" / "run"
    logs = [tmp_path / "a.err", tmp_path / "b.err"]
    procs = [_start(out, server.base_url, log) for log in logs]
    until(lambda: any(p.poll() is not None for p in procs), "one run refused")
    refused = next(i for i, p in enumerate(procs) if p.poll() is not None)
    gate.open.set()
    winner = procs[1 - refused]
    assert winner.wait(DEADLINE_S) == 0, logs[1 - refused].read_text()
    assert procs[refused].returncode == 2
    lines = logs[refused].read_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gasp: error: "), lines
    assert f"pid {winner.pid} on host" in lines[0]
    assert server.requests == _samples(out / "run.sqlite") == 8


def test_a_run_that_fails_its_checks_leaves_no_new_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    args = [*RUN[2:], "--base-url", "http://127.0.0.1:9/v1", "--out", str(out), *SKIP]
    assert gasp_exit_code(monkeypatch, *args) == 2
    assert "cannot reach" in capfd.readouterr().err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_lock_nests_in_one_process_and_names_its_holder(tmp_path: Path) -> None:
    store = tmp_path / "deep" / "run.sqlite"
    assert lock_holder(store) is None
    with StoreLock(store) as outer:
        assert outer.held and lock_path(store).is_file()
        holder = lock_holder(store)
        assert holder is not None and holder.pid == os.getpid()
        assert holder.host == socket.gethostname() and holder.started_at.endswith("Z")
        with StoreLock(store):  # the runner inside ``gasp run`` takes it again
            pass
        assert lock_holder(store) is not None  # the outer hold goes on
    assert lock_holder(store) is None and not lock_path(store).exists()


def test_refusal_names_the_holder_and_wait_starts_when_it_exits(tmp_path: Path) -> None:
    store = tmp_path / "run.sqlite"
    seen: list[int | None] = []
    with held_elsewhere(store) as pid:
        with pytest.raises(StoreLockedError) as refused:
            StoreLock(store).acquire()
        assert refused.value.holder.pid == pid
        assert f"pid {pid} on host {socket.gethostname()} (since " in str(refused.value)
        assert "\n" not in str(refused.value)
        waiter = threading.Thread(
            target=lambda: (
                StoreLock(store)
                .acquire(wait=True, on_wait=lambda h: seen.append(h.pid), poll_s=0.05)
                .release()
            )
        )
        waiter.start()
        until(lambda: seen, "the waiting line")
        assert waiter.is_alive()
    waiter.join(DEADLINE_S)
    assert not waiter.is_alive() and seen == [pid]


def test_analysis_and_report_of_a_run_being_generated_say_it_is_incomplete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    with FakeOpenAIServer() as server:
        args = [*RUN[2:], "--base-url", server.base_url, "--out", str(out), *SKIP]
        assert gasp_exit_code(monkeypatch, *args) == 0
    capfd.readouterr()
    with held_elsewhere(out / "run.sqlite") as pid:
        assert gasp_exit_code(monkeypatch, "analyze", str(out)) == 0
        err = capfd.readouterr().err
        assert err.startswith("gasp: note: This run is incomplete: pid ") and f"{pid}" in err
        assert gasp_exit_code(monkeypatch, "report", str(out)) == 0
        assert "is still generating this run" in capfd.readouterr().err
    saved = json.loads((out / "results" / "results.json").read_text())
    assert saved["meta"]["incomplete"].startswith(f"This run is incomplete: pid {pid} ")
    page = (out / "report" / "report.html").read_text()
    assert "Incomplete run" in page and f"pid {pid}" in page
    # analysed again once nobody generates, the results and the page say nothing of it
    assert gasp_exit_code(monkeypatch, "analyze", str(out)) == 0
    assert gasp_exit_code(monkeypatch, "report", str(out)) == 0
    assert "gasp: note" not in capfd.readouterr().err
    assert "incomplete" not in json.loads((out / "results" / "results.json").read_text())["meta"]
    assert "Incomplete run" not in (out / "report" / "report.html").read_text()


def test_a_refusal_names_a_holder_that_records_itself_late(tmp_path: Path) -> None:
    """A holder slowed between taking the lock and writing who it is (a loaded machine)
    is still named: the refusal waits for its record, not for a fixed time."""
    store = tmp_path / "run.sqlite"
    taken_r, taken_w = os.pipe()
    record_r, record_w = os.pipe()
    stop_r, stop_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # takes the lock, records itself only when told, exits when told
        try:
            fd = os.open(lock_path(store), os.O_RDWR | os.O_CREAT, 0o644)
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(taken_w, b"1")
            os.read(record_r, 1)
            record = {"pid": os.getpid(), "host": socket.gethostname(), "started_at": "then"}
            os.pwrite(fd, json.dumps(record).encode(), 0)
            os.read(stop_r, 1)
        finally:
            os._exit(0)
    refusals: list[StoreLockedError] = []

    def attempt() -> None:
        with pytest.raises(StoreLockedError) as refused:
            StoreLock(store).acquire()
        refusals.append(refused.value)

    try:
        assert os.read(taken_r, 1) == b"1"
        trying = threading.Thread(target=attempt)
        trying.start()
        # past the grace a refusal always allows (a sleep that a load can only lengthen)
        threading.Event().wait(1.0)
        os.write(record_w, b"1")
        trying.join(DEADLINE_S)
        assert not trying.is_alive()
    finally:
        os.write(stop_w, b"1")
        os.waitpid(pid, 0)
        for fd in (taken_r, taken_w, record_r, record_w, stop_r, stop_w):
            os.close(fd)
    assert len(refusals) == 1 and refusals[0].holder.pid == pid
    assert f"pid {pid} on host {socket.gethostname()} (since then)" in str(refusals[0])
