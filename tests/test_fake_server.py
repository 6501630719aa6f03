"""The fault-injecting fake OpenAI-compatible server, driven through ResilientModel."""

from __future__ import annotations

import asyncio
import collections
import logging
import socket
from collections.abc import Sequence

import openai
import pytest

from gasp.backends import (
    ChatMessage,
    DecodingConfig,
    GenerationRequest,
    GenerationResponse,
    ResilientModel,
    RetryPolicy,
    StopReason,
    resolve_backend,
)
from gasp.errors import BackendError
from gasp.testing import FAULT_KINDS, HOSTILE_KINDS, FakeOpenAIServer

QUICK = RetryPolicy(max_attempts=6, base_delay_s=0.001, max_delay_s=0.05, timeout_s=0.3)
SECRET = "sk-test-DO-NOT-LEAK-4f9a1c"


def _requests(n: int, max_tokens: int = 64) -> list[GenerationRequest]:
    return [
        GenerationRequest(
            key=f"k{i}",
            messages=(ChatMessage("user", f"Describe a nurse number {i}."),),
            decoding=DecodingConfig(max_tokens=max_tokens),
            seed=i,
        )
        for i in range(n)
    ]


def _run(
    base_url: str,
    requests: Sequence[GenerationRequest],
    *,
    retry: RetryPolicy = QUICK,
    max_concurrency: int = 8,
    model: str = "fake-model",
    api_key_env: str | None = None,
) -> list[GenerationResponse]:
    async def run() -> list[GenerationResponse]:
        backend = resolve_backend(
            f"openai-compatible/{model}", base_url=base_url, api_key_env=api_key_env
        )
        async with ResilientModel(backend, max_concurrency=max_concurrency, retry=retry) as m:
            return [r async for r in m.generate_many(requests)]

    return asyncio.run(run())


@pytest.mark.parametrize("kind", [k for k in FAULT_KINDS if k not in HOSTILE_KINDS])
def test_each_fault_kind_is_recognised(kind: str) -> None:
    with FakeOpenAIServer(fault_rate=1.0, faults=[kind], hang_s=2.0) as server:
        once = RetryPolicy(max_attempts=1, timeout_s=0.3)
        (response,) = _run(server.base_url, _requests(1), retry=once)
    assert response.stop_reason is StopReason.ERROR
    assert response.fault_kinds == (kind,)
    assert server.faults == {kind: 1}


def test_content_filter_is_a_stop_reason_not_a_fault() -> None:
    with FakeOpenAIServer(fault_rate=1.0, faults=["content_filter"]) as server:
        (response,) = _run(server.base_url, _requests(1))
    assert response.stop_reason is StopReason.CONTENT_FILTER
    assert (response.text, response.attempts) == ("", 1)


def test_faulty_server_every_request_answered_once_and_faults_match() -> None:
    n = 60
    with FakeOpenAIServer(fault_rate=0.3, seed=7, hang_s=2.0, latency_s=0.005) as server:
        responses = _run(server.base_url, _requests(n))
        counters = server.counters()
    assert len(responses) == n
    ok = [r for r in responses if r.stop_reason is not StopReason.ERROR]
    errors = [r for r in responses if r.stop_reason is StopReason.ERROR]
    assert all(r.text for r in ok)
    assert all(r.error and r.attempts == QUICK.max_attempts for r in errors)
    # each request answered exactly once: every prompt's subject number appears once
    assert len({r.text for r in ok}) == len(ok)
    client_faults = collections.Counter(k for r in responses for k in r.fault_kinds)
    assert client_faults == collections.Counter(counters["faults"])
    assert sum(client_faults.values()) > 0.15 * counters["requests"]
    assert counters["requests"] == sum(r.attempts for r in responses)
    assert counters["successes"] == len(ok)
    assert len(client_faults) >= 5  # the mix covers most kinds


def test_server_concurrency_stays_within_the_bound() -> None:
    faults = ["rate_limit", "server_error", "connection", "malformed", "empty"]
    with FakeOpenAIServer(fault_rate=0.3, faults=faults, latency_s=0.02) as server:
        responses = _run(server.base_url, _requests(40), max_concurrency=4)
    assert len(responses) == 40
    assert 1 < server.max_in_flight <= 4


def test_generation_is_deterministic_and_truncated_at_max_tokens() -> None:
    with FakeOpenAIServer(seed=3) as server:
        first = _run(server.base_url, _requests(5, max_tokens=6))
        second = _run(server.base_url, _requests(5, max_tokens=6))
    assert sorted(r.text for r in first) == sorted(r.text for r in second)
    assert all(r.stop_reason is StopReason.LENGTH for r in first)
    assert all(r.completion_tokens == 6 and len(r.text.split()) == 6 for r in first)
    assert all(r.prompt_tokens == 5 and r.latency_s is not None for r in first)


def test_models_endpoint() -> None:
    async def names(base_url: str) -> list[str]:
        async with openai.AsyncOpenAI(api_key="x", base_url=base_url, max_retries=0) as client:
            return [m.id async for m in client.models.list()]

    with FakeOpenAIServer(models=["a", "b"]) as server:
        assert asyncio.run(names(server.base_url)) == ["a", "b"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unreachable_base_url_is_a_one_line_backend_error() -> None:
    url = f"http://127.0.0.1:{_free_port()}/v1"
    with pytest.raises(BackendError) as exc:
        _run(url, _requests(3))
    assert "cannot reach" in str(exc.value) and "\n" not in str(exc.value)


def test_unknown_model_is_a_backend_error() -> None:
    with FakeOpenAIServer(models=["served"]) as server:
        with pytest.raises(BackendError, match="not found") as exc:
            _run(server.base_url, _requests(3), model="missing")
        assert server.requests == 0  # rejected before any fault draw
    assert "\n" not in str(exc.value)


def test_the_api_key_never_leaks(
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("GASP_TEST_KEY", SECRET)
    with (
        FakeOpenAIServer(api_key="a-different-key") as server,
        pytest.raises(BackendError, match="authentication") as exc,
    ):
        _run(server.base_url, _requests(2), api_key_env="GASP_TEST_KEY")
    chain: list[BaseException] = []
    current: BaseException | None = exc.value
    while current is not None and len(chain) < 10:
        chain.append(current)
        current = current.__cause__ or current.__context__
    assert SECRET not in " ".join(f"{e!s} {e!r} {e.args!r}" for e in chain)
    with FakeOpenAIServer(api_key=SECRET, fault_rate=0.5, seed=2) as server:
        responses = _run(server.base_url, _requests(6), api_key_env="GASP_TEST_KEY")
    assert all(r.stop_reason is not StopReason.ERROR for r in responses)
    assert any(r.fault_kinds for r in responses)
    captured = capsys.readouterr()
    assert caplog.records  # debug logging was on
    for text in (caplog.text, captured.out, captured.err, repr(responses)):
        assert SECRET not in text
