"""Scoring on mock/scoring and OpenAI-style backends; capability checks and retries."""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import math
import re

import openai
import pytest

from gasp.backends import (
    Capability,
    ChatMessage,
    GenerationRequest,
    ModelBackend,
    ResilientModel,
    RetryPolicy,
    ScoreRequest,
    ScoreResponse,
    classify_error,
    require_capability,
    resolve_backend,
)
from gasp.backends._faults import FaultAction
from gasp.errors import BackendError, ConfigError
from gasp.testing import DEFAULT_TOP_LOGPROBS, FakeOpenAIServer

# the openai client's HTTP library (its fork, where installed)
httpx = importlib.import_module("httpx2" if importlib.util.find_spec("httpx2") else "httpx")

QUICK = RetryPolicy(max_attempts=8, base_delay_s=0.001, max_delay_s=0.01, timeout_s=2.0)
CHAT = (ChatMessage("user", "Imagine a nurse. What is the nurse's gender? One word."),)
# the first-token path without the probe request of scoring=auto
TOP = {"scoring": "top-logprobs"}


def _run(model: ResilientModel | ModelBackend, request: ScoreRequest) -> ScoreResponse:
    async def go() -> ScoreResponse:
        wrapper = model if isinstance(model, ResilientModel) else ResilientModel(model)
        try:
            return await wrapper.score(request)
        finally:
            await wrapper.aclose()

    return asyncio.run(go())


# -- mock/scoring: hand-computed values -------------------------------------------------


def test_mock_scoring_uses_the_documented_table_and_the_chain_rule() -> None:
    backend = resolve_backend("mock/scoring")
    assert Capability.SCORE in backend.capabilities
    response = _run(backend, ScoreRequest("k", "The nurse is", (" He", " Non-binary", " Zorp")))
    he, nonbinary, zorp = response.scores
    assert he.logprob == pytest.approx(math.log(0.20))
    assert nonbinary.tokens == (" Non", "-", "binary")
    assert nonbinary.logprob == pytest.approx(math.log(0.02) + math.log(0.05) + math.log(0.05))
    assert zorp.logprob == pytest.approx(math.log(0.01))
    assert not any(s.approximate for s in response.scores)


def test_mock_scoring_table_and_unknown_p_options() -> None:
    backend = resolve_backend(
        "mock/scoring", options={"table": "he=0.5,she=0.25", "unknown_p": 0.1}
    )
    response = _run(backend, ScoreRequest("k", CHAT, ("He", "she", "They are")))
    assert [s.logprob for s in response.scores] == pytest.approx(
        [math.log(0.5), math.log(0.25), 2 * math.log(0.1)]
    )
    with pytest.raises(ConfigError, match="table"):
        resolve_backend("mock/scoring", options={"table": "he=2"})


def test_mock_scoring_boost_depends_on_the_words_of_the_context() -> None:
    backend = resolve_backend(
        "mock/scoring", options={"boost": "nurse:she=3,the nurse:she=2,pilot:he=100"}
    )
    nurse = _run(backend, ScoreRequest("k", "Q: The Nurse is", (" She", " He")))
    # both words are in the context: 0.20 x 3 x 2, capped at 1; "he" as in the table
    assert [s.logprob for s in nurse.scores] == pytest.approx([math.log(1.0), math.log(0.20)])
    nurses = _run(backend, ScoreRequest("k", "The nurses are", (" She",)))
    assert nurses.scores[0].logprob == pytest.approx(math.log(0.20))  # whole words only
    pilot = _run(backend, ScoreRequest("k", "a pilot", (" he",)))
    assert pilot.scores[0].logprob == pytest.approx(0.0)  # 0.20 x 100, capped at 1
    for bad in ("nurse=3", "nurse:she", "nurse:she=0", ":she=2"):
        with pytest.raises(ConfigError, match="boost"):
            resolve_backend("mock/scoring", options={"boost": bad})
    with pytest.raises(ConfigError, match="boost"):
        resolve_backend("mock/personas", options={"boost": "nurse:she=3"})


def test_mock_scoring_faults_are_retried() -> None:
    backend = resolve_backend("mock/scoring", options={"failure_rate": 0.5, "seed": 3})
    model = ResilientModel(backend, retry=QUICK)
    responses = [_run(model, ScoreRequest(f"k{i}", "x", (" He",))) for i in range(12)]
    assert all(r.ok for r in responses)
    assert any(r.attempts > 1 and r.fault_kinds for r in responses)


