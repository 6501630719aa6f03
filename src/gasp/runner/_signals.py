"""SIGTERM and SIGHUP stop a run as SIGINT does: the running task is cancelled, every
answer received is committed already (see :mod:`gasp.runner._loop`), the session is
recorded, the store closed and its lock released, then :class:`gasp.errors.Interrupted`
is raised with the signal's number.

Without this a SIGTERM (``kill``, a container stop, a scheduler's time limit) or a
SIGHUP (a closed terminal) ends the process where it stands: nothing is lost that was
committed, but the session is never recorded and the store is never checkpointed.
Handlers are installed only where the event loop can take them (the main thread of a
process on a POSIX system); elsewhere the signals keep their default action.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Iterator

from gasp.errors import Interrupted

#: The signals a run stops cleanly on, besides SIGINT (which asyncio turns into a
#: cancellation already).
STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class SignalStop:
    """Cancels one task when a stop signal arrives and remembers which signal it was."""

    def __init__(self, task: asyncio.Task[object]) -> None:
        self.task = task
        self.signum: int | None = None

    def __call__(self, signum: int) -> None:
        if self.signum is None:  # the first signal stops the run; a second changes nothing
            self.signum = signum
            self.task.cancel()

    def interrupted(self) -> Interrupted | None:
        """The error to raise once the run has stopped, or None when no signal came."""
        return None if self.signum is None else Interrupted(self.signum)


@contextlib.contextmanager
def stop_on_signals() -> Iterator[SignalStop | None]:
    """While the body runs, SIGTERM and SIGHUP cancel the current task (see module doc).

    Yields the :class:`SignalStop` (None where no handler could be installed): when the
    body ends with :class:`asyncio.CancelledError` and a signal came, the caller raises
    ``stop.interrupted()``.
    """
    try:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
    except RuntimeError:
        task = None
    if task is None:
        yield None
        return
    stop = SignalStop(task)
    installed: list[signal.Signals] = []
    for signum in STOP_SIGNALS:
        try:
            loop.add_signal_handler(signum, stop, int(signum))
        except (NotImplementedError, RuntimeError, ValueError):
            continue  # not the main thread, or no POSIX signals: default action kept
        installed.append(signum)
    try:
        yield stop if installed else None
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)


__all__ = ["STOP_SIGNALS", "SignalStop", "stop_on_signals"]
