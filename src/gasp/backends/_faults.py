"""Classifying what went wrong in one call to a model: retry, wait, give up, or stop.

Backends raise; :func:`classify_error` decides what the wrapper does about it.
Transient faults (rate limits, server errors, timeouts, dropped connections,
malformed or empty answers) are retried; a request the provider rejects for good
(a bad request) gives up on that request only; errors the user must fix
(authentication, unknown model, unreachable server) stop the whole run with a
:class:`~gasp.errors.BackendError`.
"""

from __future__ import annotations

import email.utils
import enum
import json
import math
import re
import socket
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass

from gasp.errors import GaspError


class FaultAction(enum.StrEnum):
    """What the wrapper does about one failed call."""

    RETRY = "retry"  # back off and try again
    RATE_LIMIT = "rate_limit"  # wait at least the server's Retry-After, then try again
    GIVE_UP = "give_up"  # record an ERROR response for this request, keep the run going
    FATAL = "fatal"  # raise BackendError: the user must fix something


@dataclass(frozen=True)
class FaultDecision:
    """The outcome of :func:`classify_error` for one exception."""

    action: FaultAction
    kind: str
    retry_after_s: float | None = None
    message: str = ""


class TransientBackendError(Exception):
    """Raised by a backend for a fault worth retrying (for example an empty answer).

    ``kind`` names the fault (``"empty"``, ``"malformed"``, ``"server_error"`` ...)
    and is recorded on the final response.
    """

    def __init__(self, kind: str, message: str = "", retry_after_s: float | None = None):
        super().__init__(message or kind)
        self.kind = kind
        self.retry_after_s = retry_after_s


class RequestRejectedError(Exception):
    """Raised by a backend when the provider rejects one request for good (no retry)."""

    def __init__(self, kind: str, message: str = ""):
        super().__init__(message or kind)
        self.kind = kind


def parse_retry_after(
    headers: Mapping[str, str] | None, *, now: float | None = None
) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    if not headers:
        return None
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        raw = lowered.get(name)
        if raw is None:
            continue
        value: float | None
        try:
            value = float(raw) / divisor
        except ValueError:
            value = _parse_http_date(raw, now)
        if value is not None and math.isfinite(value) and value >= 0:
            return value
    return None


def _parse_http_date(raw: str, now: float | None) -> float | None:
    try:
        parsed = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    if parsed is None:
        return None
    current = time.time() if now is None else now
    return max(0.0, parsed.timestamp() - current)


def is_connect_failure(exc: BaseException) -> bool:
    """True when the exception chain shows the server could not be reached at all.

    A refused connection or an unknown host name, as opposed to a connection the
    server dropped after accepting it.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError | socket.gaierror):
            return True
        if type(current).__name__ in {"ConnectError", "ClientConnectorError"}:
            return True
        current = current.__cause__ or current.__context__
    return False


_STATUS_KINDS: dict[int, tuple[FaultAction, str]] = {
    400: (FaultAction.GIVE_UP, "bad_request"),
    401: (FaultAction.FATAL, "authentication"),
    403: (FaultAction.FATAL, "permission"),
    404: (FaultAction.FATAL, "not_found"),
    408: (FaultAction.RETRY, "timeout"),
    409: (FaultAction.RETRY, "conflict"),
    413: (FaultAction.GIVE_UP, "bad_request"),
    422: (FaultAction.GIVE_UP, "bad_request"),
    429: (FaultAction.RATE_LIMIT, "rate_limit"),
}

_FATAL_HINTS: dict[str, str] = {
    "authentication": "authentication failed (check the API key)",
    "permission": "permission denied for this model or key",
    "not_found": "model or endpoint not found (check the model name and base URL)",
}


def classify_status(status: int, headers: Mapping[str, str] | None = None) -> FaultDecision:
    """Decide what to do about an HTTP error status from a model server."""
    if status in _STATUS_KINDS:
        action, kind = _STATUS_KINDS[status]
    elif status == 503:
        action, kind = FaultAction.RETRY, "unavailable"
    elif status >= 500:
        action, kind = FaultAction.RETRY, "server_error"
    else:
        action, kind = FaultAction.GIVE_UP, f"http_{status}"
    retry_after = parse_retry_after(headers)
    if action is FaultAction.RETRY and retry_after is not None:
        action = FaultAction.RATE_LIMIT
    message = _FATAL_HINTS.get(kind, f"HTTP {status}")
    return FaultDecision(action, kind, retry_after, message)


def _rejected_cause(exc: BaseException) -> RequestRejectedError | None:
    """``exc`` or the exception it was raised from, when a request was rejected."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, RequestRejectedError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def classify_error(exc: BaseException) -> FaultDecision:
    """Decide per error: retry, rate-limit (wait Retry-After), give up, or fatal.

    Knows the OpenAI client's exceptions by type where the ``openai`` package is
    loaded (:func:`classify_openai_error`), other clients' ``APIStatusError``-like
    exceptions by their status code, timeouts, connection errors, malformed JSON
    and the backends' own :class:`TransientBackendError` /
    :class:`RequestRejectedError`. A :class:`~gasp.errors.GaspError` (a
    configuration the user must fix) is fatal. Anything else gives up on the one
    request (kind ``"unexpected"``) rather than retrying a programming error.
    """
    if isinstance(exc, GaspError):
        return FaultDecision(FaultAction.FATAL, "fatal", None, str(exc))
    if isinstance(exc, TransientBackendError):
        action = FaultAction.RATE_LIMIT if exc.retry_after_s is not None else FaultAction.RETRY
        return FaultDecision(action, exc.kind, exc.retry_after_s, str(exc))
    rejected = _rejected_cause(exc)
    if rejected is not None:  # an answer refused while read (raised inside a client)
        return FaultDecision(FaultAction.GIVE_UP, rejected.kind, None, str(rejected))
    if isinstance(exc, TimeoutError):
        return FaultDecision(FaultAction.RETRY, "timeout", None, "timed out")
    cut = _cut_short(exc)
    if cut is not None:
        return FaultDecision(FaultAction.RETRY, "truncated", None, cut)
    decision = classify_openai_error(exc)
    if decision is not None:
        return decision
    names = {cls.__name__ for cls in type(exc).__mro__}
    if "APITimeoutError" in names and not _dropped_connection(exc):
        return FaultDecision(FaultAction.RETRY, "timeout", None, "timed out")
    status = getattr(exc, "status_code", None)
    if "APIStatusError" in names and isinstance(status, int):
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        return classify_status(status, headers)
    if "APIResponseValidationError" in names or isinstance(
        exc, json.JSONDecodeError | UnicodeDecodeError
    ):
        return FaultDecision(FaultAction.RETRY, "malformed", None, "malformed response")
    if "APIConnectionError" in names or isinstance(exc, ConnectionError):
        return FaultDecision(FaultAction.RETRY, "connection", None, "connection error")
    return FaultDecision(
        FaultAction.GIVE_UP, "unexpected", None, f"{type(exc).__name__}: {_one_line(exc)}"
    )


