"""--model-option parsing, model-spec parsing and the price table in gasp.backends."""

from __future__ import annotations

import pytest

from gasp.backends import (
    OPENAI_PRICES_PER_MTOK,
    cost_usd,
    parse_model_options,
    parse_model_spec,
    price_per_mtok,
    resolve_backend,
)
from gasp.errors import BackendError, ConfigError


def test_model_options_are_typed_by_trying_int_float_bool_str() -> None:
    options = parse_model_options(
        [
            "device=cpu",
            "batch_size=8",
            "timeout_s=30",
            "dtype=float16",
            "rate=0.5",
            "batching=true",
            "flag=False",
            "text=a=b",
            " spaced = x ",
        ]
    )
    assert options == {
        "device": "cpu",
        "batch_size": 8,
        "timeout_s": 30,
        "dtype": "float16",
        "rate": 0.5,
        "batching": True,
        "flag": False,
        "text": "a=b",
        "spaced": "x",
    }
    assert type(options["batch_size"]) is int and type(options["rate"]) is float
    assert parse_model_options(["x=nan"]) == {"x": "nan"}  # not a usable number
    assert parse_model_options([]) == {}


@pytest.mark.parametrize("pair", ["device", "=cpu", ""])
def test_a_malformed_model_option_is_refused(pair: str) -> None:
    with pytest.raises(ConfigError, match="--model-option must be KEY=VALUE, got"):
        parse_model_options([pair])


def test_parsed_options_are_validated_by_the_backend() -> None:
    backend = resolve_backend(
        "mock/personas", options=parse_model_options(["female_share=0.7", "batch_size=8"])
    )
    assert backend.batch_size == 8
    with pytest.raises(ConfigError, match=r"unknown option.*colour"):
        resolve_backend("mock/echo", options=parse_model_options(["colour=red"]))
    with pytest.raises(ConfigError, match="batch_size"):
        resolve_backend("mock/echo", options=parse_model_options(["batch_size=0.5"]))


def test_model_specs_are_parsed_once() -> None:
    assert parse_model_spec("OpenAI/gpt-4o-mini") == ("openai", "gpt-4o-mini")
    assert parse_model_spec("hf/org/name") == ("hf", "org/name")
    assert parse_model_spec("embedded") == ("embedded", "")
    with pytest.raises(BackendError, match="unknown model provider 'gpt'"):
        parse_model_spec("gpt/4")
    with pytest.raises(BackendError, match="model name missing"):
        parse_model_spec("openai/")


def test_prices_live_with_the_backends() -> None:
    assert price_per_mtok("openai/gpt-4o-mini-2024-07-18") == OPENAI_PRICES_PER_MTOK["gpt-4o-mini"]
    assert price_per_mtok("openai/gpt-4o") == (2.50, 10.00)
    assert price_per_mtok("openai-compatible/gpt-4o") is None
    assert price_per_mtok("openai/unknown") is None
    assert cost_usd((1.0, 2.0), 1_000_000, 500_000) == pytest.approx(2.0)


def test_the_vllm_optimization_level_reaches_the_engine_only_when_given() -> None:
    from gasp.backends._vllm import VLLMBackend

    engine = VLLMBackend.from_spec("m", {"optimization_level": 0})._engine_args
    assert engine["optimization_level"] == 0
    assert "optimization_level" not in VLLMBackend.from_spec("m")._engine_args
    for bad, said in ((4, "at most 3"), (-1, "at least 0"), ("O0", "an integer")):
        with pytest.raises(ConfigError, match=f"optimization_level.*{said}"):
            VLLMBackend.from_spec("m", {"optimization_level": bad})
