"""Running an audit: every chosen study for every model, one scorecard, a gate for CI.

:func:`run_audit` is ``gasp audit`` (and ``gasp.audit(...)``): it checks everything
before it writes anything (models, studies, options, the settings the folder already
records, the paths it writes), then runs each (model, study) in
``<out>/<model>/<study>/`` (resuming), writes ``scorecard.json``, ``index.html`` and,
if asked, a JUnit file, and returns the :class:`~gasp.audit.Scorecard` with the gate's
verdict.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from gasp.audit._difference import DifferenceSettings
from gasp.audit._execute import (
    RunnerSettings,
    RunSpec,
    check_served,
    check_spec,
    run_spec,
    run_study,
)
from gasp.audit._folder import (
    SettingsChanged,
    check_folder,
    clear_run,
    planned_sizes,
    sizing_changes,
    sizing_inputs,
    write_record,
)
from gasp.audit._gate import FAIL_ON_WORSE, judge
from gasp.audit._junit import write_junit
from gasp.audit._models import (
    baseline_of,
    check_studies,
    model_setups,
    not_chosen,
    parse_margins,
    parse_models,
    resolve_setups,
    scoped,
    twin_warnings,
)
from gasp.audit._page import write_audit_page
from gasp.audit._plan import (
    DEFAULT_REQUEST_RATE,
    AuditPlan,
    comparison_count,
    parse_detect,
    plan_audit,
    with_default_targets,
)
from gasp.audit._scorecard import AuditModel, Scorecard, build_scorecard, write_scorecard
from gasp.errors import BackendError, ConfigError
from gasp.pipeline import DEFAULT_MAX_CONCURRENCY

#: False discovery rate of the scorecard's correction unless the audit gives another.
DEFAULT_LEVEL = 0.05
#: Folder of an audit unless ``out`` names another.
DEFAULT_OUT = Path("runs/audit")


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
    (:mod:`gasp.audit._plan`); ``max_requests`` / ``max_cost`` stop a plan that needs
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
    max_requests: int | None = None
    max_cost: float | None = None
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
) -> PreparedAudit:
    """Check and resolve every setting of an audit; a :class:`ConfigError` for anything
    ``gasp run`` would refuse, an unknown model or study, a bad margin or path. Nothing
    is written and no model is called."""
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
    if config.max_requests is not None and config.max_requests < 1:
        raise ConfigError(f"--max-requests must be at least 1, got {config.max_requests}")
    if config.max_cost is not None and not 0 < config.max_cost < math.inf:
        raise ConfigError(f"--max-cost must be a positive number of USD, got {config.max_cost}")
    if not 0 < config.request_rate < math.inf:
        raise ConfigError(f"--request-rate must be positive, got {config.request_rate}")
    parse_detect(config.detect, metrics)
    runner = RunnerSettings(
        seed=config.seed, max_concurrency=config.max_concurrency, batch=config.batch
    )
    specs = []
    for setup in setups:
        for name in names:
            spec = run_spec(
                setup,
                name,
                out,
                quick=config.quick,
                runner=runner,
                pairs=study_pairs.get(None, []) + study_pairs.get(name, []),
                sizes=config.sizes.get(name),
            )
            check_spec(spec)
            specs.append(spec)
    resolve_setups(setups)
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
            except BackendError as exc:
                unserved[spec.key] = str(exc)
    return PreparedAudit(
        chosen, names, base, out, level, config, margins, specs, cleared,
        twin_warnings(setups), kept_sizes=kept is not None, sizing=sizing, unserved=unserved,
    )  # fmt: skip


def _sizes_text(sizes: Mapping[str, Mapping[str, Any]]) -> str:
    """``study k=v, ...; study k=v`` for a message."""
    parts = (f"{s} " + ", ".join(f"{k}={v}" for k, v in o.items()) for s, o in sizes.items())
    return "; ".join(parts)


def _sized_by_option(audit: PreparedAudit) -> dict[str, list[str]]:
    """The studies whose size the user set with ``--study-option``, and those options."""
    from gasp.studies import get_study_type

    pairs = scoped(audit.config.study_options, audit.studies, "--study-option")
    sized: dict[str, list[str]] = {}
    for study in audit.studies:
        given = pairs.get(None, []) + pairs.get(study, [])
        size_keys = set(get_study_type(study).size_options())
        chosen = [p for p in given if p.partition("=")[0] in size_keys]
        if chosen:
            sized[study] = chosen
    return sized


def _sized_by_user(audit: PreparedAudit, asked: Mapping[tuple[str, str], float]) -> set[str]:
    """The studies whose size the user set (``--study-option``, or ``--quick`` for the
    studies ``--detect`` does not name); a ``--detect`` target on a study whose size an
    option sets is a :class:`ConfigError` (the option would win and the target be missed)."""
    by_option = _sized_by_option(audit)
    for study, metric in asked:
        if study in by_option:
            raise ConfigError(
                f"--detect {study}:{metric}: the study's size is set by --study-option "
                f"{', '.join(by_option[study])}; give one of the two"
            )
    sized = set(by_option)
    if audit.config.quick:
        sized |= set(audit.studies) - {study for study, _ in asked}
    return sized


def plan(audit: PreparedAudit, *, measure: bool = True) -> tuple[PreparedAudit, AuditPlan]:
    """The plan of a prepared audit; with ``detect``, the audit resized to it. A plan
    that needs more than ``max_requests`` requests or ``max_cost`` USD is a
    :class:`ConfigError`."""
    from gasp.studies import get_study_type

    config = audit.config
    metrics = {s: [m.name for m in get_study_type(s).headline_metrics()] for s in audit.studies}
    asked = parse_detect(config.detect, metrics)
    detect = with_default_targets(asked, audit.studies, _sized_by_user(audit, asked))
    defaults = set(detect) - set(asked)

    def planned(specs: Sequence[RunSpec], targets: dict, timed: bool) -> AuditPlan:
        return plan_audit(specs, audit.baseline, audit.level, detect=targets, measure=timed,
                          request_rate=config.request_rate, defaults=defaults,
                          unserved=audit.unserved)  # fmt: skip

    if audit.kept_sizes:  # resuming: the sizes the first plan chose, planned again as they are
        found = planned(audit.specs, {}, measure)
        found.sizes = {k: dict(v) for k, v in config.sizes.items()}
        found.assumptions.append(
            f"sizes: those this folder's first plan chose for --detect {' '.join(config.detect)}"
        )
        detect = {}
    else:
        found = planned(audit.specs, detect, measure and not detect)
    if found.sizes and not audit.kept_sizes:
        sizes = {**config.sizes, **found.sizes}
        resized = dataclasses.replace(config, sizes=sizes)
        names = [f"{m.name}={m.spec}" for m in audit.models if not m.variant_prompt]
        variants = {m.name: m.variant_prompt for m in audit.models if m.variant_prompt}
        resized = dataclasses.replace(resized, system_prompt_variants=variants)
        try:
            audit = prepare_audit(
                names, audit.studies, audit.baseline, audit.out, audit.level, resized
            )
        except SettingsChanged:
            raise
        except ConfigError as exc:
            raise ConfigError(
                f"--detect needs sizes the studies cannot take ({_sizes_text(sizes)}): {exc}"
            ) from None
        found = planned(audit.specs, detect, measure)
        found.sizes = {k: dict(v) for k, v in sizes.items()}
    elif detect and measure:
        found = planned(audit.specs, detect, True)
    if config.max_requests is not None and found.requests > config.max_requests:
        raise ConfigError(
            f"the plan needs {found.requests} requests, more than --max-requests "
            f"{config.max_requests}; ask for a larger difference or fewer studies"
        )
    if config.max_cost is not None:
        if found.cost_usd is None:
            raise ConfigError(
                f"--max-cost: the price of {', '.join(found.unpriced)} is unknown (priced: "
                "openai/<model>; local engines cost nothing); leave out --max-cost or that model"
            )
        if found.cost_usd > config.max_cost:
            raise ConfigError(
                f"the plan may cost {found.cost_usd:.2f} USD, more than --max-cost "
                f"{config.max_cost:g}"
            )
    return audit, found


def execute(audit: PreparedAudit, console: Console | None = None, title: str = "") -> Scorecard:
    """Run a prepared audit (resuming), write its scorecard, page and JUnit file."""
    config = audit.config
    console = console or Console(stderr=True, quiet=config.quiet)
    settings = {spec.key: spec.settings() for spec in audit.specs}
    for spec in audit.specs:
        if spec.key in audit.cleared:
            clear_run(spec.paths)
    write_record(
        audit.out,
        audit.models,
        audit.studies,
        settings,
        baseline=audit.baseline,
        level=audit.level,
        quick=config.quick,
        sizing=audit.sizing,
        sizes=config.sizes,
    )
    if title:
        console.print(title)
    records = []
    for number, spec in enumerate(audit.specs, start=1):
        console.rule(f"[bold]run {number}/{len(audit.specs)}: {spec.key}")
        records.append(run_study(spec, console, probe=config.probe))
    card = build_scorecard(
        audit.models,
        records,
        audit.out,
        baseline=audit.baseline,
        level=audit.level,
        settings=DifferenceSettings(seed=config.seed),
    )
    write_scorecard(card, audit.out)
    write_audit_page(card, audit.out)
    card.folder = audit.out
    card.gate = judge(card, config.fail_on, audit.margins)
    if config.junit is not None:
        write_junit(card, config.junit, audit.margins, card.gate.errors)
    return card


def run_audit(
    models: Sequence[str] | str,
    studies: Sequence[str] | str | None = None,
    baseline: str | None = None,
    out: str | Path = DEFAULT_OUT,
    level: float = DEFAULT_LEVEL,
    **options: Any,
) -> Scorecard:
    """Audit ``models`` (``[NAME=]provider/model`` each) on ``studies`` (default every
    study) against ``baseline`` (a model's name or spec; None: every pair), in the
    folder ``out``, with one Benjamini-Hochberg correction at ``level``.

    ``options`` are the fields of :class:`AuditConfig` (``quick``, ``seed``,
    ``system_prompt_variants``, ``model_options``, ``study_options``, ``base_urls``,
    ``api_key_env``, ``batch``, ``fail_on``, ``margins``, ``junit``, ``redo``, ...).
    Everything is checked before anything is written (a :class:`~gasp.errors.ConfigError`);
    the same call on the same folder resumes. Returns the :class:`Scorecard`; its
    ``exit_status`` is the gate's (0, 1 or 3).
    """
    fields = {f.name for f in dataclasses.fields(AuditConfig)}
    unknown = sorted(set(options) - fields)
    if unknown:
        raise ConfigError(
            f"unknown audit option {unknown[0]!r}; known: {', '.join(sorted(fields))}"
        )
    if "junit" in options and options["junit"] is not None:
        options["junit"] = Path(options["junit"])
    config = AuditConfig(**options)
    model_list = [models] if isinstance(models, str) else list(models)
    study_list = studies.split(",") if isinstance(studies, str) else studies
    study_list = None if study_list is None else [s.strip() for s in study_list if s.strip()]
    audit = prepare_audit(model_list, study_list, baseline, Path(out), level, config)
    for line in audit.warnings:
        print(f"gasp: warning: {line}", file=sys.stderr)
    if config.detect or config.max_requests is not None or config.max_cost is not None:
        audit, planned = plan(audit)
        console = Console(stderr=True, quiet=config.quiet)
        for line in planned.lines():
            console.print(line, highlight=False)
    return execute(audit)


__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_OUT",
    "AuditConfig",
    "PreparedAudit",
    "execute",
    "plan",
    "prepare_audit",
    "run_audit",
]
