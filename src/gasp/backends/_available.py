"""Is the model there, and is the key right? A cheap look before a run creates its store.

A mistyped model name or a wrong key should fail before a run store exists, not after.
For an ``openai/`` or ``openai-compatible/`` model the server's model list (``GET
/models``, one small request that carries the key) is asked: 401 or 403 is a refused
key, and a list must name the model. A server without that endpoint (404 or 405)
gets one other authenticated request instead, a chat completion with no message,
which a server refuses (400) without generating anything once the key is checked:
401 or 403 there is a refused key. ``openai/`` models are asked at ``--base-url``, else
at ``OPENAI_BASE_URL``, else at the OpenAI API. For an ``hf/`` model a local folder or
file, or the local Hugging Face cache, must hold it (downloads are off). Anything
else (no answer, an unusual one) gives no verdict and the run goes on.
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

#: Where ``openai/`` models are served when neither ``--base-url`` nor the
#: ``OPENAI_BASE_URL`` variable (which the OpenAI client reads too) says otherwise.
OPENAI_API_URL = "https://api.openai.com/v1"
#: Statuses of a server that has no model list.
_NO_LIST = (404, 405)
#: Statuses of a refused key.
_REFUSED = (401, 403)


def _ask(
    url: str, api_key: str | None, body: Mapping[str, Any] | None, timeout_s: float
) -> tuple[int | None, Any]:
    """GET ``url`` (POST ``body`` as JSON when given) with the key: the status and the
    JSON answer (None when unreadable); status None when no answer came."""
    data = json.dumps(body).encode("utf-8") if body is not None else None
    request = urllib.request.Request(url, data=data)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if api_key:
        request.add_header("Authorization", f"Bearer {api_key}")
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as answer:
            status, raw = int(answer.status), answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, None
    except (OSError, ValueError, urllib.error.URLError):
        return None, None
    try:
        return status, json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return status, None


def _refused(base_url: str, status: int, key_env: str | None) -> BackendError:
    where = f"the variable {key_env}" if key_env else "the variable named by --api-key-env"
    return BackendError(
        f"the server at {redact_url(base_url)} refused the API key (HTTP {status}): "
        f"check the key in {where}"
    )


def served_models(
    base_url: str,
    api_key: str | None,
    timeout_s: float = 5.0,
    *,
    model: str | None = None,
    key_env: str | None = None,
) -> list[str] | None:
    """The model names the OpenAI-compatible server at ``base_url`` lists, or None when
    it gives no usable list (no such endpoint, an error, an unexpected answer).

    The request carries the key, so it is the run's one cheap authenticated request: a
    server that answers it 401 or 403 raises :class:`BackendError` (a wrong or missing
    key) before any store exists. A server without the list (404, 405) is asked, when
    ``model`` is given, for a chat completion of ``model`` with no message instead: it
    generates nothing, and 401 or 403 is a refused key there too."""
    root = base_url.rstrip("/")
    status, body = _ask(root + "/models", api_key, None, timeout_s)
    if status in _REFUSED:
        raise _refused(base_url, status, key_env)
    if status in _NO_LIST and model is not None:
        probe = {"model": model, "messages": [], "max_tokens": 1}
        status, _ = _ask(root + "/chat/completions", api_key, probe, timeout_s)
        if status in _REFUSED:
            raise _refused(base_url, status, key_env)
        return None
    data = body.get("data") if isinstance(body, Mapping) else None
    if not isinstance(data, list):
        return None
    names = [str(entry["id"]) for entry in data if isinstance(entry, Mapping) and "id" in entry]
    return names or None


def _servers_and_key(
    provider: str, base_urls: Sequence[str], api_key_env: str | None
) -> tuple[list[str], str | None, str | None]:
    """The servers an ``openai/`` or ``openai-compatible/`` model is asked at, its key
    and the variable that holds it."""
    urls = list(base_urls)
    if provider == "openai" and not urls:
        urls = [os.environ.get("OPENAI_BASE_URL") or OPENAI_API_URL]
    key_env = api_key_env or ("OPENAI_API_KEY" if provider == "openai" else None)
    return urls, (os.environ.get(key_env) if key_env else None), key_env


def server_identity(
    spec: str,
    *,
    base_urls: Sequence[str] = (),
    api_key_env: str | None = None,
    timeout_s: float = 5.0,
) -> list[dict[str, Any]]:
    """What each server of model ``spec`` says the model is: the entry of its model list
    (``GET /models``) that names the model, its plain fields only (``id``, ``created``,
    ``owned_by``, and a vLLM server's ``root`` and ``max_model_len``), one per server in
    order; an empty entry for a server that gives none. Empty for a model that is not
    served (``embedded``, ``hf/``, ...). A server restarted with other weights under the
    same name usually says so here (``root``, ``created``), so its answers are not taken
    for the old server's."""
    provider, model = parse_model_spec(spec)
    if provider not in ("openai", "openai-compatible"):
        return []
    urls, key, _ = _servers_and_key(provider, base_urls, api_key_env)
    identities = []
    for url in urls:
        status, body = _ask(url.rstrip("/") + "/models", key, None, timeout_s)
        data = body.get("data") if status == 200 and isinstance(body, Mapping) else None
        entry = next(
            (e for e in data or [] if isinstance(e, Mapping) and str(e.get("id")) == model), {}
        )
        identities.append(
            {
                str(k): v
                for k, v in sorted(entry.items())
                if isinstance(v, str | int | float | bool) and len(str(v)) <= 1_000
            }
        )
    return identities


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
    """Raise :class:`BackendError` when model ``spec`` is known to be missing or its key
    refused: an ``openai/`` or ``openai-compatible/`` model one of whose servers (each of
    a fleet's) refuses the key or does not list the model, or an ``hf/`` model found
    neither on disk nor in the local Hugging Face cache."""
    provider, model = parse_model_spec(spec)
    if provider in ("openai", "openai-compatible"):
        urls, key, key_env = _servers_and_key(provider, base_urls, api_key_env)
        for url in urls:  # every server of a fleet: one cheap request each
            names = served_models(url, key, model=model, key_env=key_env)
            if names is not None and model not in names:
                shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
                raise BackendError(
                    f"the server at {redact_url(url)} does not serve model {model!r} "
                    f"(it serves: {shown})"
                )
    elif provider == "hf":
        gguf = (options or {}).get("gguf_file")
        if not _hf_model_present(model, str(gguf) if gguf else None):
            raise BackendError(
                f"model {model!r} is neither a local folder nor in the local Hugging Face "
                "cache (downloads are off; fetch it once with `hf download` or give a path)"
            )


__all__ = [
    "OPENAI_API_URL",
    "check_model_available",
    "served_models",
    "server_identity",
]
