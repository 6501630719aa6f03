"""The ``*_async`` variants of the public functions: the same call, awaited.

:func:`awaitable` turns a public function into a coroutine function with the same
parameters (one signature, declared once) that runs it on a worker thread, so a caller
with an event loop of its own (an async application, a notebook cell using ``await``)
keeps its loop free while a study or an audit runs.
"""

from __future__ import annotations

import asyncio
import functools
import typing
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def awaitable(function: Callable[P, R], name: str, doc: str) -> Callable[P, Coroutine[Any, Any, R]]:
    """A coroutine function ``name`` (documented by ``doc``) taking what ``function``
    takes and returning, once awaited, what it returns."""

    async def awaited(*args: P.args, **kwargs: P.kwargs) -> R:
        return await asyncio.to_thread(function, *args, **kwargs)

    functools.update_wrapper(awaited, function)  # its signature is the function's
    awaited.__name__ = awaited.__qualname__ = name
    awaited.__doc__ = doc
    result = typing.get_type_hints(function)["return"]
    coroutine: Any = Coroutine[Any, Any, result]  # type: ignore[valid-type]
    awaited.__annotations__ = {**function.__annotations__, "return": coroutine}
    return awaited


__all__ = ["awaitable"]
