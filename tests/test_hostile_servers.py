"""Servers that answer with more than any client should read: an answer of 100 MB, a
gzip body that decodes to 1 GiB, a body sent one byte a second. Each request fails in
bounded memory and time (the answer's size is capped once decoded, every request has a
deadline), the run goes on, and a run whose every request failed ends in one line."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from gasp.testing import FakeOpenAIServer

MODEL = "openai-compatible/fake-model"
TIME = Path("/usr/bin/time")


def _run(
    url: str, out: Path, *extra: str
) -> tuple[subprocess.CompletedProcess[str], float, int | None]:
    """``gasp run`` of the quick pronoun pairs against ``url`` in its own process: the
    result, its seconds and its peak memory in MiB (GNU time's maximum resident set
    size, measured in a process of its own: a child of this test process would inherit
    this process's high-water mark; None without ``/usr/bin/time``)."""
    timer = ["/usr/bin/time", "-f", "GASP_TEST_MAXRSS_KB %M"] if TIME.is_file() else []
    command = [*timer, sys.executable, "-m", "gasp", "run", "pronoun-pairs", "--quick", "-m",
               MODEL, "--base-url", url, "--out", str(out), "--quiet", *extra]  # fmt: skip
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    seconds = time.monotonic() - start
    lines = done.stderr.splitlines()
    memory = [int(line.split()[1]) // 1024 for line in lines if line.startswith("GASP_TEST_MAX")]
    kept = [line for line in lines if not line.startswith(("GASP_TEST_MAX", "Command exited"))]
    done.stderr = "\n".join(kept)
    return done, seconds, memory[-1] if memory else None


def _errors(out: Path) -> list[str]:
    with sqlite3.connect(out / "run.sqlite") as conn:
        return [str(e) for (e,) in conn.execute("SELECT error FROM samples")]


@pytest.mark.parametrize("fault", ["oversized", "gzip_bomb"])
def test_an_answer_too_large_fails_its_request_in_bounded_memory(
    tmp_path: Path, fault: str
) -> None:
    with FakeOpenAIServer(models=["fake-model"], fault_rate=1.0, faults=[fault]) as server:
        done, _seconds, peak_mib = _run(server.base_url, tmp_path / "run")
        asked = server.requests
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert lines[0].startswith("gasp: error: ") and "larger than 32 MiB" in lines[0]
    assert "Traceback" not in done.stderr
    errors = _errors(tmp_path / "run")
    assert errors and all("oversized" in e for e in errors)
    assert asked == len(errors)  # refused for good: not asked again
    if peak_mib is not None:  # the 1 GiB bomb and the 100 MB answer were never read whole
        assert peak_mib < 1024, peak_mib


def test_a_server_that_trickles_its_answer_is_given_up_at_the_request_deadline(
    tmp_path: Path,
) -> None:
    with FakeOpenAIServer(models=["fake-model"], fault_rate=1.0, faults=["trickle"]) as server:
        done, seconds, _peak = _run(server.base_url, tmp_path / "run", "--request-deadline", "3")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert "deadline of 3 s" in lines[0]
    assert seconds < 30, seconds
    assert all("deadline of 3 s" in e for e in _errors(tmp_path / "run"))


def test_a_bad_request_deadline_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    done, _seconds, _peak = _run(
        "http://127.0.0.1:9/v1", tmp_path / "run", "--request-deadline", "0"
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "gasp: error: --request-deadline must lie in (0, 86400], got 0.0"
    ]
    assert not (tmp_path / "run").exists()


def test_an_ordinary_gzip_answer_is_decoded_whole() -> None:
    import asyncio
    import gzip
    import json

    import httpx2

    from gasp.backends._bounded_http import BoundedTransport

    body = json.dumps({"text": "x" * 100_000}).encode()

    class Arriving(httpx2.AsyncByteStream):
        """The gzip body in chunks of 1,000 bytes, as a server sends it."""

        async def __aiter__(self) -> AsyncIterator[bytes]:
            packed = gzip.compress(body)
            for start in range(0, len(packed), 1_000):
                yield packed[start : start + 1_000]

    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"Content-Encoding": "gzip"}, stream=Arriving())

    async def fetch(limit: int) -> bytes:
        transport = BoundedTransport(httpx2.MockTransport(answer), limit)
        async with httpx2.AsyncClient(transport=transport) as client:
            return (await client.get("http://server/x")).content

    assert asyncio.run(fetch(2**20)) == body
    with pytest.raises(Exception, match="larger than"):
        asyncio.run(fetch(50_000))
