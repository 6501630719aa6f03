"""The answers of :class:`~gasp.testing.FakeOpenAIServer` that no client should read
whole: 100 MB of text streamed with no length told, a gzip body that decodes to 1 GiB,
and a body sent one byte a second until the client leaves."""

from __future__ import annotations

import asyncio
import functools
import json
import zlib
from typing import Any

from aiohttp import web

#: Faults drawn only when asked for by name: an answer of 100 MB, a gzip body that
#: decodes to 1 GiB, and a body sent one byte a second.
HOSTILE_KINDS = frozenset({"content_filter", "oversized", "gzip_bomb", "trickle"})
#: Bytes of the ``oversized`` answer's text, and of the ``gzip_bomb`` body decoded.
OVERSIZED_BYTES = 100 * 2**20
BOMB_BYTES = 2**30
#: The text the answer's JSON carries where the hostile part goes.
HOSTILE_TEXT = "@HOSTILE@"


@functools.cache
def _gzip_bomb() -> bytes:
    """A gzip body of about 1 MB that decodes to :data:`BOMB_BYTES` zero bytes."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(2**24)
    body = b"".join(packer.compress(block) for _ in range(BOMB_BYTES // len(block)))
    return body + packer.flush()


async def hostile_answer(
    request: web.Request, fault: str, answer: dict[str, Any]
) -> web.StreamResponse:
    """The ``fault`` (``oversized``, ``gzip_bomb`` or ``trickle``) answer to ``request``;
    ``answer`` is the normal answer, its text :data:`HOSTILE_TEXT`."""
    if fault == "gzip_bomb":
        headers = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
        return web.Response(body=_gzip_bomb(), headers=headers)
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


__all__ = ["BOMB_BYTES", "HOSTILE_KINDS", "HOSTILE_TEXT", "OVERSIZED_BYTES", "hostile_answer"]
