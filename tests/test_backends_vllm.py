"""vLLM's offline engine; runs only where vLLM, a GPU and a local model are present."""

from __future__ import annotations

import asyncio
import os

import pytest

from gasp.backends import (
    ChatMessage,
    DecodingConfig,
    GenerationRequest,
    ResilientModel,
    StopReason,
    resolve_backend,
)

vllm = pytest.importorskip("vllm")
torch = pytest.importorskip("torch")

MODEL = os.environ.get("GASP_VLLM_TEST_MODEL")


@pytest.mark.slow
@pytest.mark.skipif(not MODEL, reason="set GASP_VLLM_TEST_MODEL to a local model folder")
@pytest.mark.skipif(not torch.cuda.is_available(), reason="vLLM needs a GPU")
def test_vllm_generates_a_small_batch() -> None:
    backend = resolve_backend(f"vllm/{MODEL}", options={"gpu_memory_utilization": 0.5})
    decoding = DecodingConfig(temperature=0.8, max_tokens=16, seed=1)
    requests = [
        GenerationRequest(f"k{i}", (ChatMessage("user", "Describe a nurse."),), decoding, seed=i)
        for i in range(3)
    ]

    async def run() -> list:
        return [r async for r in ResilientModel(backend).generate_many(requests)]

    responses = asyncio.run(run())
    assert len(responses) == 3
    for response in responses:
        assert response.text
        assert response.stop_reason in {StopReason.STOP, StopReason.LENGTH}
        assert response.completion_tokens is not None and response.completion_tokens <= 16
