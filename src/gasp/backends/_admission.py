"""When a call reaches the model: where its timeout and its latency start.

A local backend runs one batch at a time under its model's lock, and the batches
queued behind it wait. :class:`~gasp.backends.ResilientModel` times a call (the
timeout it enforces and the ``latency_s`` it records) from the moment the call
reaches the model, and records the wait before that moment as ``queue_s`` (for
the wrapper's concurrency bound, the model's loading and its lock). So a batch
queued behind others neither times out while it waits nor stores their compute
time as its own latency.

A backend that sets :attr:`~gasp.backends.ModelBackend.reports_model_turn` takes
its model's lock with :func:`model_turn`, which reports the moment through a
context variable (``asyncio.to_thread`` carries it into the worker thread). Any
other backend (an API client) reaches its model as soon as the concurrency bound
lets the call through.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextvars import ContextVar

_REPORT: ContextVar[Callable[[], None] | None] = ContextVar("gasp_model_turn", default=None)


@contextlib.contextmanager
def model_turn(lock: threading.Lock) -> Iterator[None]:
    """Hold ``lock`` (the model) and tell the calling wrapper that the call reached it."""
    with lock:
        report = _REPORT.get()
        if report is not None:
            report()
        yield


class CallClock:
    """One attempt's clock: queued on creation, started when the call reaches the model.

    Args:
        limit_s: the timeout, counted from the start (None: no timeout).
    """

    def __init__(self, limit_s: float | None) -> None:
        self.limit_s = limit_s
        self.queued_at = time.perf_counter()
        self.started_at: float | None = None
        self.ended_at: float | None = None
        self._loop = asyncio.get_running_loop()
        self._timeout: asyncio.Timeout | None = None

    @contextlib.asynccontextmanager
    async def running(self, reported: bool) -> AsyncIterator[None]:
        """Run the body under the timeout; it starts now, or where the backend reports it
        (``reported``: the backend calls :func:`model_turn`)."""
        async with asyncio.timeout(None) as timeout:
            self._timeout = timeout
            token = _REPORT.set(self._reported) if reported else None
            if not reported:
                self._start(time.perf_counter(), self._deadline())
            try:
                yield
            finally:
                self._timeout = None
                self.ended_at = time.perf_counter()
                if token is not None:
                    _REPORT.reset(token)

    @property
    def queue_s(self) -> float | None:
        """Seconds from queueing to reaching the model (None if it never did)."""
        return None if self.started_at is None else self.started_at - self.queued_at

    @property
    def compute_s(self) -> float | None:
        """Seconds from reaching the model to the answer (None if it never did)."""
        if self.started_at is None or self.ended_at is None:
            return None
        return self.ended_at - self.started_at

    def _deadline(self) -> float | None:
        return None if self.limit_s is None else self._loop.time() + self.limit_s

    def _reported(self) -> None:
        """Called by :func:`model_turn`, in the backend's worker thread."""
        if self.started_at is None:
            self.started_at = time.perf_counter()
            self._loop.call_soon_threadsafe(self._start, self.started_at, self._deadline())

    def _start(self, at: float, deadline: float | None) -> None:
        if self.started_at is None or self.started_at == at:
            self.started_at = at
            if deadline is not None and self._timeout is not None:
                self._timeout.reschedule(deadline)
