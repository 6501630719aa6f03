"""Running an audit: every chosen study for every model, one scorecard, a gate for CI.

:func:`run_audit` is ``gasp audit`` (and ``gasp.audit(...)``): it checks everything
before it writes anything (models, studies, options, the settings the folder already
records, the paths it writes), then runs each (model, study) in
``<out>/<model>/<study>/`` (resuming), writes ``scorecard.json``, ``index.html`` and,
if asked, a JUnit file, and returns the :class:`~gasp.auditing.Scorecard` with the gate's
verdict.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from gasp.auditing._difference import DifferenceSettings
from gasp.auditing._execute import RunSpec, run_study
from gasp.auditing._folder import SettingsChanged, clear_run, write_record
from gasp.auditing._gate import judge
from gasp.auditing._junit import write_junit
from gasp.auditing._lock import lock_audit
from gasp.auditing._models import scoped
from gasp.auditing._page import write_audit_page
from gasp.auditing._plan import AuditPlan, parse_detect, plan_audit, with_default_targets
from gasp.auditing._prepare import AuditConfig, PreparedAudit, prepare_audit
from gasp.auditing._scorecard import RunRecord, Scorecard, build_scorecard, write_scorecard
from gasp.errors import ConfigError

#: False discovery rate of the scorecard's correction unless the audit gives another.
DEFAULT_LEVEL = 0.05
#: Folder of an audit unless ``out`` names another.
DEFAULT_OUT = Path("runs/audit")


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
    that needs more than ``request_budget`` requests or ``cost_budget`` USD is a
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
                names, audit.studies, audit.baseline, audit.out, audit.level, resized,
                keys=audit.keys,
            )  # fmt: skip
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
    if config.request_budget is not None and found.requests > config.request_budget:
        raise ConfigError(
            f"the plan needs {found.requests} requests, more than --request-budget "
            f"{config.request_budget}; ask for a larger difference or fewer studies"
        )
    if config.cost_budget is not None:
        if found.cost_usd is None:
            raise ConfigError(
                f"--cost-budget: the price of {', '.join(found.unpriced)} is unknown (priced: "
                "openai/<model>; local engines cost nothing); leave out --cost-budget or that model"
            )
        if found.cost_usd > config.cost_budget:
            raise ConfigError(
                f"the plan may cost {found.cost_usd:.2f} USD, more than --cost-budget "
                f"{config.cost_budget:g}"
            )
    return audit, found


def execute(audit: PreparedAudit, console: Console | None = None, title: str = "") -> Scorecard:
    """Run a prepared audit (resuming), write its scorecard, page and JUnit file."""
    lock = lock_audit(audit.out, audit.lock)  # a second audit on the folder is refused
    try:
        return _execute(audit, console, title)
    finally:
        lock.release()
        if audit.lock is not None:
            audit.lock.release()


def _run_one(
    spec: RunSpec, heading: str, console: Console, *, probe: bool, notebook: bool
) -> RunRecord:
    """One run of the audit: under its heading, or in a notebook as one updating bar."""
    from gasp.runner import notebook_bar

    if not notebook:
        console.rule(f"[bold]{heading}")
        return run_study(spec, console, probe=probe)
    with notebook_bar(heading) as bar:
        quiet = Console(stderr=True, quiet=True)
        record = run_study(spec, quiet, probe=probe, progress=True)
        bar.verdict = record.status if not record.reason else f"{record.status}: {record.reason}"
    return record


def _execute(audit: PreparedAudit, console: Console | None, title: str) -> Scorecard:
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
    from gasp.runner import in_notebook

    notebook = not config.quiet and in_notebook()  # one bar per run, nothing more
    if title and not notebook:
        console.print(title)
    records = []
    for number, spec in enumerate(audit.specs, start=1):
        heading = f"run {number}/{len(audit.specs)}: {spec.key}"
        records.append(_run_one(spec, heading, console, probe=config.probe, notebook=notebook))
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


def _prepare_from_options(
    models: Sequence[str] | str,
    studies: Sequence[str] | str | None,
    baseline: str | None,
    out: str | Path,
    level: float,
    options: Mapping[str, Any],
    *,
    keys: bool,
) -> PreparedAudit:
    """An audit prepared from keyword options (the fields of :class:`AuditConfig`)."""
    fields = {f.name for f in dataclasses.fields(AuditConfig)}
    unknown = sorted(set(options) - fields)
    if unknown:
        raise ConfigError(
            f"unknown audit option {unknown[0]!r}; known: {', '.join(sorted(fields))}"
        )
    given = dict(options)
    if given.get("junit") is not None:
        given["junit"] = Path(given["junit"])
    config = AuditConfig(**given)
    model_list = [models] if isinstance(models, str) else list(models)
    study_list = studies.split(",") if isinstance(studies, str) else studies
    study_list = None if study_list is None else [s.strip() for s in study_list if s.strip()]
    return prepare_audit(model_list, study_list, baseline, Path(out), level, config, keys=keys)


def plan_only(
    models: Sequence[str] | str,
    studies: Sequence[str] | str | None = None,
    baseline: str | None = None,
    out: str | Path = DEFAULT_OUT,
    level: float = DEFAULT_LEVEL,
    **options: Any,
) -> AuditPlan:
    """The plan of an audit (sizes, requests, tokens, cost, time) without running it:
    nothing is written and nothing is sent, so no API key is needed (the plan's
    warnings say which model still lacks one)."""
    audit = _prepare_from_options(models, studies, baseline, out, level, options, keys=False)
    for line in audit.warnings:
        print(f"gasp: warning: {line}", file=sys.stderr)
    _, planned = plan(audit)
    planned.assumptions.extend(audit.missing_keys)
    return planned


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
    audit = _prepare_from_options(models, studies, baseline, out, level, options, keys=True)
    config = audit.config
    for line in audit.warnings:
        print(f"gasp: warning: {line}", file=sys.stderr)
    if config.detect or config.request_budget is not None or config.cost_budget is not None:
        audit, planned = plan(audit)
        console = Console(stderr=True, quiet=config.quiet)
        for line in planned.lines():
            console.print(line, highlight=False)
    title = f"gasp audit: {len(audit.models)} models x {len(audit.studies)} studies -> {out}"
    return execute(audit, title=title)


__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_OUT",
    "execute",
    "plan",
    "plan_only",
    "run_audit",
]
