"""Preparing an audit: every setting checked and resolved before anything is written.

:func:`prepare_audit` checks the models, studies, options, the settings the audit
folder already records and the paths it writes, and builds each run's
:class:`~gasp.auditing._execute.RunSpec`; it writes nothing and calls no model (a
backend's own checks aside). A run its backend cannot serve is noted, not refused: it
is listed ``not served`` when the audit reaches it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gasp.auditing._execute import RunnerSettings, RunSpec, check_served, check_spec, run_spec
from gasp.auditing._folder import check_folder, planned_sizes, sizing_changes, sizing_inputs
from gasp.auditing._gate import FAIL_ON_WORSE
from gasp.auditing._lock import lock_audit
from gasp.auditing._models import (
    ModelSetup,
    baseline_of,
    check_studies,
    model_setups,
    not_chosen,
    parse_margins,
    parse_models,
    resolve_setups,
    scoped,
    twin_warnings,
    with_identities,
)
from gasp.auditing._plan import DEFAULT_REQUEST_RATE, comparison_count, parse_detect
from gasp.auditing._scorecard import AuditModel
from gasp.errors import BackendError, ConfigError, MissingKeyError
from gasp.pipeline import DEFAULT_MAX_CONCURRENCY, check_settings
from gasp.store import StoreLock


@dataclasses.dataclass(frozen=True)
class AuditConfig:
    """The settings of an audit besides its models, studies, baseline, folder and level.

    ``system_prompt_variants``: name -> system prompt (each a model: the first model
    with that prompt). ``model_options`` / ``study_options``: ``[NAME:]KEY=VALUE``
    strings (``NAME:base_url=URL`` and ``NAME:api_key_env=VAR`` among the model's).
    ``base_urls`` / ``api_key_env``: the server(s) and key of every
    ``openai-compatible/`` model. ``redo``: studies (or ``all``) to run again from
    scratch. ``sizes``: study -> size options (the planner's). ``detect``:
    ``STUDY:METRIC=DELTA`` differences the sizes are chosen to find with 80% power
    (:mod:`gasp.auditing._plan`); ``request_budget`` / ``cost_budget`` refuse a plan that needs
    more; ``request_rate``: requests per second assumed of a server in the plan.
    ``probe``: run each study's probe step too (the tour does).
    """

    system_prompt_variants: Mapping[str, str] | Sequence[str] = ()
    quick: bool = False
    seed: int = 0
    model_options: Sequence[str] = ()
    study_options: Sequence[str] = ()
    base_urls: Sequence[str] = ()
    api_key_env: str | None = None
    batch: bool = False
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    request_deadline: float | None = None
    request_budget: int | None = None
    cost_budget: float | None = None
    fail_on: str | None = None
    margins: Sequence[str] = ()
    junit: Path | None = None
    redo: Sequence[str] = ()
    sizes: Mapping[str, Mapping[str, Any]] = dataclasses.field(default_factory=dict)
    detect: Sequence[str] = ()
    request_rate: float = DEFAULT_REQUEST_RATE
    probe: bool = False
    quiet: bool = False


@dataclasses.dataclass(frozen=True)
class PreparedAudit:
    """An audit checked and resolved, nothing written yet."""

    models: list[AuditModel]
    studies: list[str]
    baseline: str | None
    out: Path
    level: float
    config: AuditConfig
    margins: dict[str, float]
    specs: list[RunSpec]
    #: ``model/study`` runs to clear before they run (``redo``).
    cleared: list[str] = dataclasses.field(default_factory=list)
    #: What the audit runs but a careful user may not mean (two models run alike).
    warnings: list[str] = dataclasses.field(default_factory=list)
    #: Whether the sizes are those an earlier plan of this folder chose for ``detect``.
    kept_sizes: bool = False
    #: What sizes planned for ``detect`` rest on (targets, level, comparisons).
    sizing: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: ``model/study`` -> why its backend cannot serve it (listed ``not served`` when run).
    unserved: dict[str, str] = dataclasses.field(default_factory=dict)
    #: Whether every model's API key was required (False: prepared for a plan only).
    keys: bool = True
    #: The models whose API key is not set (a plan's notes; only with ``keys=False``).
    missing_keys: list[str] = dataclasses.field(default_factory=list)
    #: The folder's lock (:mod:`gasp.auditing._lock`), taken when the folder existed;
    #: :func:`gasp.auditing.execute` takes it otherwise, and releases it.
    lock: StoreLock | None = None


def _check_paths(out: Path, junit: Path | None) -> None:
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} exists and is not a folder")
    if junit is None:
        return
    if junit.is_dir():
        raise ConfigError(f"--junit {junit} is a folder; give a file path")
    parent = junit.absolute().parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise ConfigError(f"--junit {junit}: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"--junit {junit}: {parent} is read-only")


def prepare_audit(
    models: Sequence[str],
    studies: Sequence[str] | None,
    baseline: str | None,
    out: Path,
    level: float,
    config: AuditConfig,
    *,
    keys: bool = True,
) -> PreparedAudit:
    """Check and resolve every setting of an audit; a :class:`ConfigError` for anything
    ``gasp run`` would refuse, an unknown model or study, a bad margin or path. Nothing
    is written and no model is called. With ``keys=False`` (for a plan, which sends
    nothing) a missing API key is a warning, not an error."""
    from gasp.studies import get_study_type, study_names

    chosen = parse_models(list(models), config.system_prompt_variants)
    names = check_studies(list(studies) if studies is not None else list(study_names()))
    base = baseline_of(chosen, baseline)
    sizing = sizing_inputs(config.detect, level, comparison_count(len(chosen), bool(base), names))
    kept = planned_sizes(out, sizing) if not config.sizes else None
    if kept is not None:
        config = dataclasses.replace(config, sizes=kept)
    if config.fail_on not in (None, FAIL_ON_WORSE):
        raise ConfigError(f"--fail-on must be 'worse', got {config.fail_on!r}")
    if config.fail_on and base is None:
        raise ConfigError("--fail-on worse needs a --baseline")
    if config.fail_on and len(chosen) < 2:
        raise ConfigError(
            f"--fail-on worse needs a model to compare with the baseline {base!r}: give a "
            "second --model or a --system-prompt-variant (one model has nothing to compare)"
        )
    if config.junit is not None and len(chosen) < 2:
        raise ConfigError(
            f"--junit {config.junit}: one model has nothing to compare, so the file would "
            "hold no test; give a second --model or a --system-prompt-variant"
        )
    if not 0.0 < level < 1.0:
        raise ConfigError(f"--level must lie in (0, 1), got {level}")
    unknown = [s for s in config.redo if s != "all" and s not in names]
    if unknown:
        raise ConfigError(f"--redo {unknown[0]!r}: {not_chosen(unknown[0], names)} (or 'all')")
    metrics = {s: [m.name for m in get_study_type(s).headline_metrics()] for s in names}
    margins = parse_margins(config.margins, metrics)
    _check_paths(out, config.junit)
    setups = model_setups(
        chosen,
        scoped(config.model_options, [m.name for m in chosen], "--model-option", kind="model"),
        base_urls=config.base_urls,
        api_key_env=config.api_key_env,
    )
    study_pairs = scoped(config.study_options, names, "--study-option")
    if config.request_budget is not None and config.request_budget < 1:
        raise ConfigError(f"--request-budget must be at least 1, got {config.request_budget}")
    if config.cost_budget is not None and not 0 < config.cost_budget < math.inf:
        raise ConfigError(
            f"--cost-budget must be a positive number of USD, got {config.cost_budget}"
        )
    if not 0 < config.request_rate < math.inf:
        raise ConfigError(f"--request-rate must be positive, got {config.request_rate}")
    parse_detect(config.detect, metrics)
    check_settings(
        {"max_concurrency": config.max_concurrency, "request_deadline": config.request_deadline}
    )
    runner = RunnerSettings(
        seed=config.seed,
        max_concurrency=config.max_concurrency,
        batch=config.batch,
        request_deadline=config.request_deadline,
    )
    specs = []
    for setup in setups:
        for name in names:
            spec = run_spec(
                setup,
                name,
                out,
                quick=config.quick,
                runner=runner
                if setup.seed is None
                else dataclasses.replace(runner, seed=setup.seed),
                pairs=study_pairs.get(None, []) + study_pairs.get(name, []),
                sizes=config.sizes.get(name),
            )
            check_spec(spec)
            specs.append(spec)
    # an audit already running in this folder refuses this one before a server is asked
    lock = lock_audit(out) if out.is_dir() else None
    try:
        missing_keys = resolve_setups(setups, keys=keys)
        return _prepare_runs(
            chosen,
            names,
            base,
            out,
            level,
            config,
            margins,
            specs,
            setups,
            sizing,
            kept,
            lock,
            keys=keys,
            missing_keys=missing_keys,
        )
    except BaseException:
        if lock is not None:
            lock.release()
        raise


def _prepare_runs(
    chosen: list[AuditModel],
    names: list[str],
    base: str | None,
    out: Path,
    level: float,
    config: AuditConfig,
    margins: dict[str, float],
    specs: list[RunSpec],
    setups: list[ModelSetup],
    sizing: dict[str, Any],
    kept: Mapping[str, Any] | None,
    lock: StoreLock | None,
    *,
    keys: bool = True,
    missing_keys: list[str] | None = None,
) -> PreparedAudit:
    """The folder's checks of :func:`prepare_audit`, once the folder's lock is held."""
    if keys:  # a plan sends nothing, not even a model list
        asked = with_identities(setups)
        specs = [dataclasses.replace(s, setup=asked[s.setup.model.name]) for s in specs]
    settings = {spec.key: spec.settings() for spec in specs}
    cleared = check_folder(out, settings, config.redo, sizing_changes(out, sizing))
    unserved: dict[str, str] = {}
    for spec in (s for s in specs if s.key not in cleared):
        # what a backend cannot serve is listed when its run is reached (and the plan
        # leaves it out); a store that holds another run is refused here
        stored = spec.paths.store is not None and spec.paths.store.exists()
        with contextlib.suppress(*(() if stored else (ConfigError,))):
            try:
                check_served(spec)
            except MissingKeyError:
                if keys:
                    raise
            except BackendError as exc:
                unserved[spec.key] = str(exc)
    return PreparedAudit(
        chosen, names, base, out, level, config, margins, specs, cleared,
        twin_warnings(setups), kept_sizes=kept is not None, sizing=sizing, unserved=unserved,
        lock=lock, keys=keys, missing_keys=list(missing_keys or []),
    )  # fmt: skip


__all__ = ["AuditConfig", "PreparedAudit", "prepare_audit"]
