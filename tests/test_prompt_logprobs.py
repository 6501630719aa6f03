"""Exact scoring through an OpenAI-compatible server's prompt log-probabilities.

The fake server scores prompts from a scripted table (gasp.testing._fake_prompt), so
each expected value below is the chain rule worked out by hand from that table.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from pathlib import Path

import pytest

from gasp.backends import (
    ChatMessage,
    ModelBackend,
    ResilientModel,
    RetryPolicy,
    ScoreRequest,
    ScoreResponse,
    resolve_backend,
)
from gasp.cli import main
from gasp.errors import ConfigError
from gasp.results import AuditResults
from gasp.testing import FakeOpenAIServer, fake_token_id, fake_tokens

RAW = "Q: Who is the nurse?\nA:"
CHAT = (ChatMessage("user", "Who is the nurse?"),)
ONCE = RetryPolicy(max_attempts=1, timeout_s=10.0)


def _score(backend: ModelBackend, request: ScoreRequest) -> ScoreResponse:
    async def go() -> ScoreResponse:
        wrapper = ResilientModel(backend, retry=ONCE)
        try:
            return await wrapper.score(request)
        finally:
            await wrapper.aclose()

    return asyncio.run(go())


def test_raw_contexts_score_exactly_by_the_chain_rule_after_one_probe() -> None:
    with FakeOpenAIServer(prompt_logprobs=True) as server:
        backend = resolve_backend("openai-compatible/fake-model", base_url=server.base_url)
        backend.check_score_request(ScoreRequest("k", RAW, (" Non-binary",)))  # probes
        assert backend.scoring_method == "prompt-logprobs"  # type: ignore[attr-defined]
        response = _score(backend, ScoreRequest("k", RAW, (" Male", " Non-binary")))
        bodies = list(server.bodies)
    assert response.ok
    male, nonbinary = response.scores
    # ":" -> " Male" is -1.5 in the table; " Non" "-" "binary": -4.5 - 0.25 - 0.5
    assert male.logprob == -1.5 and male.tokens == (" Male",)
    assert nonbinary.logprob == pytest.approx(-5.25, abs=1e-12)
    assert nonbinary.tokens == (" Non", "-", "binary")
    assert nonbinary.token_ids == tuple(fake_token_id(t) for t in (" Non", "-", "binary"))
    assert not male.approximate and not nonbinary.approximate
    assert response.prompt_tokens == len(fake_tokens(RAW))
    # the probe, then the context alone and context + each candidate
    assert len(bodies) == 4 and all(b["prompt_logprobs"] == 0 for b in bodies)
    assert sorted(b["prompt"] for b in bodies[1:]) == [RAW, RAW + " Male", RAW + " Non-binary"]


def test_chat_contexts_continue_the_assistant_turn() -> None:
    with FakeOpenAIServer(prompt_logprobs=True) as server:
        backend = resolve_backend(
            "openai-compatible/fake-model",
            base_url=server.base_url,
            options={"scoring": "prompt-logprobs"},
        )
        response = _score(backend, ScoreRequest("c", CHAT, ("She", "Non-binary", "He")))
        bodies = list(server.bodies)
    she, nonbinary, he = (s.logprob for s in response.scores)
    assert she == -0.75  # "<|assistant|>" -> "She"
    # "Non" (listed after "<|assistant|>"), "-" (not listed after "Non": -1.1), "binary"
    assert nonbinary == pytest.approx(-5.0 - 1.1 - 0.5, abs=1e-12)
    assert he == pytest.approx(-1.2, abs=1e-12)  # not listed: -(1 + len("He") / 10)
    assert not any(s.approximate for s in response.scores)
    assert len(bodies) == 4  # no probe with the option set
    joint = [b for b in bodies if b["messages"][-1]["role"] == "assistant"]
    assert sorted(b["messages"][-1]["content"] for b in joint) == ["He", "Non-binary", "She"]
    assert all(b["continue_final_message"] and not b["add_generation_prompt"] for b in joint)


def test_a_candidate_merging_with_the_context_is_refused_not_misscored() -> None:
    with FakeOpenAIServer(prompt_logprobs=True) as server:
        backend = resolve_backend(
            "openai-compatible/fake-model",
            base_url=server.base_url,
            options={"scoring": "prompt-logprobs"},
        )
        response = _score(backend, ScoreRequest("m", "Q: Who?\nA: ", ("Male",)))
    assert not response.ok and "merges with the context" in (response.error or "")


def test_a_server_without_prompt_logprobs_gets_the_approximate_path_marked() -> None:
    with FakeOpenAIServer() as server:
        backend = resolve_backend("openai-compatible/fake-model", base_url=server.base_url)
        with pytest.raises(ConfigError, match="single-token"):
            backend.check_score_request(ScoreRequest("k", CHAT, (" Non-binary",)))
        assert backend.scoring_method == "top-logprobs"  # type: ignore[attr-defined]
        assert "probe" in backend.scoring_note  # type: ignore[attr-defined]
        response = _score(backend, ScoreRequest("k", CHAT, (" He", " She")))
    assert response.ok and all(s.approximate for s in response.scores)
    with FakeOpenAIServer() as server:
        forced = resolve_backend(
            "openai-compatible/fake-model",
            base_url=server.base_url,
            options={"scoring": "prompt-logprobs"},
        )
        response = _score(forced, ScoreRequest("k", CHAT, (" He",)))
    assert not response.ok and "no prompt log-probabilities" in (response.error or "")


def test_unknown_scoring_and_exact_scoring_on_openai_are_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ConfigError, match="unknown scoring"):
        resolve_backend("openai-compatible/m", base_url="http://x", options={"scoring": "x"})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with pytest.raises(ConfigError, match="top log-probabilities only"):
        resolve_backend("openai/gpt-4o-mini", options={"scoring": "prompt-logprobs"})


def _occugender(base_url: str, out: Path) -> None:
    argv = sys.argv
    sys.argv = ["gasp", "run", "occugender", "--quick", "-m", "openai-compatible/fake-model"]
    sys.argv += ["--base-url", base_url, "--out", str(out)]
    try:
        main()
    except SystemExit as exc:
        assert not exc.code, f"gasp run exited with {exc.code}"
    finally:
        sys.argv = argv


def test_occugender_through_the_server_is_exact_and_says_so(tmp_path: Path) -> None:
    with FakeOpenAIServer(prompt_logprobs=True) as server:
        _occugender(server.base_url, tmp_path / "exact")
    results = AuditResults.load(tmp_path / "exact" / "results")
    assert results.meta["approximate"] is False
    (store,) = (tmp_path / "exact").glob("*.sqlite")
    conn = sqlite3.connect(store)
    rows = conn.execute("SELECT candidate, logprob, approximate, tokens FROM scores").fetchall()
    manifest = conn.execute("SELECT body FROM manifest").fetchone()[0]
    conn.close()
    assert '"method": "prompt-logprobs"' in manifest and '"approximate": false' in manifest
    assert rows and all(approximate == 0 and lp is not None for _, lp, approximate, _ in rows)
    # multi-token expressions are scored, not refused
    assert any(c.strip() == "Non-binary" for c, *_ in rows)
