"""The answers of :class:`~gasp.testing.FakeOpenAIServer` that no client should read
whole, or cannot read as an answer: 100 MB of text streamed with no length told, a gzip
body that decodes to 1 GiB, a body sent one byte a second, a body cut short of its
``Content-Length``, a proxy's HTML error page, a message whose ``content`` is null, and
tool calls instead of text."""

from __future__ import annotations

import asyncio
import functools
import json
import zlib
from typing import Any

from aiohttp import web

#: Faults whose answer :func:`hostile_answer` writes: an answer of 100 MB, a gzip body
#: that decodes to 1 GiB, a body sent one byte a second, a body cut short (its
#: ``Content-Length`` larger than what is sent, the connection then closed), a 200
#: answer that is an HTML page, ``content: null``, and tool calls instead of content.
ANSWER_KINDS = (
    "oversized",
    "gzip_bomb",
    "trickle",
    "truncated",
    "html",
    "null_content",
    "tool_calls",
)
#: Faults drawn only when asked for by name.
HOSTILE_KINDS = frozenset({"content_filter", *ANSWER_KINDS})
#: Bytes of the ``oversized`` answer's text, and of the ``gzip_bomb`` body decoded.
OVERSIZED_BYTES = 100 * 2**20
BOMB_BYTES = 2**30
#: The text the answer's JSON carries where the hostile part goes.
HOSTILE_TEXT = "@HOSTILE@"
#: The page the ``html`` fault answers with, as a proxy in front of a server sends it.
HTML_PAGE = (
    "<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n"
    "<center><h1>502 Bad Gateway</h1></center>\n"
    + "<!-- a padding to make the page longer than any error line -->\n" * 40
    + "<hr><center>nginx</center>\n</body>\n</html>\n"
)


@functools.cache
def _gzip_bomb() -> bytes:
    """A gzip body of about 1 MB that decodes to :data:`BOMB_BYTES` zero bytes."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(2**24)
    body = b"".join(packer.compress(block) for _ in range(BOMB_BYTES // len(block)))
    return body + packer.flush()


def _without_content(answer: dict[str, Any], tools: bool) -> dict[str, Any]:
    """``answer`` with its message's ``content`` null; with ``tools``, a tool call
    instead (``finish_reason`` ``tool_calls``), as a model answering with a tool does."""
    choice = answer["choices"][0]
    choice["message"]["content"] = None
    if tools:
        call = {"name": "get_weather", "arguments": json.dumps({"city": "Paris"})}
        choice["message"]["tool_calls"] = [{"id": "call_1", "type": "function", "function": call}]
        choice["finish_reason"] = "tool_calls"
    return answer


async def _truncated(request: web.Request, answer: dict[str, Any]) -> web.StreamResponse:
    """The first half of ``answer``'s body under a ``Content-Length`` of the whole, then
    the connection closed."""
    body = json.dumps(answer).encode()
    response = web.StreamResponse(headers={"Content-Type": "application/json"})
    response.content_length = len(body)
    await response.prepare(request)
    await response.write(body[: len(body) // 2])
    if request.transport is not None:
        request.transport.close()  # what was written is sent first
    raise asyncio.CancelledError


async def hostile_answer(
    request: web.Request, fault: str, answer: dict[str, Any]
) -> web.StreamResponse:
    """The ``fault`` answer (one of :data:`ANSWER_KINDS`) to ``request``; ``answer`` is
    the normal answer, its text :data:`HOSTILE_TEXT`."""
    if fault == "gzip_bomb":
        headers = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
        return web.Response(body=_gzip_bomb(), headers=headers)
    if fault == "html":
        return web.Response(text=HTML_PAGE, content_type="text/html")
    if fault in ("null_content", "tool_calls"):
        return web.json_response(_without_content(answer, tools=fault == "tool_calls"))
    if fault == "truncated":
        return await _truncated(request, answer)
    response = web.StreamResponse(headers={"Content-Type": "application/json"})
    await response.prepare(request)
    head, tail = json.dumps(answer).split(HOSTILE_TEXT)
    if fault == "oversized":  # streamed, with no length told in advance
        await response.write(head.encode())
        for _ in range(OVERSIZED_BYTES // 2**20):
            await response.write(b"a" * 2**20)
        await response.write(tail.encode())
        return response
    for byte in (head + "slow" + tail).encode():
        await response.write(bytes([byte]))
        await asyncio.sleep(1.0)
    return response


__all__ = [
    "ANSWER_KINDS",
    "BOMB_BYTES",
    "HOSTILE_KINDS",
    "HOSTILE_TEXT",
    "HTML_PAGE",
    "OVERSIZED_BYTES",
    "hostile_answer",
]
