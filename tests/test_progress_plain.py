"""Plain progress lines when the output is not a terminal (a file, a pipe, CI)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

from gasp.errors import ConfigError
from gasp.runner import (
    DEFAULT_PROGRESS_INTERVAL_S,
    PROGRESS_INTERVAL_ENV,
    RunOptions,
    RunProgress,
    progress_interval,
    progress_line,
)

LINE = re.compile(
    r"^\[(?P<name>[\w-]+)\] (?P<done>\d+)/(?P<total>\d+) samples \(\d+%\), "
    r"(?:[\d.]+|-)/s, (?:about .+ left|time left unknown|done) \(elapsed .+\)$"
)


def test_progress_line_format() -> None:
    line = progress_line("more-of-the-same", 120, 480, 2.0, 60.0)
    assert line == (
        "[more-of-the-same] 120/480 samples (25%), 2.00/s,"
        " about 3 min 00 s left (elapsed 1 min 00 s)"
    )
    assert LINE.match(line)
    first = progress_line("s", 0, 10, None, 0.0)
    assert first == "[s] 0/10 samples (0%), -/s, time left unknown (elapsed 0 s)"
    assert progress_line("s", 10, 10, 5.0, 2.0).endswith("5.00/s, done (elapsed 2 s)")
    assert "about 1 h 23 min left" in progress_line("s", 0, 5000, 1.0, 1.0)
    # a total revised below what is done never shows more than 100 %
    assert progress_line("s", 12, 10, 1.0, 1.0).startswith("[s] 12/12 samples (100%)")


def test_progress_interval_from_argument_environment_or_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(PROGRESS_INTERVAL_ENV, raising=False)
    assert progress_interval() == DEFAULT_PROGRESS_INTERVAL_S == 30.0
    monkeypatch.setenv(PROGRESS_INTERVAL_ENV, "2.5")
    assert progress_interval() == 2.5
    assert progress_interval(7.0) == 7.0
    monkeypatch.setenv(PROGRESS_INTERVAL_ENV, "soon")
    assert progress_interval() == 30.0
    with pytest.raises(ConfigError):
        RunOptions(progress_interval_s=0).validate()


def test_plain_lines_repeat_while_nothing_arrives_and_once_at_the_end() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=False, width=80)
    progress = RunProgress("t", enabled=True, console=console, interval_s=0.05)
    assert progress.plain
    progress.start(total=4, done=1)
    time.sleep(0.3)  # no sample: the timer still reports
    stalled = buffer.getvalue().splitlines()
    assert len(stalled) >= 3
    assert all(line.startswith("[t] 1/4 samples (25%), -/s") for line in stalled)
    progress.advance(("a",), 2, 1)
    progress.update_total(5)
    time.sleep(0.2)
    progress.advance(("a",), 2, 2)
    progress.stop()
    lines = buffer.getvalue().splitlines()
    assert all(LINE.match(line) for line in lines), lines
    assert any(line.startswith("[t] 2/5 samples (40%)") for line in lines)
    assert lines[-1].startswith("[t] 3/5 samples (60%)")
    count = len(lines)
    time.sleep(0.15)
    assert len(buffer.getvalue().splitlines()) == count  # the timer stopped


def test_disabled_progress_prints_nothing() -> None:
    buffer = io.StringIO()
    progress = RunProgress(
        "t", enabled=False, console=Console(file=buffer, force_terminal=False), interval_s=0.01
    )
    progress.start(total=4, done=0)
    time.sleep(0.05)
    progress.advance(("a",), 2, 1)
    progress.stop()
    assert buffer.getvalue() == ""


def test_gasp_run_into_a_file_logs_progress_during_generation(tmp_path: Path) -> None:
    """`gasp run ... > log.txt 2>&1` shows progress lines while it generates."""
    log = tmp_path / "log.txt"
    env = dict(os.environ, **{PROGRESS_INTERVAL_ENV: "0.3"})
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    command = [
        sys.executable, "-m", "gasp", "run", "-m", "mock/personas", "--quick",
        "--model-option", "latency_s=0.25", "--max-concurrency", "8",
        "--skip", "analyze", "--skip", "probe", "--skip", "report",
        "--out", str(tmp_path / "out"),
    ]  # fmt: skip
    with log.open("w") as handle:
        process = subprocess.Popen(
            command, stdout=handle, stderr=subprocess.STDOUT, env=env, cwd=tmp_path
        )
        seen_while_running: list[str] = []
        deadline = time.monotonic() + 120
        while process.poll() is None and time.monotonic() < deadline:
            lines = [m for m in log.read_text().splitlines() if LINE.match(m)]
            partial = [m for m in lines if (g := LINE.match(m)) and g["done"] != g["total"]]
            if process.poll() is None and len(partial) >= 2:
                seen_while_running = partial
            time.sleep(0.1)
        process.wait(timeout=60)
    text = log.read_text()
    assert process.returncode == 0, text
    assert len(seen_while_running) >= 2, text  # read from the log before the run ended
    assert all(m["name"] == "more-of-the-same" for m in map(LINE.match, seen_while_running) if m)
    assert re.search(r"\d/\d Generate", text), text  # the step header
    # progress lines come before the summary table and the step's "done in" line
    last_progress = max(i for i, line in enumerate(text.splitlines()) if LINE.match(line))
    summary_at = next(i for i, line in enumerate(text.splitlines()) if "generated" in line)
    done_at = next(i for i, line in enumerate(text.splitlines()) if "done generate in" in line)
    assert last_progress < summary_at < done_at
    assert "\x1b[" not in text  # plain text, no terminal codes
