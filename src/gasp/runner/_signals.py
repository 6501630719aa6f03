"""SIGINT, SIGTERM and SIGHUP stop a run cleanly, and alike.

On the first signal the run takes no new request and keeps reading the answers already
under way for up to :data:`DRAIN_S` seconds, committing each as it arrives (answers a
server has sent may still wait unread in the connection while the client is busy);
then the run's task is cancelled, the session is recorded as ``interrupted``, the
store closed and its lock released, and :class:`gasp.errors.Interrupted` is raised
with the signal's number. A second signal cancels at once.

Without this a SIGTERM (``kill``, a container stop, a scheduler's time limit) or a
SIGHUP (a closed terminal) ends the process where it stands: nothing committed is lost,
but the session is never recorded. Handlers are installed only where the event loop
can take them (the main thread of a process on a POSIX system); elsewhere the signals
keep their usual action.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Iterator

from gasp.errors import Interrupted

#: The signals a run stops cleanly on.
STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
#: Seconds the run keeps reading answers already under way after the first signal.
DRAIN_S = 2.0


class SignalStop:
    """What a stop signal did to one run: which signal, and whether to take requests."""

    def __init__(self, task: asyncio.Task[object], loop: asyncio.AbstractEventLoop) -> None:
        self.task = task
        self.loop = loop
        self.signum: int | None = None

    @property
    def stopping(self) -> bool:
        """True once a signal came: the run takes no new request."""
        return self.signum is not None

    def __call__(self, signum: int) -> None:
        if self.signum is None:
            self.signum = signum
            self.loop.call_later(DRAIN_S, self.task.cancel)
        else:  # a second signal: stop now
            self.task.cancel()

    def interrupted(self) -> Interrupted | None:
        """The error to raise once the run has stopped, or None when no signal came."""
        return None if self.signum is None else Interrupted(self.signum)


@contextlib.contextmanager
def stop_on_signals() -> Iterator[SignalStop | None]:
    """While the body runs, the stop signals are handled as the module doc says.

    Yields the :class:`SignalStop` (None where no handler could be installed); once the
    body ends (drained, or cancelled), the caller raises ``stop.interrupted()`` when a
    signal came.
    """
    try:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
    except RuntimeError:
        task = None
    if task is None:
        yield None
        return
    stop = SignalStop(task, loop)
    installed: list[signal.Signals] = []
    for signum in STOP_SIGNALS:
        try:
            loop.add_signal_handler(signum, stop, int(signum))
        except (NotImplementedError, RuntimeError, ValueError):
            continue  # not the main thread, or no POSIX signals: the usual action kept
        installed.append(signum)
    try:
        yield stop if installed else None
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)


__all__ = ["DRAIN_S", "STOP_SIGNALS", "SignalStop", "stop_on_signals"]
