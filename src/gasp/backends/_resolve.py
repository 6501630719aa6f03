"""Choosing a backend from a ``provider/model`` string; backends are imported lazily."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gasp.backends._base import ModelBackend
from gasp.backends._fleet import openai_fleet, split_fleet_options
from gasp.backends._urls import refuse_credentials
from gasp.errors import BackendError, ConfigError, MissingKeyError

PROVIDERS: dict[str, str] = {
    "openai": "openai/<model>  (key from OPENAI_API_KEY)",
    "openai-compatible": "openai-compatible/<model>  (needs base_url; key env var optional)",
    "hf": "hf/<hub name or local path>  (transformers, in process)",
    "embedded": "embedded, embedded/smollm2 (SmolLM2-135M-Instruct) or embedded/gemma-3-270m"
    " (Gemma 3 270M base)  (no key, CPU)",
    "gguf": "gguf/<path to a .gguf file>  (a local GGUF file on the embedded engines, CPU)",
    "vllm": "vllm/<name>  (vLLM offline engine, GPU)",
    "mock": "mock/<script>  (echo, personas, constant, scoring; for tests)",
}

EMBEDDED_MODELS = ("smollm2", "gemma-3-270m")

_EXTRAS = {
    "openai": ("openai", "pip install 'gasp[api]'"),
    "openai-compatible": ("openai", "pip install 'gasp[api]'"),
    "hf": ("transformers", "pip install 'gasp[hf]'"),
    "embedded": ("transformers", "pip install 'gasp[hf]'"),
    "gguf": ("transformers", "pip install 'gasp[hf]'"),
    "vllm": ("vllm", "pip install 'gasp[vllm]'"),
}


def _require(provider: str) -> None:
    extra = _EXTRAS.get(provider)
    if extra is None:
        return
    module, command = extra
    if importlib.util.find_spec(module) is None:
        raise BackendError(f"the {provider} backend needs the {module!r} package: {command}")
    if provider in {"hf", "embedded", "gguf"} and importlib.util.find_spec("torch") is None:
        raise BackendError(f"the {provider} backend needs the 'torch' package: {command}")


def split_spec(spec: str) -> tuple[str, str]:
    """Split ``provider/model`` into its parts (the model may contain slashes); no checks."""
    text = spec.strip()
    provider, _, model = text.partition("/")
    return provider.lower(), model


def parse_model_spec(spec: str) -> tuple[str, str]:
    """``(provider, model)`` of a ``provider/model`` string, checked.

    The provider is lower-cased; the model may contain slashes and is empty only
    for ``embedded`` (the default embedded model).

    Raises:
        BackendError: unknown provider, or a missing model name.
    """
    provider, model = split_spec(spec)
    if provider not in PROVIDERS:
        valid = "; ".join(PROVIDERS.values())
        raise BackendError(f"unknown model provider {provider!r} in {spec!r}; valid: {valid}")
    if not model and provider != "embedded":
        raise BackendError(f"model name missing in {spec!r}; expected {PROVIDERS[provider]}")
    return provider, model


def resolve_backend(
    spec: str,
    *,
    base_url: str | Sequence[str] | None = None,
    api_key_env: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> ModelBackend:
    """Create the backend named by ``spec`` (``provider/model``).

    Providers: ``openai/<model>`` (key from ``OPENAI_API_KEY``, or the variable
    named by ``api_key_env``), ``openai-compatible/<model>`` (needs ``base_url``;
    key from the variable named by ``api_key_env``, default none),
    ``hf/<name or path>``, ``embedded`` / ``embedded/smollm2`` /
    ``embedded/gemma-3-270m``, ``gguf/<path to a .gguf file>``, ``vllm/<name>`` and
    ``mock/<script>``. ``options`` are backend specific (for example
    ``device`` and ``batch_size`` for ``hf``, ``female_share`` for
    ``mock/personas``).

    ``base_url`` may be a list: one URL behaves as a single URL; several, each
    a server of the same model, give a :class:`~gasp.backends.FleetBackend`
    that spreads the requests over them (``openai/`` and ``openai-compatible/``
    only; see :mod:`gasp.backends._fleet` for its options).

    Raises:
        BackendError: unknown provider, missing model name, key or base URL, or a
            missing optional package (the message gives the install command).
    """
    provider, model = parse_model_spec(spec)
    urls = [base_url] if isinstance(base_url, str) else list(base_url or ())
    for url in urls:
        refuse_credentials(url)
    fleet_options, _ = split_fleet_options(options)
    if len(urls) > 1 and provider not in {"openai", "openai-compatible"}:
        raise ConfigError(f"several base URLs need an openai-compatible/ model, not {spec!r}")
    if fleet_options and len(urls) < 2:
        raise ConfigError(f"option {sorted(fleet_options)[0]!r} applies to several base URLs only")
    _require(provider)
    if provider in {"openai", "openai-compatible"}:
        from gasp.backends._openai import OpenAIBackend

        key_env = api_key_env or ("OPENAI_API_KEY" if provider == "openai" else None)
        api_key = os.environ.get(key_env) if key_env else None
        if key_env and not api_key:
            raise MissingKeyError(
                f"{provider} needs an API key: set the {key_env} environment variable"
            )
        if provider == "openai-compatible" and not urls:
            raise BackendError(f"{spec!r} needs a base URL (for example http://localhost:8000/v1)")
        if len(urls) > 1:
            return openai_fleet(
                model, provider=provider, base_urls=urls, api_key=api_key, options=options
            )
        return OpenAIBackend(
            model,
            provider=provider,
            base_url=urls[0] if urls else None,
            api_key=api_key,
            options=options,
        )
    if provider in {"hf", "embedded", "gguf"}:
        from gasp.backends._hf import HFBackend

        if provider == "gguf":
            from gasp.backends._embedded import gguf_backend

            return gguf_backend(model, options)
        if provider == "embedded":
            from gasp.backends._embedded import embedded_backend

            name = model.lower() or "smollm2"
            if name not in EMBEDDED_MODELS:
                raise BackendError(
                    f"unknown embedded model {model!r}; choose one of: "
                    + ", ".join(f"embedded/{m}" for m in EMBEDDED_MODELS)
                )
            return embedded_backend(options, name)
        return HFBackend.from_spec(model, options)
    if provider == "vllm":
        from gasp.backends._vllm import VLLMBackend

        return VLLMBackend.from_spec(model, options)
    from gasp.backends._mock import make_mock_backend

    return make_mock_backend(model, options)


def export_hf(target: Path) -> Path:
    """Write the embedded model into ``target`` as a Hugging Face folder (float32 weights,
    config with ``architectures``, tokenizer and chat template); returns ``target``."""
    _require("embedded")
    from gasp.backends._export_hf import export_hf as write

    return write(target)
