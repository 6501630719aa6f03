"""The models of an audit: their names (which are folder names), specs, system-prompt
variants and the backend settings each one reads, checked before anything is written.

A model's name is the folder its runs live in (``<out>/<name>/<study>/``), so a name
is reduced to lower-case letters, digits, ``-``, ``_`` and ``.`` and may not start
with a dot: whatever is typed, a model's folder stays inside the audit folder.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gasp.auditing._scorecard import AuditModel
from gasp.errors import ConfigError, GaspError, MissingKeyError
from gasp.runner import run_sync

#: Providers whose backend reads a server URL and an API key variable.
SERVER_PROVIDERS = frozenset({"openai", "openai-compatible"})
#: Per-model settings that are not backend options (``NAME:base_url=URL``).
SERVER_KEYS = ("base_url", "api_key_env")


def model_folder_name(text: str) -> str:
    """``text`` as a model's folder name: lower case, ``[a-z0-9._-]`` only, no leading
    dot or dash; :class:`ConfigError` when nothing usable is left (``..``, ``/``)."""
    from gasp.text import slug

    name = slug(text, keep="._-", fallback="").strip("-.")
    if not name:
        raise ConfigError(f"model name {text!r} leaves no folder name; name it with NAME=SPEC")
    return name


def parse_models(
    specs: Sequence[str], variants: Mapping[str, str] | Sequence[str] = ()
) -> list[AuditModel]:
    """``[NAME=]SPEC`` models and ``NAME=TEXT`` system-prompt variants of the first one.

    A variant may be given as a mapping (name -> system prompt) or as ``NAME=TEXT``
    strings. Names become folder names (:func:`model_folder_name`); two models of one
    name, an unknown provider or an empty variant is a :class:`ConfigError`.
    """
    from gasp.backends import parse_model_spec

    if not specs:
        raise ConfigError("give at least one --model")
    models: list[AuditModel] = []
    for text in specs:
        name, sep, spec = text.partition("=")
        if not sep:
            name, spec = text, text
        spec = spec.strip()
        try:
            parse_model_spec(spec)
        except GaspError as exc:
            raise ConfigError(str(exc)) from None
        models.append(AuditModel(model_folder_name(name), spec))
    pairs = list(variants.items()) if isinstance(variants, Mapping) else []
    for text in variants if not isinstance(variants, Mapping) else ():
        name, sep, prompt = text.partition("=")
        if not sep:
            raise ConfigError(f"--system-prompt-variant must be NAME=TEXT, got {text!r}")
        pairs.append((name, prompt))
    for name, prompt in pairs:
        if not name.strip() or not prompt.strip():
            raise ConfigError(f"--system-prompt-variant must be NAME=TEXT, got {name}={prompt!r}")
        models.append(AuditModel(model_folder_name(name), models[0].spec, prompt))
    names = [m.name for m in models]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ConfigError(f"two models are called {twice[0]!r}; name them with --model NAME=SPEC")
    return models


def check_studies(names: Sequence[str]) -> list[str]:
    """The chosen studies in order, once each; :class:`ConfigError` for an unknown one
    or for none at all."""
    from gasp.studies import study_names

    if not names:
        raise ConfigError(
            "--studies names no study; give one or more of: " + ", ".join(study_names())
        )
    unknown = [n for n in names if n not in study_names()]
    if unknown:
        raise ConfigError(
            f"unknown study {unknown[0]!r}; the studies are: " + ", ".join(study_names())
        )
    return list(dict.fromkeys(names))


def not_chosen(study: str, chosen: Sequence[str]) -> str | None:
    """What to say of ``study`` when a setting names it but the audit does not run it:
    that it exists and is not chosen, and which studies are (None for a chosen study);
    else that no study has that name."""
    from gasp.studies import study_names

    if study in chosen:
        return None
    if study in study_names():
        return (
            f"study {study!r} exists but is not run in this audit (its studies: "
            f"{', '.join(chosen)}); add it to --studies"
        )
    return f"no study called {study!r} (the studies: {', '.join(study_names())})"


def _scope_of(scope: str, names: Sequence[str], kind: str, flag: str, text: str) -> str:
    if scope in names:
        return scope
    if kind == "model":
        with contextlib.suppress(ConfigError):
            if model_folder_name(scope) in names:  # the name as typed in --model NAME=SPEC
                return model_folder_name(scope)
        from gasp.studies import study_names

        hint = "; a study's options go in --study-option" if scope in study_names() else ""
        raise ConfigError(
            f"{flag} {text!r}: no model called {scope!r} in this audit "
            f"(its models: {', '.join(names)}){hint}"
        )
    raise ConfigError(f"{flag} {text!r}: {not_chosen(scope, names)}")


def scoped(
    pairs: Iterable[str], names: Sequence[str], flag: str, *, kind: str = "study"
) -> dict[str | None, list[str]]:
    """``[SCOPE:]KEY=VALUE`` pairs by scope (None: every model or study). A scope is one
    of ``names``, the chosen models (``kind="model"``; a model's name as typed is read as
    its folder name) or studies; another one is a :class:`ConfigError` that says what
    it is (a study not chosen, a study given as a model) and what is chosen."""
    out: dict[str | None, list[str]] = {}
    for text in pairs:
        head, sep, _ = text.partition("=")
        scope, colon, _ = head.partition(":")
        if not sep:
            raise ConfigError(f"{flag} must be [NAME:]KEY=VALUE, got {text!r}")
        if colon:
            key = _scope_of(scope, list(names), kind, flag, text)
            out.setdefault(key, []).append(text.partition(":")[2])
        else:
            out.setdefault(None, []).append(text)
    return out


def parse_margins(pairs: Iterable[str], metrics: Mapping[str, Sequence[str]]) -> dict[str, float]:
    """``--margin METRIC=VALUE`` (METRIC or STUDY.METRIC of a chosen study) as numbers:
    a known metric, a finite value, not negative; anything else a :class:`ConfigError`."""
    from gasp.backends import parse_model_options

    known = {f"{study}.{m}" for study, names in metrics.items() for m in names}
    known |= {m for names in metrics.values() for m in names}
    margins = {}
    for key, value in parse_model_options(list(pairs), flag="--margin").items():
        study, dot, _ = key.partition(".")
        if dot and key not in known and (reason := not_chosen(study, list(metrics))):
            raise ConfigError(f"--margin {key}: {reason}")
        if key not in known:
            raise ConfigError(
                f"--margin {key}: no headline metric of the chosen studies is called so "
                f"(known: {', '.join(sorted(k for k in known if '.' not in k))})"
            )
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if isinstance(value, bool) or not math.isfinite(number) or number < 0:
            raise ConfigError(
                f"--margin {key}: a finite number of at least 0 is needed, got {value!r}"
            )
        margins[key] = number
    return margins


def baseline_of(models: Sequence[AuditModel], baseline: str | None) -> str | None:
    """The name of the baseline model (given by its name as typed, its folder name or
    its spec), or None."""
    if baseline is None:
        return None
    for m in models:
        if baseline in (m.name, m.spec) and not m.variant_prompt:
            return m.name
    typed = None
    with contextlib.suppress(ConfigError):
        typed = model_folder_name(baseline)
    for m in models:
        if m.name in (baseline, typed):
            return m.name
    raise ConfigError(
        f"--baseline {baseline!r} is none of the models: {', '.join(m.name for m in models)}"
    )


@dataclasses.dataclass(frozen=True)
class ModelSetup:
    """What one model's backend is built from: its spec, servers, key and options."""

    model: AuditModel
    base_urls: tuple[str, ...] = ()
    api_key_env: str | None = None
    options: tuple[tuple[str, Any], ...] = ()
    #: The model's own run seed (``NAME:run_seed=N``; None: the audit's ``--seed``).
    seed: int | None = None
    #: What each server says the model is (:func:`gasp.backends.server_identity`), as
    #: JSON texts; empty until :func:`with_identities` asks, and for local models.
    identities: tuple[str, ...] = ()

    @property
    def backend_options(self) -> dict[str, Any]:
        """The backend options by name."""
        return dict(self.options)

    def recorded(self) -> dict[str, Any]:
        """What the audit folder records of this model's backend options (the servers
        are recorded apart, :meth:`servers`; the key is not recorded)."""
        return {k: str(v) for k, v in self.options}

    def servers(self) -> list[str]:
        """The servers this model is asked at, as recorded: each base URL without
        credentials, query or trailing slash (a model moved to another server may answer
        otherwise, so its answers are not taken as the new server's)."""
        from gasp.backends import redact_url

        return [(redact_url(url) or url).rstrip("/") for url in self.base_urls]

    def server_identity(self) -> list[dict[str, Any]]:
        """What each of the model's servers said the model is, as recorded."""
        import json

        return [json.loads(text) for text in self.identities]


