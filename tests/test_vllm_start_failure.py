"""A ``vllm/`` engine that fails to start stops the run with one line (no vLLM needed)."""

from __future__ import annotations

import asyncio
import sys
import types

import pytest

from gasp.backends import ChatMessage, GenerationRequest, ResilientModel
from gasp.backends._vllm import VLLMBackend
from gasp.errors import BackendError


def test_an_engine_that_fails_to_start_is_one_fatal_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def llm(**kwargs: object) -> None:
        raise RuntimeError("Engine core initialization failed.\nSee root cause above.")

    monkeypatch.setitem(sys.modules, "vllm", types.SimpleNamespace(LLM=llm))
    backend = VLLMBackend.from_spec("some/folder")
    request = GenerationRequest("k", (ChatMessage("user", "hi"),))

    async def run() -> None:
        await ResilientModel(backend).generate(request)

    with pytest.raises(BackendError) as caught:
        asyncio.run(run())
    message = str(caught.value)
    assert message.startswith("cannot start vLLM for 'some/folder': Engine core")
    assert "\n" not in message
