"""Is the model there? A cheap look before a run creates its store.

A mistyped model name should fail before a run store exists, not after: for an
``openai-compatible/`` model the server's model list (``GET /models``, one small
request) must name it, when the server answers that request; for an ``hf/`` model
a local folder or file, or the local Hugging Face cache, must hold it (downloads are
off). Anything else (no list, an unusual answer) gives no verdict and the run goes on.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gasp.backends._resolve import parse_model_spec
from gasp.backends._urls import redact_url
from gasp.errors import BackendError


def served_models(base_url: str, api_key: str | None, timeout_s: float = 5.0) -> list[str] | None:
    """The model names the OpenAI-compatible server at ``base_url`` lists, or None when
    it gives no usable list (no such endpoint, an error, an unexpected answer).

    The request carries the key, so it is the run's one cheap authenticated request: a
    server that answers it 401 or 403 raises :class:`BackendError` (a wrong or missing
    key) before any store exists."""
    request = urllib.request.Request(base_url.rstrip("/") + "/models")
    if api_key:
        request.add_header("Authorization", f"Bearer {api_key}")
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as answer:
            body: Any = json.loads(answer.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403):
            raise BackendError(
                f"the server at {redact_url(base_url)} refused the API key (HTTP {exc.code}): "
                "check the key in the variable named by --api-key-env"
            ) from None
        return None
    except (OSError, ValueError, urllib.error.URLError):
        return None
    data = body.get("data") if isinstance(body, Mapping) else None
    if not isinstance(data, list):
        return None
    names = [str(entry["id"]) for entry in data if isinstance(entry, Mapping) and "id" in entry]
    return names or None


def _hf_model_present(name: str, gguf_file: str | None) -> bool:
    path = Path(name).expanduser()
    if path.exists():
        return True
    if name.startswith((".", "/", "~")) or name.count("/") > 1:
        return False  # a local path that does not exist (hub names are owner/name)
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return True  # no verdict without the hub client
    try:
        found = try_to_load_from_cache(name, gguf_file or "config.json")
    except Exception:  # an invalid repository name, for one
        return False
    return isinstance(found, str)


def check_model_available(
    spec: str,
    *,
    base_urls: Sequence[str] = (),
    api_key_env: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> None:
    """Raise :class:`BackendError` when model ``spec`` is known to be missing: not in the
    model list of its one ``openai-compatible/`` server, or an ``hf/`` model found
    neither on disk nor in the local Hugging Face cache."""
    provider, model = parse_model_spec(spec)
    if provider == "openai-compatible" and len(base_urls) == 1:
        key = os.environ.get(api_key_env) if api_key_env else None
        names = served_models(base_urls[0], key)
        if names is not None and model not in names:
            shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
            raise BackendError(
                f"the server at {redact_url(base_urls[0])} does not serve model {model!r} "
                f"(it serves: {shown})"
            )
    elif provider == "hf":
        gguf = (options or {}).get("gguf_file")
        if not _hf_model_present(model, str(gguf) if gguf else None):
            raise BackendError(
                f"model {model!r} is neither a local folder nor in the local Hugging Face "
                "cache (downloads are off; fetch it once with `hf download` or give a path)"
            )


__all__ = ["check_model_available", "served_models"]