# The openai client's status errors, most specific first: (class name, action, kind).
_OPENAI_STATUS_TYPES: tuple[tuple[str, FaultAction, str], ...] = (
    ("RateLimitError", FaultAction.RATE_LIMIT, "rate_limit"),
    ("AuthenticationError", FaultAction.FATAL, "authentication"),
    ("PermissionDeniedError", FaultAction.FATAL, "permission"),
    ("NotFoundError", FaultAction.FATAL, "not_found"),
    ("BadRequestError", FaultAction.GIVE_UP, "bad_request"),
    ("UnprocessableEntityError", FaultAction.GIVE_UP, "bad_request"),
    ("ConflictError", FaultAction.RETRY, "conflict"),
)


def classify_openai_error(exc: BaseException) -> FaultDecision | None:
    """Classify an exception of the ``openai`` client by its type (None for other errors).

    ``InternalServerError`` and any other ``APIStatusError`` go by their status
    code (500 and 503 differ); a client timeout that was really a dropped
    connection counts as a connection error.
    """
    openai = sys.modules.get("openai")
    if openai is None or not isinstance(exc, openai.OpenAIError):
        return None
    if isinstance(exc, openai.APITimeoutError):
        if _dropped_connection(exc):
            return FaultDecision(FaultAction.RETRY, "connection", None, "connection error")
        return FaultDecision(FaultAction.RETRY, "timeout", None, "timed out")
    if isinstance(exc, openai.APIConnectionError):
        return FaultDecision(FaultAction.RETRY, "connection", None, "connection error")
    if isinstance(exc, openai.APIResponseValidationError):
        return FaultDecision(FaultAction.RETRY, "malformed", None, "malformed response")
    if not isinstance(exc, openai.APIStatusError):
        return None
    headers = getattr(exc.response, "headers", None)
    for name, action, kind in _OPENAI_STATUS_TYPES:
        cls = getattr(openai, name, None)
        if cls is not None and isinstance(exc, cls):
            retry_after = parse_retry_after(headers)
            if action is FaultAction.RETRY and retry_after is not None:
                action = FaultAction.RATE_LIMIT
            message = _FATAL_HINTS.get(kind, f"HTTP {exc.status_code}")
            return FaultDecision(action, kind, retry_after, message)
    return classify_status(exc.status_code, headers)


_DROPPED_CONNECTION = frozenset(
    {
        "ServerDisconnectedError",
        "ClientOSError",
        "ClientConnectionResetError",
        "RemoteProtocolError",
    }
)


def _dropped_connection(exc: BaseException) -> bool:
    """Whether a timeout reported by the client was really a dropped or refused connection.

    The openai client's aiohttp transport reports a server that hung up, or one
    that refuses connections, as a connect timeout; the cause chain still holds
    the transport's own error.
    """
    if is_connect_failure(exc):
        return True
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if type(cause).__name__ in _DROPPED_CONNECTION:
            return True
        cause = cause.__cause__ or cause.__context__
    return False


#: The HTTP clients' errors for a body that ended before its ``Content-Length``.
_CUT_SHORT = frozenset({"ContentLengthError", "ClientPayloadError"})
_CUT_SHORT_TEXT = "without sending complete message body"
_RECEIVED = re.compile(r"received (\d+) (?:of|bytes, expected) (\d+)")


def _cut_short(exc: BaseException) -> str | None:
    """What to say of an answer whose body the server cut short of its ``Content-Length``
    and closed the connection (None when the chain shows no such answer)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    found = False
    told = ""
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        text = str(current)
        found = found or type(current).__name__ in _CUT_SHORT or _CUT_SHORT_TEXT in text
        match = _RECEIVED.search(text)
        if match and not told:
            told = f" (received {match[1]} of {match[2]} bytes)"
        current = current.__cause__ or current.__context__
    if not found:
        return None
    return f"the server closed the connection before its answer was whole{told}"


_TAGS = re.compile(r"<[^>]*>")


def excerpt(text: str, limit: int = 80) -> str:
    """A short excerpt of a server's or a model's text for an error line: markup tags
    dropped (an HTML page says its title), whitespace made single spaces, cut to
    ``limit`` characters."""
    words = " ".join(_TAGS.sub(" ", text).split())
    return words if len(words) <= limit else words[: limit - 3].rstrip() + "..."


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:300]
