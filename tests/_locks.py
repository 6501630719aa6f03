"""Holding a run store's lock from another process, and waiting on a condition, in tests
that must not depend on the machine's load: every wait is on an event, with a deadline
far longer than the event needs on a loaded machine."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from gasp.store import StoreLock

#: The longest any condition is waited for (a machine at a load average of 8 on 2 cores
#: is slow, not stopped).
DEADLINE_S = 120.0


def until(condition: Callable[[], object], what: str, timeout_s: float = DEADLINE_S) -> None:
    """Wait until ``condition()`` is true; fail naming ``what`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@contextlib.contextmanager
def held_elsewhere(store: Path) -> Iterator[int]:
    """Hold the lock of ``store`` from a forked process; yield its id."""
    ready_r, ready_w = os.pipe()
    stop_r, stop_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the holder: take the lock, say so, wait to be told to exit
        try:
            StoreLock(store).acquire()
            os.write(ready_w, b"1")
            os.read(stop_r, 1)
        finally:
            os._exit(0)
    try:
        assert os.read(ready_r, 1) == b"1"
        yield pid
    finally:
        os.write(stop_w, b"1")
        os.waitpid(pid, 0)
        for fd in (ready_r, ready_w, stop_r, stop_w):
            os.close(fd)
