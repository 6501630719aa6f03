"""Servers whose every answer is broken in a way the HTTP exchange does not show: a body
cut short of its ``Content-Length``, a proxy's HTML page with status 200, a message whose
``content`` is null, tool calls instead of text. Each request fails with an error that
names what the server did, on one short line (the page's text cut to an excerpt); a run
whose every request failed exits 1 with that one line."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

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
from gasp.backends._batch_client import BatchClient
from gasp.backends._faults import excerpt
from gasp.backends._openai import OpenAIBackend
from gasp.testing import FAULT_KINDS, HOSTILE_KINDS, FakeOpenAIServer
from gasp.testing._fake_hostile import HTML_PAGE

TWICE = RetryPolicy(max_attempts=2, base_delay_s=0.001, max_delay_s=0.01, timeout_s=5.0)
#: Each kind: its recorded fault kind, what its error says, and the attempts it takes.
KINDS = {
    "truncated": ("truncated", "closed the connection before its answer was whole", 2),
    "html": ("malformed", "not JSON: '502 Bad Gateway 502 Bad Gateway nginx'", 2),
    "null_content": ("empty", "the answer's content is null", 2),
    "tool_calls": ("tool_calls", "answered with tool calls (get_weather), not text", 1),
}


def _generate(base_url: str) -> GenerationResponse:
    async def run() -> GenerationResponse:
        backend = resolve_backend("openai-compatible/fake", base_url=base_url)
        request = GenerationRequest(
            key="k0",
            messages=(ChatMessage("user", "Describe a nurse."),),
            decoding=DecodingConfig(max_tokens=32),
            seed=0,
        )
        async with ResilientModel(backend, max_concurrency=1, retry=TWICE) as model:
            return await model.generate(request)

    return asyncio.run(run())


def test_the_broken_answers_are_drawn_only_when_named() -> None:
    assert set(KINDS) <= set(FAULT_KINDS) & HOSTILE_KINDS
    with FakeOpenAIServer(fault_rate=1.0) as server:
        assert not set(KINDS) & set(server._kinds)


@pytest.mark.parametrize("fault", sorted(KINDS))
def test_a_broken_answer_fails_its_request_naming_what_the_server_did(fault: str) -> None:
    kind, said, attempts = KINDS[fault]
    with FakeOpenAIServer(fault_rate=1.0, faults=[fault], models=["fake"]) as server:
        response = _generate(server.base_url)
        asked = server.requests
    assert response.stop_reason is StopReason.ERROR
    assert response.fault_kinds[-1] == kind
    error = str(response.error)
    assert said in error and "\n" not in error and len(error) < 200, error
    assert response.attempts == attempts == asked  # tool calls are not asked for again


def test_an_excerpt_is_short_and_on_one_line() -> None:
    shown = excerpt(HTML_PAGE)
    assert shown == "502 Bad Gateway 502 Bad Gateway nginx"
    long = excerpt("word\n" * 1000)
    assert len(long) == 80 and long.endswith("...") and "\n" not in long


def test_a_batch_line_of_tool_calls_fails_that_line() -> None:
    backend = OpenAIBackend("fake", provider="openai-compatible", base_url="http://127.0.0.1:9/v1")
    request = GenerationRequest(key="k0", messages=(ChatMessage("user", "Hi."),))
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    body = {
        "id": "x", "object": "chat.completion", "created": 0, "model": "fake",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
    }  # fmt: skip
    line = {"custom_id": "k0", "response": {"status_code": 200, "body": body}}
    response = BatchClient(backend, api_key=None).response(request, line)
    assert response.stop_reason is StopReason.ERROR
    assert response.fault_kinds == ("tool_calls",)
    assert "tool calls (f)" in str(response.error)


@pytest.mark.parametrize("fault", sorted(KINDS))
def test_a_run_whose_every_answer_is_broken_fails_in_one_line(tmp_path: Path, fault: str) -> None:
    kind, said, _attempts = KINDS[fault]
    with FakeOpenAIServer(fault_rate=1.0, faults=[fault], models=["fake"]) as server:
        done = subprocess.run(
            [sys.executable, "-m", "gasp", "run", "pronoun-pairs", "--quick", "-m",
             "openai-compatible/fake", "--base-url", server.base_url, "--out",
             str(tmp_path / "run"), "--quiet"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert lines[0].startswith(f"gasp: error: every request failed (12: 12 {kind})")
    assert said in lines[0] and "Traceback" not in done.stderr
    assert len(lines[0]) < 300, lines[0]
