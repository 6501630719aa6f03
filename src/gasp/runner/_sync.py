"""Running a coroutine to its end from synchronous code, inside a running loop too.

``asyncio.run`` refuses to start when the calling thread already runs an event loop,
as a Jupyter kernel's does and an async application's does. :func:`run_sync` runs the
coroutine on the calling thread when no loop runs there, and otherwise on a thread of
its own with a loop of its own, waiting for it: the same result and the same
exceptions either way, so :func:`gasp.run` and :func:`gasp.audit` work in a notebook.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def loop_is_running() -> bool:
    """Whether the calling thread is running an event loop now."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to its end and return its result (raise its exception).

    Inside a running event loop it runs on a new thread with its own loop (the caller's
    context variables copied), the calling thread waiting; a ``KeyboardInterrupt`` while
    waiting is passed on once the coroutine has stopped.
    """
    if not loop_is_running():
        return asyncio.run(coroutine)
    outcome: dict[str, Any] = {}
    context = contextvars.copy_context()

    def target() -> None:
        try:
            outcome["value"] = context.run(asyncio.run, coroutine)
        except BaseException as exc:  # handed to the waiting thread as it is
            outcome["error"] = exc

    worker = threading.Thread(target=target, name="gasp-run", daemon=True)
    worker.start()
    worker.join()
    if "error" in outcome:
        raise outcome["error"]
    value: T = outcome["value"]
    return value


__all__ = ["loop_is_running", "run_sync"]
