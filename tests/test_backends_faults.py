"""Error classification, Retry-After parsing and the retry policy."""

from __future__ import annotations

import email.utils
import importlib
import importlib.util
import json

import openai
import pytest

from gasp.backends import (
    FaultAction,
    RequestRejectedError,
    RetryPolicy,
    TransientBackendError,
    classify_error,
    classify_status,
    parse_retry_after,
)
from gasp.backends._faults import is_connect_failure
from gasp.errors import BackendError, ConfigError

# the HTTP library the installed openai client is built on
httpx = importlib.import_module("httpx2" if importlib.util.find_spec("httpx2") else "httpx")
_REQUEST = httpx.Request("POST", "http://127.0.0.1:1/v1/chat/completions")


def _status_error(status: int, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    response = httpx.Response(status, headers=headers or {}, request=_REQUEST)
    client = openai.OpenAI(api_key="x", base_url="http://127.0.0.1:1/v1")
    return client._make_status_error_from_response(response)


@pytest.mark.parametrize(
    ("status", "action", "kind"),
    [
        (400, FaultAction.GIVE_UP, "bad_request"),
        (401, FaultAction.FATAL, "authentication"),
        (403, FaultAction.FATAL, "permission"),
        (404, FaultAction.FATAL, "not_found"),
        (408, FaultAction.RETRY, "timeout"),
        (422, FaultAction.GIVE_UP, "bad_request"),
        (429, FaultAction.RATE_LIMIT, "rate_limit"),
        (500, FaultAction.RETRY, "server_error"),
        (502, FaultAction.RETRY, "server_error"),
        (503, FaultAction.RETRY, "unavailable"),
        (418, FaultAction.GIVE_UP, "http_418"),
    ],
)
def test_openai_status_errors_are_classified(status: int, action: FaultAction, kind: str) -> None:
    decision = classify_error(_status_error(status))
    assert (decision.action, decision.kind) == (action, kind)


def test_rate_limit_carries_retry_after() -> None:
    decision = classify_error(_status_error(429, {"Retry-After": "7"}))
    assert decision.action is FaultAction.RATE_LIMIT
    assert decision.retry_after_s == 7.0


def test_server_error_with_retry_after_waits_for_it() -> None:
    decision = classify_status(503, {"retry-after-ms": "250"})
    assert decision.action is FaultAction.RATE_LIMIT
    assert decision.kind == "unavailable"
    assert decision.retry_after_s == 0.25


def test_transport_errors_are_classified() -> None:
    timeout = classify_error(openai.APITimeoutError(request=_REQUEST))
    assert (timeout.action, timeout.kind) == (FaultAction.RETRY, "timeout")
    assert classify_error(TimeoutError()).kind == "timeout"
    dropped = classify_error(openai.APIConnectionError(request=_REQUEST))
    assert (dropped.action, dropped.kind) == (FaultAction.RETRY, "connection")
    malformed = classify_error(json.JSONDecodeError("Expecting value", "{", 1))
    assert (malformed.action, malformed.kind) == (FaultAction.RETRY, "malformed")


def test_backend_signals_are_classified() -> None:
    empty = classify_error(TransientBackendError("empty"))
    assert (empty.action, empty.kind) == (FaultAction.RETRY, "empty")
    waited = classify_error(TransientBackendError("rate_limit", retry_after_s=2.0))
    assert (waited.action, waited.retry_after_s) == (FaultAction.RATE_LIMIT, 2.0)
    rejected = classify_error(RequestRejectedError("bad_request"))
    assert rejected.action is FaultAction.GIVE_UP
    fatal = classify_error(BackendError("no key"))
    assert (fatal.action, fatal.message) == (FaultAction.FATAL, "no key")
    bug = classify_error(KeyError("x"))
    assert (bug.action, bug.kind) == (FaultAction.GIVE_UP, "unexpected")


def test_connect_failure_is_told_apart_from_a_dropped_connection() -> None:
    try:
        try:
            raise ConnectionRefusedError(111, "refused")
        except ConnectionRefusedError as inner:
            raise openai.APIConnectionError(request=_REQUEST) from inner
    except openai.APIConnectionError as exc:
        assert is_connect_failure(exc)
    assert not is_connect_failure(openai.APIConnectionError(request=_REQUEST))


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after": "0.5"}) == 0.5
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({}) is None
    assert parse_retry_after(None) is None
    now = 1_700_000_000.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after({"Retry-After": date}, now=now) == pytest.approx(30.0)
    past = email.utils.formatdate(now - 30, usegmt=True)
    assert parse_retry_after({"Retry-After": past}, now=now) == 0.0


def test_backoff_doubles_up_to_the_cap_and_jitter_shrinks_it() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=5.0, jitter=0.5)
    assert [policy.backoff_s(n) for n in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 5.0]
    assert policy.backoff_s(2, u=1.0) == 1.0  # half of 2 s at the largest draw
    assert policy.backoff_s(3, u=0.5) == 3.0


def test_wait_honours_retry_after_within_the_cap() -> None:
    policy = RetryPolicy(base_delay_s=0.1, max_delay_s=10.0, jitter=0.0)
    assert policy.wait_s(1, retry_after_s=3.0) == 3.0
    assert policy.wait_s(1, retry_after_s=0.01) == 0.1  # never shorter than the backoff
    assert policy.wait_s(1, retry_after_s=60.0) == 10.0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_attempts": 0},
        {"base_delay_s": -1.0},
        {"max_delay_s": float("nan")},
        {"jitter": 1.5},
        {"timeout_s": 0.0},
    ],
)
def test_retry_policy_rejects_bad_values(kwargs: dict[str, float]) -> None:
    with pytest.raises(ConfigError):
        RetryPolicy(**kwargs)  # type: ignore[arg-type]
