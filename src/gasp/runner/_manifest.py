"""The run manifest: what a run is (study, model, decoding, seed) and the check that a
resumed run is the same run."""

from __future__ import annotations

import dataclasses
import json
import platform
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from gasp.backends import DecodingConfig, ModelBackend, redact_url, split_spec
from gasp.errors import ConfigError
from gasp.runner._blocks import FIXED, SINGLE
from gasp.runner._items import RequestKind, StudyPlan
from gasp.store import utc_now

#: Packages whose versions the manifest records (where installed).
RECORDED_PACKAGES = (
    "gasp",
    "numpy",
    "scipy",
    "pandas",
    "pyarrow",
    "torch",
    "transformers",
    "ctranslate2",
    "openai",
    "vllm",
)


def plain_spec(plan: StudyPlan) -> dict[str, Any]:
    """The study's spec as the manifest stores it (JSON types: lists, not tuples)."""
    return dict(json.loads(json.dumps(dict(plan.spec), ensure_ascii=False)))


def run_identity(plan: StudyPlan, spec: str, decoding: DecodingConfig, seed: int) -> dict[str, Any]:
    """What makes two invocations the same run: study, its kind, model, decoding, seed
    and the prompt form (``chat`` or ``completion``, as resolved for the model)."""
    return {
        "study": plain_spec(plan),
        "study_kind": plan.kind,
        "model": spec,
        "decoding": dataclasses.asdict(decoding),
        "seed": seed,
        "prompt_form": plan.prompt_form,
    }


def check_identity(
    manifest: Mapping[str, Any],
    identity: Mapping[str, Any],
    path: Path,
    engine: str | None = None,
) -> None:
    """Raise :class:`ConfigError` when the stored run differs from ``identity``, or was
    generated on another ``engine`` of the same model (its texts would mix two engines'
    samples; see :attr:`ModelBackend.generation_engine`)."""
    stored_engine = manifest.get("model", {}).get("engine")
    if stored_engine is not None and engine is not None and stored_engine != engine:
        raise ConfigError(
            f"{path} was generated on engine {stored_engine}, now {engine}; "
            "resume with the original --model-option engine/compute_type or use a new --out path"
        )
    stored = {
        "study": manifest.get("study"),
        "study_kind": manifest.get("study_kind"),
        "model": manifest.get("model", {}).get("spec"),
        "decoding": manifest.get("decoding"),
        "seed": manifest.get("seed"),
        # a run recorded before prompt forms existed sent chat prompts
        "prompt_form": manifest.get("prompt_form", "chat"),
    }
    for key in ("study_kind", "study", "model", "seed", "decoding", "prompt_form"):
        if key not in identity:
            continue
        if stored[key] == identity[key]:
            continue
        if key == "study":
            detail = f"study {_study_difference(stored[key], identity[key])}"
        elif key == "decoding" and isinstance(stored[key], Mapping):
            old, new = stored[key], identity[key]
            keys = [*new, *(k for k in old if k not in new)]
            name = next(k for k in keys if old.get(k) != new.get(k))
            detail = f"{name} {old.get(name)!r}, now {new.get(name)!r}"
        else:
            detail = f"{key} {stored[key]!r}, now {identity[key]!r}"
        raise ConfigError(
            f"{path} holds another run ({detail}); use a new --out path or the original settings"
        )


def _study_difference(old: Any, new: Mapping[str, Any]) -> str:
    if not isinstance(old, Mapping):
        return "missing"
    for key in new:
        if old.get(key) != new.get(key):
            return f"differs in {key!r}"
    return "differs"


def build_manifest(
    plan: StudyPlan,
    spec: str,
    backend: ModelBackend,
    decoding: DecodingConfig,
    *,
    seed: int,
    base_url: str | Sequence[str] | None,
    api_key_env: str | None,
) -> dict[str, Any]:
    """The manifest of a new run (never holds an API key).

    ``base_url`` may list several servers of the model (a fleet): the manifest then
    holds the first as ``base_url`` and all of them as ``base_urls``.
    """
    urls = [base_url] if isinstance(base_url, str) else list(base_url or ())
    versions: dict[str, str] = {"python": platform.python_version()}
    for package in RECORDED_PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    model: dict[str, Any] = {
        "spec": spec,
        "provider": split_spec(spec)[0],
        "model_id": backend.model_id,
        "backend": type(backend).__name__,
        "base_url": redact_url(urls[0]) if urls else None,
        "api_key_env": api_key_env,
    }
    if len(urls) > 1:
        model["base_urls"] = [redact_url(url) for url in urls]
    if backend.generation_engine is not None:
        model["engine"] = backend.generation_engine
    # whether a resumed run generates the texts an uninterrupted one would (see _blocks.py)
    model["batches"] = FIXED if backend.supports_batching else SINGLE
    scoring = getattr(backend, "scoring_method", None)
    if scoring is not None and RequestKind.SCORE in plan.kinds:
        model["scoring"] = {
            "method": scoring,
            "approximate": scoring == "top-logprobs",
            "why": getattr(backend, "scoring_note", ""),
        }
    recorded: dict[str, Any] = {
        "study": plain_spec(plan),
        "study_kind": plan.kind,
        "request_kinds": [str(k) for k in plan.kinds],
        "prompt_form": plan.prompt_form,
        "model": model,
        "decoding": dataclasses.asdict(decoding),
        "seed": seed,
        "packages": versions,
        "platform": platform.platform(),
        "started_at": utc_now(),
    }
    if plan.options:
        recorded["options"] = json.loads(json.dumps(dict(plan.options), default=str))
    return recorded