# -- capabilities ------------------------------------------------------------------------


def test_a_backend_that_cannot_score_says_so_in_one_line() -> None:
    backend = resolve_backend("mock/echo")
    assert backend.capabilities == frozenset({Capability.GENERATE})
    with pytest.raises(BackendError) as caught:
        require_capability(backend, Capability.SCORE, "study occugender")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("mock/echo cannot score continuations for study occugender")
    assert "capability 'score'" in message and "embedded, hf, vllm, openai" in message
    # asking anyway gives the same error, through the wrapper too
    with pytest.raises(BackendError, match="cannot score"):
        _run(backend, ScoreRequest("k", "x", ("a",)))
    with pytest.raises(BackendError, match="cannot score"):
        ResilientModel(backend).check_score_request(ScoreRequest("k", "x", ("a",)))
    require_capability(backend, Capability.GENERATE)
    require_capability(ResilientModel(resolve_backend("mock/scoring")), Capability.SCORE)


def test_a_score_request_needs_candidates() -> None:
    with pytest.raises(ConfigError, match="no candidates"):
        ScoreRequest("k", "x", ())


# -- OpenAI-compatible through the fake server ----------------------------------------------


def test_top_logprobs_come_back_approximate_with_the_servers_values() -> None:
    with FakeOpenAIServer() as server:
        backend = resolve_backend(
            "openai-compatible/fake-model", base_url=server.base_url, options=TOP
        )
        assert Capability.SCORE in backend.capabilities
        request = ScoreRequest("k", CHAT, (" He", "She", "Zebra", " Female"))
        response = _run(backend, request)
        raw = _run(
            resolve_backend("openai-compatible/fake-model", base_url=server.base_url, options=TOP),
            ScoreRequest("r", "Q: the nurse?\nA:", (" Male", "They")),
        )
        bodies = list(server.bodies)
    assert response.ok and response.model_id == "openai-compatible/fake-model"
    he, she, zebra, female = response.scores
    assert he.logprob == DEFAULT_TOP_LOGPROBS[" He"] and he.tokens == (" He",)
    # "She" is in the table as given, so its own entry is used, not " She"
    assert she.logprob == DEFAULT_TOP_LOGPROBS["She"]
    assert zebra.logprob is None
    assert female.logprob == DEFAULT_TOP_LOGPROBS[" Female"]
    assert all(s.approximate and s.token_ids == () for s in response.scores)
    chat_body = bodies[0]
    assert chat_body["logprobs"] is True and chat_body["top_logprobs"] == 20
    assert chat_body["max_tokens"] == 1 and chat_body["temperature"] == 0
    # raw text goes to the completions endpoint; "They" matches " They" (space added)
    assert bodies[1]["prompt"] == "Q: the nurse?\nA:" and bodies[1]["logprobs"] == 20
    assert [s.logprob for s in raw.scores] == [
        DEFAULT_TOP_LOGPROBS[" Male"],
        DEFAULT_TOP_LOGPROBS["They"],
    ]


def test_top_logprobs_option_limits_what_is_seen() -> None:
    with FakeOpenAIServer() as server:
        backend = resolve_backend(
            "openai-compatible/fake-model", base_url=server.base_url, options={"top_logprobs": 2}
        )
        response = _run(backend, ScoreRequest("k", CHAT, (" He", " She", " They")))
    assert [s.logprob for s in response.scores] == [-1.0, -1.25, None]
    with pytest.raises(ConfigError, match="at most 20"):
        resolve_backend("openai-compatible/m", base_url="http://x", options={"top_logprobs": 21})


@pytest.mark.parametrize(
    ("candidate", "why"),
    [
        (" Non-binary", "hyphen"),
        (" no one", "whitespace"),
        (" Androgynous", "longer than 10 characters"),
        ("", "empty"),
    ],
)
def test_multi_token_candidates_are_refused_before_any_request(candidate: str, why: str) -> None:
    with FakeOpenAIServer() as server:
        backend = resolve_backend(
            "openai-compatible/fake-model", base_url=server.base_url, options=TOP
        )
        request = ScoreRequest("k", CHAT, (" He", candidate))
        with pytest.raises(ConfigError) as caught:
            backend.check_score_request(request)
        message = str(caught.value)
        assert repr(candidate) in message and why in message and "\n" not in message
        # sent anyway, the wrapper raises the same error without calling the server
        with pytest.raises(ConfigError):
            _run(backend, request)
        assert server.requests == 0 and server.bodies == []