def model_setups(
    models: Sequence[AuditModel],
    model_options: Mapping[str | None, Sequence[str]],
    *,
    base_urls: Sequence[str] = (),
    api_key_env: str | None = None,
) -> list[ModelSetup]:
    """Each model's backend settings: ``--base-url``/``--api-key-env`` for every
    ``openai-compatible/`` model, ``NAME:base_url=URL`` and ``NAME:api_key_env=VAR``
    for one model, the other options for its backend. A setting the model's backend
    does not read is a :class:`ConfigError`."""
    from gasp.backends import parse_model_options

    readers = [m for m in models if m.engine == "openai-compatible"]
    if (base_urls or api_key_env) and not readers:
        flag = "--base-url" if base_urls else "--api-key-env"
        raise ConfigError(f"{flag} applies to openai-compatible/ models; none is audited")
    setups = []
    for model in models:
        pairs = list(model_options.get(None, [])) + list(model_options.get(model.name, []))
        values = parse_model_options(pairs, flag="--model-option")
        urls: list[str] = list(base_urls) if model in readers else []
        key_env = api_key_env if model in readers else None
        for key in SERVER_KEYS:
            if key not in values:
                continue
            if model.engine not in SERVER_PROVIDERS:
                raise ConfigError(
                    f"model {model.name!r} ({model.spec}) does not read {key}: only openai/ "
                    "and openai-compatible/ models talk to a server"
                )
            value = str(values.pop(key))
            if key == "base_url":
                urls = [value]
            else:
                key_env = value
        seed = _seed_of(model, values.pop("run_seed")) if "run_seed" in values else None
        options = tuple(sorted(values.items()))
        setups.append(ModelSetup(model, tuple(urls), key_env, options, seed))
    return setups


