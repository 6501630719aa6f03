"""The OpenAI Batch API over plain HTTP: files up and down, batches created and polled.

Endpoints (relative to the base URL, ``https://api.openai.com/v1`` by default):
``POST /files`` (multipart, purpose ``batch``), ``GET /files/{id}/content``,
``POST /batches``, ``GET /batches/{id}``, ``POST /batches/{id}/cancel`` and
``GET /batches`` (to find a batch again by its metadata). Each line of an input file
is one ``/v1/chat/completions`` request whose ``custom_id`` is the run's request key;
each line of an output or error file is turned back into a
:class:`GenerationResponse` or :class:`ScoreResponse` by the chat backend that made
the request (:class:`~gasp.backends._openai.OpenAIBackend`), so a batch answer is read
exactly as a direct one. The API key lives only in the authorization header.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gasp.backends._faults import RequestRejectedError, TransientBackendError
from gasp.backends._messages import AnyRequest, AnyResponse, ScoreRequest, error_response
from gasp.backends._urls import redact_url
from gasp.errors import BackendError, ConfigError

if TYPE_CHECKING:  # aiohttp and openai come with the api extra, imported when used
    import aiohttp

    from gasp.backends._openai import OpenAIBackend

DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: The one endpoint batch lines are sent to.
BATCH_ENDPOINT = "/v1/chat/completions"
#: Batch statuses after which the provider does nothing more with a batch.
TERMINAL_STATUSES = frozenset({"completed", "failed", "expired", "cancelled"})

_RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})

BatchRequest = AnyRequest
BatchResponse = AnyResponse


class BatchClient:
    """One model's batch API: lines in, batches out and back, answers as responses.

    ``attempts`` HTTP tries per call (429, 5xx and connection failures are retried
    after ``backoff_s``, doubling); anything else is a one-line :class:`BackendError`.
    """

    attempts: int = 5
    backoff_s: float = 1.0

    def __init__(self, backend: OpenAIBackend, *, api_key: str | None) -> None:
        self.backend = backend
        self.model_id = backend.model_id
        self.base_url = (backend.base_url or DEFAULT_BASE_URL).rstrip("/")
        self._headers = {"Authorization": f"Bearer {api_key or 'no-key'}"}
        self._session: aiohttp.ClientSession | None = None

    # -- lines ----------------------------------------------------------------------

    def check(self, request: BatchRequest) -> None:
        """Raise :class:`ConfigError` for a request the chat batch endpoint cannot carry."""
        if isinstance(request, ScoreRequest):
            self.backend.check_score_request(request)
            if isinstance(request.context, str):
                raise ConfigError(
                    f"--batch scores chat contexts only; {self.model_id} would need the"
                    " completions endpoint for a raw-text context: run without --batch"
                )

    def line(self, request: BatchRequest) -> dict[str, Any]:
        """The input line of one request: ``custom_id`` is the request key."""
        if isinstance(request, ScoreRequest):
            _, body = self.backend.score_body(request)
        else:
            body = self.backend.chat_body(request)
        return {"custom_id": request.key, "method": "POST", "url": BATCH_ENDPOINT, "body": body}

    def response(self, request: BatchRequest, line: Mapping[str, Any]) -> BatchResponse:
        """The response a line of an output or error file gives ``request``; a line that
        holds no usable answer gives an error response (its fault kind says why)."""
        error = line.get("error")
        answer = line.get("response") or {}
        if error:
            code = str(error.get("code") or "line_error")
            kind = code if code.startswith("batch_") else f"batch_{code}"
            return self.failure(request, f"{code}: {error.get('message') or ''}".strip(), kind)
        status = answer.get("status_code")
        body = answer.get("body")
        if status != 200 or not isinstance(body, Mapping):
            message = ""
            if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
                message = str(body["error"].get("message") or "")
            return self.failure(request, f"HTTP {status} {message}".strip(), "batch_line_error")
        import pydantic
        from openai.types.chat import ChatCompletion

        try:
            completion = ChatCompletion.model_validate(body)
            if isinstance(request, ScoreRequest):
                return self.backend.score_response(request, completion, None)
            return self.backend.generation_response(completion, None)
        except (TransientBackendError, RequestRejectedError) as exc:
            return self.failure(request, str(exc), exc.kind)
        except (pydantic.ValidationError, ValueError, TypeError) as exc:
            return self.failure(request, f"malformed answer: {type(exc).__name__}", "malformed")

    def failure(self, request: BatchRequest, error: str, kind: str) -> BatchResponse:
        """An error response for ``request`` (a line that failed, or a batch that did)."""
        return error_response(request, self.model_id, error, (kind,))

    # -- files and batches ------------------------------------------------------------

    async def upload(self, data: bytes) -> str:
        """Upload a JSONL input file (purpose ``batch``); return its file id."""
        answer = await self._call("POST", "/files", upload=data)
        return str(answer["id"])

    async def create(self, input_file_id: str, metadata: Mapping[str, str]) -> dict[str, Any]:
        """Create a batch of the chat completion lines of ``input_file_id``."""
        body = {
            "input_file_id": input_file_id,
            "endpoint": BATCH_ENDPOINT,
            "completion_window": "24h",
            "metadata": dict(metadata),
        }
        return dict(await self._call("POST", "/batches", body=body))

    async def retrieve(self, batch_id: str) -> dict[str, Any]:
        """The batch object as the provider has it now."""
        return dict(await self._call("GET", f"/batches/{batch_id}"))

    async def content(self, file_id: str) -> list[dict[str, Any]]:
        """The lines of an output or error file, parsed (blank lines skipped)."""
        raw = await self._call("GET", f"/files/{file_id}/content", raw=True)
        return [json.loads(text) for text in raw.decode("utf-8").splitlines() if text.strip()]

    async def find(self, key: str, value: str, *, pages: int = 10) -> dict[str, Any] | None:
        """The most recent batch whose ``metadata[key]`` is ``value``, among the latest
        ``pages`` pages of 100 batches; None when there is none."""
        after: str | None = None
        for _ in range(pages):
            query = f"/batches?limit=100{'' if after is None else f'&after={after}'}"
            page = await self._call("GET", query)
            for batch in page.get("data") or ():
                if (batch.get("metadata") or {}).get(key) == value:
                    return dict(batch)
            if not page.get("has_more") or not page.get("data"):
                return None
            after = str(page["data"][-1]["id"])
        return None

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def _call(
        self,
        method: str,
        path: str,
        *,
        body: Mapping[str, Any] | None = None,
        upload: bytes | None = None,
        raw: bool = False,
    ) -> Any:
        import aiohttp

        if self._session is None:
            # no total limit: an output file of 200 MB may take minutes to download
            timeout = aiohttp.ClientTimeout(total=None, sock_connect=30, sock_read=300)
            self._session = aiohttp.ClientSession(headers=self._headers, timeout=timeout)
        url = self.base_url + path
        where = f"{self.model_id}: batch API {method} {redact_url(url)}"
        delay = self.backoff_s
        for attempt in range(1, self.attempts + 1):
            last = attempt == self.attempts
            form = None
            if upload is not None:  # a form is consumed by one try: built for each
                form = aiohttp.FormData()
                form.add_field("purpose", "batch")
                form.add_field(
                    "file", upload, filename="gasp-batch.jsonl", content_type="application/jsonl"
                )
            try:
                async with self._session.request(
                    method, url, json=None if body is None else dict(body), data=form
                ) as reply:
                    payload = await reply.read()
                    if reply.status < 300:
                        return payload if raw else json.loads(payload)
                    if reply.status not in _RETRY_STATUSES or last:
                        raise BackendError(f"{where}: HTTP {reply.status}{_message(payload)}")
            except (TimeoutError, aiohttp.ClientError, json.JSONDecodeError) as exc:
                if last:
                    raise BackendError(f"{where}: {type(exc).__name__}") from None
            await asyncio.sleep(delay)
            delay *= 2
        raise AssertionError("unreachable")  # pragma: no cover


def _message(payload: bytes) -> str:
    """The provider's error message from an error body, as ``: message`` (or nothing)."""
    try:
        error = json.loads(payload).get("error") or {}
        message = str(error.get("message") or "")
    except (ValueError, AttributeError):
        return ""
    return f": {message[:200]}" if message else ""
