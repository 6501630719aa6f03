"""Every answer is committed soon after it arrives, even when no other answer follows:
a server that answers k requests and then hangs leaves k samples in the store, and a
run killed then resumed asks for none of them again."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from _kill import rows_now
from gasp.testing import FakeOpenAIServer

SCRIPT = """
import sys
from gasp.backends import RetryPolicy
from gasp.runner import RunOptions, generate
from gasp.studies.more_of_the_same import more_of_the_same

study = more_of_the_same().restrict(subjects=["nurse", "pilot"], n=3)
options = RunOptions(
    progress=False,
    base_url=sys.argv[2],
    max_concurrency=2,
    retry=RetryPolicy(max_attempts=1, timeout_s=600.0),
)
summary = generate(study, "openai-compatible/fake-model", sys.argv[1], options)
print("COMPLETE" if summary.complete else "INCOMPLETE", flush=True)
"""

ANSWERED = 5


def _wait_for_rows(path: Path, rows: int, proc: subprocess.Popen[bytes], limit_s: float) -> float:
    """Seconds until the store at ``path`` holds ``rows`` samples (inf if it never does)."""
    start = time.monotonic()
    while time.monotonic() - start < limit_s and proc.poll() is None:
        if rows_now(path) >= rows:
            return time.monotonic()
        time.sleep(0.02)
    return float("inf")


def test_answers_before_a_hang_are_committed_and_never_requested_again(tmp_path: Path) -> None:
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    store = tmp_path / "run.sqlite"
    with FakeOpenAIServer(seed=3, hang_after=ANSWERED) as server:
        proc = subprocess.Popen(
            [sys.executable, str(script), str(store), server.base_url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            # the server answers ANSWERED requests and then answers nothing more, so
            # these rows can only be committed by a flush that waits for no answer
            seen = _wait_for_rows(store, ANSWERED, proc, limit_s=20)
            assert seen < float("inf"), f"{rows_now(store)} of {ANSWERED} answers committed"
            assert server.successes == ANSWERED
            assert seen - server.answered_at[-1] < 30
        finally:
            proc.kill()
            proc.communicate(timeout=60)
    assert rows_now(store) == ANSWERED

    with FakeOpenAIServer(seed=3) as server:
        result = subprocess.run(
            [sys.executable, str(script), str(store), server.base_url],
            capture_output=True,
            text=True,
            timeout=300,
        )
        resumed_requests = server.requests
    assert "COMPLETE" in result.stdout.split(), result.stderr
    total = rows_now(store)
    assert total > ANSWERED
    # the resumed run asked only for what was missing: none of the committed answers
    assert resumed_requests == total - ANSWERED