def _seed_of(model: AuditModel, value: Any) -> int:
    """A model's own run seed: a whole number from 0 to 2**32 - 1."""
    text = str(value).strip()
    if not text.isdigit() or int(text) >= 2**32:
        raise ConfigError(
            f"--model-option {model.name}:run_seed must be a whole number from 0 to "
            f"4294967295, got {value!r}"
        )
    return int(text)


def with_identities(setups: Sequence[ModelSetup]) -> dict[str, ModelSetup]:
    """Each served model's setup with what its servers say it is (one model list asked
    per server), by model name; a local model's setup as it is."""
    import json

    from gasp.backends import server_identity

    found: dict[str, ModelSetup] = {}
    for setup in setups:
        if setup.model.engine not in SERVER_PROVIDERS:
            found[setup.model.name] = setup
            continue
        identities = server_identity(
            setup.model.spec, base_urls=setup.base_urls, api_key_env=setup.api_key_env
        )
        texts = tuple(json.dumps(i, sort_keys=True) for i in identities)
        found[setup.model.name] = dataclasses.replace(setup, identities=texts)
    return found


def twin_warnings(setups: Sequence[ModelSetup]) -> list[str]:
    """One line per group of models that are one model run the same way (spec, server,
    key, options and system prompt alike): their runs differ only by the model's own
    randomness, so comparing them is a null check, not a comparison of two models."""
    groups: dict[tuple[Any, ...], list[ModelSetup]] = {}
    for setup in setups:
        key = (
            setup.model.spec,
            setup.base_urls,
            setup.api_key_env,
            setup.options,
            setup.model.variant_prompt,
            setup.seed,
        )
        groups.setdefault(key, []).append(setup)
    return [
        f"models {', '.join(repr(s.model.name) for s in group)} are one model "
        f"({group[0].model.spec}) with the same settings: their comparison can only find "
        "the model's own randomness"
        for group in groups.values()
        if len(group) > 1
    ]


def resolve_setups(setups: Sequence[ModelSetup], *, keys: bool = True) -> list[str]:
    """Build every model's backend once (nothing is loaded or called): an unknown model
    (``mock/personaz``, a model not in the local cache), a missing key or server, an
    option the backend does not read is one :class:`ConfigError` naming the model. A
    model a server does not serve is not checked here: that run is ``not served``.

    With ``keys=False`` (a plan, which sends nothing) a missing API key is no error:
    the lines returned say which model lacks its key."""
    from gasp.backends import check_model_available, resolve_backend

    missing: list[str] = []
    done: set[tuple[Any, ...]] = set()
    for setup in setups:
        key = (setup.model.spec, setup.base_urls, setup.api_key_env, setup.options)
        if key in done:
            continue
        done.add(key)
        try:
            backend = resolve_backend(
                setup.model.spec,
                base_url=list(setup.base_urls),
                api_key_env=setup.api_key_env,
                options=setup.backend_options or None,
            )
            run_sync(backend.aclose())
            if setup.model.engine not in SERVER_PROVIDERS:
                check_model_available(setup.model.spec, options=setup.backend_options)
        except MissingKeyError as exc:
            if keys:
                raise ConfigError(f"model {setup.model.name!r}: {exc}") from None
            missing.append(f"model {setup.model.name!r}: {exc} before the audit runs")
        except GaspError as exc:
            raise ConfigError(f"model {setup.model.name!r}: {exc}") from None
    return missing


__all__ = [
    "ModelSetup",
    "baseline_of",
    "check_studies",
    "model_folder_name",
    "model_setups",
    "not_chosen",
    "parse_margins",
    "parse_models",
    "resolve_setups",
    "scoped",
    "twin_warnings",
    "with_identities",
]