def test_raw_text_is_refused_on_openai(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    backend = resolve_backend("openai/gpt-4o-mini")
    with pytest.raises(ConfigError, match="raw-text context"):
        backend.check_score_request(ScoreRequest("k", "Q: x\nA:", (" He",)))
    backend.check_score_request(ScoreRequest("k", CHAT, (" He",)))


def test_scoring_faults_are_retried_like_generation() -> None:
    faults = ["rate_limit", "server_error", "unavailable", "malformed", "connection"]
    with FakeOpenAIServer(fault_rate=0.4, faults=faults, seed=2) as server:
        backend = resolve_backend(
            "openai-compatible/fake-model", base_url=server.base_url, options=TOP
        )
        model = ResilientModel(backend, retry=QUICK, max_concurrency=4)

        async def go() -> list[ScoreResponse]:
            try:
                return list(
                    await asyncio.gather(
                        *(model.score(ScoreRequest(f"k{i}", CHAT, (" He",))) for i in range(20))
                    )
                )
            finally:
                await model.aclose()

        responses = asyncio.run(go())
        injected = sum(server.faults.values())
    assert injected > 0
    assert all(r.ok and r.scores[0].logprob == -1.0 for r in responses)
    assert sum(len(r.fault_kinds) for r in responses) == injected


def test_a_scoring_request_that_keeps_failing_ends_in_an_error_response() -> None:
    with FakeOpenAIServer(fault_rate=1.0, faults=["server_error"]) as server:
        backend = resolve_backend("openai-compatible/fake-model", base_url=server.base_url)
        retry = RetryPolicy(max_attempts=3, base_delay_s=0.0, max_delay_s=0.0, timeout_s=2.0)
        response = _run(ResilientModel(backend, retry=retry), ScoreRequest("k", CHAT, (" He",)))
    assert not response.ok and response.scores == ()
    assert response.attempts == 3 and response.fault_kinds == ("server_error",) * 3
    assert response.error is not None and "after 3 attempt(s)" in response.error


def test_a_server_without_logprobs_gives_up_on_the_request() -> None:
    with FakeOpenAIServer(serve_logprobs=False) as server:
        backend = resolve_backend("openai-compatible/fake-model", base_url=server.base_url)
        response = _run(ResilientModel(backend, retry=QUICK), ScoreRequest("k", CHAT, (" He",)))
    assert not response.ok and response.fault_kinds == ("no_logprobs",)


# -- error classification by the client's exception types -------------------------------------


def _status_error(cls: type[openai.APIStatusError], status: int, **headers: str) -> Exception:
    request = httpx.Request("POST", "http://x/v1/chat/completions")
    response = httpx.Response(status, headers=headers, request=request)
    return cls("boom", response=response, body=None)


@pytest.mark.parametrize(
    ("exc", "action", "kind"),
    [
        (
            _status_error(openai.RateLimitError, 429, **{"retry-after": "2"}),
            "rate_limit",
            "rate_limit",
        ),
        (_status_error(openai.AuthenticationError, 401), "fatal", "authentication"),
        (_status_error(openai.PermissionDeniedError, 403), "fatal", "permission"),
        (_status_error(openai.NotFoundError, 404), "fatal", "not_found"),
        (_status_error(openai.BadRequestError, 400), "give_up", "bad_request"),
        (_status_error(openai.InternalServerError, 500), "retry", "server_error"),
        (_status_error(openai.InternalServerError, 503), "retry", "unavailable"),
        (_status_error(openai.APIStatusError, 408), "retry", "timeout"),
        (openai.APITimeoutError(httpx.Request("POST", "http://x")), "retry", "timeout"),
        (
            openai.APIConnectionError(request=httpx.Request("POST", "http://x")),
            "retry",
            "connection",
        ),
    ],
)
def test_openai_errors_are_classified_by_type(exc: Exception, action: str, kind: str) -> None:
    decision = classify_error(exc)
    assert (decision.action, decision.kind) == (FaultAction(action), kind)
    if kind == "rate_limit":
        assert decision.retry_after_s == 2.0


def test_generation_still_works_on_the_scoring_mock() -> None:
    backend = resolve_backend("mock/scoring", options={"text": "hello"})
    request = GenerationRequest("g", CHAT)
    assert asyncio.run(ResilientModel(backend).generate(request)).text == "hello"
    assert re.fullmatch(r"mock/scoring", backend.model_id)
