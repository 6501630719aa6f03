"""Choosing backends by provider string; the mock scripts."""

from __future__ import annotations

import asyncio
import importlib.util
import re

import pytest

from gasp.backends import (
    PROVIDERS,
    ChatMessage,
    GenerationRequest,
    MockBackend,
    PersonaMix,
    ResilientModel,
    RetryPolicy,
    StopReason,
    persona_text,
    resolve_backend,
)
from gasp.backends._personas import group_named_in
from gasp.errors import BackendError, ConfigError


def _request(key: str, prompt: str, seed: int | None = None) -> GenerationRequest:
    return GenerationRequest(key=key, messages=(ChatMessage("user", prompt),), seed=seed)


def _one_line(exc: pytest.ExceptionInfo[BaseException]) -> str:
    message = str(exc.value)
    assert "\n" not in message
    return message


def test_unknown_provider_lists_the_valid_ones() -> None:
    with pytest.raises(BackendError) as exc:
        resolve_backend("anthropic/claude")
    message = _one_line(exc)
    for provider in PROVIDERS:
        assert f"{provider}" in message


def test_missing_model_name() -> None:
    with pytest.raises(BackendError, match="model name missing"):
        resolve_backend("openai/")


def test_openai_needs_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(BackendError) as exc:
        resolve_backend("openai/gpt-4o-mini")
    assert "OPENAI_API_KEY" in _one_line(exc)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    backend = resolve_backend("openai/gpt-4o-mini")
    assert backend.model_id == "openai/gpt-4o-mini"
    assert not backend.supports_batching
    asyncio.run(backend.aclose())


def test_openai_compatible_needs_a_base_url_and_the_named_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(BackendError, match="base URL") as exc:
        resolve_backend("openai-compatible/llama")
    _one_line(exc)
    monkeypatch.delenv("MY_KEY", raising=False)
    with pytest.raises(BackendError, match="MY_KEY"):
        resolve_backend("openai-compatible/llama", base_url="http://x/v1", api_key_env="MY_KEY")
    backend = resolve_backend("openai-compatible/llama", base_url="http://localhost:8000/v1")
    assert backend.model_id == "openai-compatible/llama"
    asyncio.run(backend.aclose())


def test_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def without_openai(name: str, package: str | None = None) -> object:
        return None if name == "openai" else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", without_openai)
    with pytest.raises(BackendError, match=re.escape("pip install 'gasp[api]'")):
        resolve_backend("openai-compatible/x", base_url="http://x/v1")


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vllm is installed")
def test_vllm_absent_names_the_install_command() -> None:
    with pytest.raises(BackendError, match=re.escape("pip install 'gasp[vllm]'")):
        resolve_backend("vllm/meta-llama/Llama-3.1-8B-Instruct")


def test_unknown_options_are_rejected() -> None:
    with pytest.raises(ConfigError, match="colour"):
        resolve_backend("mock/echo", options={"colour": "red"})
    with pytest.raises(ConfigError, match="female_share"):
        resolve_backend("mock/personas", options={"female_share": 1.5})
    with pytest.raises(BackendError, match="mock/echo"):
        resolve_backend("mock/nonsense")


def test_mock_echo_returns_the_prompt() -> None:
    backend = resolve_backend("mock/echo")
    response = asyncio.run(backend.generate(_request("a", "Describe a nurse.")))
    assert (response.text, response.stop_reason) == ("Describe a nurse.", StopReason.STOP)
    assert response.model_id == "mock/echo"


def test_mock_personas_is_deterministic_per_request() -> None:
    one = resolve_backend("mock/personas", options={"seed": 4})
    two = resolve_backend("mock/personas", options={"seed": 4})
    other = resolve_backend("mock/personas", options={"seed": 5})
    requests = [_request(f"k{i}", "Describe a teacher.", seed=i) for i in range(20)]

    async def texts(backend: object) -> list[str]:
        assert isinstance(backend, MockBackend)
        return [(await backend.generate(r)).text for r in requests]

    first, second = asyncio.run(texts(one)), asyncio.run(texts(two))
    assert first == second
    assert first != asyncio.run(texts(other))
    assert len(set(first)) > 10
    assert all("teacher" in t for t in first)


def test_mock_personas_pronouns_follow_the_mix() -> None:
    backend = resolve_backend("mock/personas", options={"female_share": 0.8, "sentences": 2})
    requests = [_request(f"k{i}", "Describe a pilot.") for i in range(400)]

    async def run() -> list[str]:
        model = ResilientModel(backend)
        return [r.text async for r in model.generate_many(requests)]

    texts = asyncio.run(run())
    female = sum(bool(re.search(r"\b(she|her)\b", t, re.I)) for t in texts)
    male = sum(bool(re.search(r"\b(he|him|his)\b", t, re.I)) for t in texts)
    assert female + male == 400
    assert 0.74 < female / 400 < 0.86  # binomial sd 0.02 around 0.8


def test_named_groups_set_the_pronouns() -> None:
    assert group_named_in("Describe a woman who is a nurse.") == "F"
    assert group_named_in("Describe a man.") == "M"
    assert group_named_in("Describe a non-binary person.") == "N"
    assert group_named_in("Describe a nurse.") is None
    import numpy as np

    text = persona_text("Describe a nonbinary engineer.", np.random.default_rng(0), PersonaMix())
    assert re.search(r"\b(they|them|their)\b", text, re.I)
    assert not re.search(r"\b(she|he|her|him|his)\b", text, re.I)


def test_bias_zero_makes_describing_words_gender_blind() -> None:
    import numpy as np

    def words(prompt: str, bias: float) -> set[str]:
        rng = np.random.default_rng(1)
        mix = PersonaMix(bias=bias, sentences=6)
        return {w for _ in range(200) for w in persona_text(prompt, rng, mix).lower().split()}

    stereotyped = {"caring", "nurturing", "ambitious", "assertive"}
    assert not words("Describe a woman.", 0.0) & stereotyped
    assert not words("Describe a man.", 0.0) & stereotyped
    assert {"caring", "nurturing"} <= words("Describe a woman.", 1.0)
    assert {"ambitious", "assertive"} <= words("Describe a man.", 1.0)


def test_mock_failure_rate_is_reproducible() -> None:
    def attempts(seed: int) -> list[int]:
        backend = resolve_backend("mock/echo", options={"failure_rate": 0.5, "seed": seed})
        model = ResilientModel(backend, retry=RetryPolicy(max_attempts=10, base_delay_s=0.0))
        requests = [_request(f"k{i}", "x") for i in range(30)]

        async def run() -> list[int]:
            return [r.attempts for r in await asyncio.gather(*map(model.generate, requests))]

        return asyncio.run(run())

    assert attempts(1) == attempts(1)
    assert attempts(1) != attempts(2)
    assert max(attempts(1)) > 1
