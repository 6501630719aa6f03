"""Answers read within bounds: no server's answer, decoded, takes more than a set size.

A server may answer with a body of hundreds of megabytes, or with a small gzip body that
decodes to gigabytes (a gzip bomb). The HTTP client of the OpenAI backends reads the
whole body into memory and decodes it, so either would take the run's memory with it.
:func:`bound_answers` wraps that client's transport: every answer's body is decoded here,
as it arrives, and reading stops with a :class:`RequestRejectedError` (that request
fails, the run goes on) once more than :data:`MAX_ANSWER_BYTES` have come. Only the
encodings the client asks for (gzip, deflate) are accepted.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator
from typing import Any

import httpx2

from gasp.backends._faults import RequestRejectedError

#: The most bytes one answer may hold once decoded (a generated answer is a few
#: kilobytes; a scoring answer with log-probabilities a few hundred).
MAX_ANSWER_BYTES = 32 * 2**20
#: The encodings asked for (``Accept-Encoding``) and decoded here.
_DECODED = {"gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}
_PLAIN = {"", "identity"}


def _too_large(limit: int) -> RequestRejectedError:
    return RequestRejectedError(
        "oversized", f"the server's answer is larger than {limit / 2**20:g} MiB once decoded"
    )


class _BoundedStream(httpx2.AsyncByteStream):
    """An answer's body, decoded, that stops past ``limit`` bytes."""

    def __init__(self, inner: Any, limit: int, encoding: str) -> None:
        self._inner = inner
        self._limit = limit
        wbits = _DECODED.get(encoding)
        self._decoder = None if wbits is None else zlib.decompressobj(wbits)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for piece in self._decoded():
            seen += len(piece)
            if seen > self._limit:
                raise _too_large(self._limit)
            yield piece

    async def _decoded(self) -> AsyncIterator[bytes]:
        """The body as it arrives, decoded in pieces of at most one byte past the limit
        (so that reading stops before a bomb's next piece is made)."""
        async for chunk in self._inner:
            if self._decoder is None:
                yield chunk
                continue
            data = chunk
            while data:
                try:
                    yield self._decoder.decompress(data, self._limit + 1)
                except zlib.error as exc:
                    raise RequestRejectedError("malformed", f"the answer's body: {exc}") from None
                data = self._decoder.unconsumed_tail
        if self._decoder is not None:
            yield self._decoder.flush()

    async def aclose(self) -> None:
        await self._inner.aclose()


class BoundedTransport(httpx2.AsyncBaseTransport):
    """A transport whose answers are read within :data:`MAX_ANSWER_BYTES`."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, limit: int = MAX_ANSWER_BYTES) -> None:
        self.inner = inner
        self.limit = limit

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)
        encoding = response.headers.get("content-encoding", "").strip().lower()
        if encoding not in _PLAIN and encoding not in _DECODED:
            await response.aclose()
            raise RequestRejectedError(
                "malformed", f"the server's answer is encoded as {encoding!r}, not asked for"
            )
        length = response.headers.get("content-length", "")
        if encoding in _PLAIN and length.isdigit() and int(length) > self.limit:
            await response.aclose()
            raise _too_large(self.limit)
        response.stream = _BoundedStream(response.stream, self.limit, encoding)
        for header in ("content-encoding", "content-length"):  # decoded here, not again
            if encoding not in _PLAIN and header in response.headers:
                del response.headers[header]
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def bound_answers(client: httpx2.AsyncClient, limit: int = MAX_ANSWER_BYTES) -> httpx2.AsyncClient:
    """``client`` with every transport it sends through (proxies' too) reading its answers
    within ``limit`` bytes; it asks for gzip and deflate only."""
    client.headers["accept-encoding"] = "gzip, deflate"
    client._transport = BoundedTransport(client._transport, limit)
    client._mounts = {
        pattern: None if transport is None else BoundedTransport(transport, limit)
        for pattern, transport in client._mounts.items()
    }
    return client


__all__ = ["MAX_ANSWER_BYTES", "BoundedTransport", "bound_answers"]
