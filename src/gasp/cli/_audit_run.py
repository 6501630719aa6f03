"""The work of ``gasp audit``: every chosen study for every model, one scorecard, a gate
for CI.

Each (model, study) runs in ``<out>/<model>/<study>/`` through the same steps as
``gasp run`` (generation resumes its store; a finished run is not generated again).
A system-prompt variant is the first model with a system prompt added; it counts as
a model. Every model gets the same items and seeds. A study a backend cannot serve is
listed with its reason. The scorecard (``scorecard.json``, ``index.html``) tests every
difference against the baseline (or between every pair) with one Benjamini-Hochberg
correction; ``--fail-on worse`` exits 3 when a comparison is significantly worse.
``gasp tour`` is :func:`execute` with one model, ``--quick`` and the probe step.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from gasp.audit import (
    AuditModel,
    DifferenceSettings,
    RunRecord,
    Scorecard,
    build_scorecard,
    write_audit_page,
    write_junit,
    write_scorecard,
)
from gasp.backends import parse_model_options, parse_model_spec
from gasp.cli._compare_scorecard import AUDIT_FILE
from gasp.errors import BackendError, ConfigError, GaspError
from gasp.io import run_folder_paths
from gasp.pipeline import (
    GenerationOptions,
    Step,
    StudyRun,
    StudySelection,
    analysis_options,
    run_steps,
    select_study,
)
from gasp.report import REPORT_FILE
from gasp.runner import Plannable, SystemPromptVariant
from gasp.text import slug

#: Exit status when a step of some run failed.
STEP_FAILED_EXIT_CODE = 1
#: Exit status of ``--fail-on worse`` when a comparison is significantly worse.
WORSE_EXIT_CODE = 3
EXAMPLES_PER_WORD = 50


def _slug(text: str) -> str:
    return slug(text, keep="._", fallback="")


def parse_models(specs: list[str], variants: list[str]) -> list[AuditModel]:
    """``--model [NAME=]SPEC`` and ``--system-prompt-variant NAME=TEXT`` as audit models."""
    if not specs:
        raise ConfigError("give at least one --model")
    models: list[AuditModel] = []
    for text in specs:
        name, sep, spec = text.partition("=")
        if not sep:
            name, spec = _slug(text), text
        parse_model_spec(spec)
        models.append(AuditModel(_slug(name) or "model", spec.strip()))
    for text in variants:
        name, sep, prompt = text.partition("=")
        if not sep or not name.strip() or not prompt.strip():
            raise ConfigError(f"--system-prompt-variant must be NAME=TEXT, got {text!r}")
        models.append(AuditModel(_slug(name), models[0].spec, prompt))
    names = [m.name for m in models]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ConfigError(f"two models are called {twice[0]!r}; name them with --model NAME=SPEC")
    return models


def check_studies(names: list[str]) -> None:
    """Raise :class:`ConfigError` for an unknown study name, or for no study at all."""
    from gasp.studies import study_names

    unknown = [n for n in names if n not in study_names()]
    if unknown or not names:
        raise ConfigError(
            f"unknown study {unknown[0] if unknown else ''!r}; the studies are: "
            + ", ".join(study_names())
        )


def scoped(pairs: list[str], names: set[str], flag: str) -> dict[str | None, list[str]]:
    """``[SCOPE:]KEY=VALUE`` pairs by scope (None: every model or study)."""
    out: dict[str | None, list[str]] = {}
    for text in pairs:
        head, sep, _ = text.partition("=")
        scope, colon, _ = head.partition(":")
        if not sep:
            raise ConfigError(f"{flag} must be [NAME:]KEY=VALUE, got {text!r}")
        if colon:
            if scope not in names:
                raise ConfigError(f"{flag} {text!r}: no model or study called {scope!r}")
            out.setdefault(scope, []).append(text.partition(":")[2])
        else:
            out.setdefault(None, []).append(text)
    return out


def parse_margins(pairs: list[str]) -> dict[str, float]:
    """``--margin METRIC=VALUE`` (METRIC or STUDY.METRIC) as numbers."""
    values = parse_model_options(pairs, flag="--margin")
    margins = {}
    for key, value in values.items():
        try:
            margins[key] = abs(float(value))
        except (TypeError, ValueError):
            raise ConfigError(f"--margin {key}: a number is needed, got {value!r}") from None
    return margins


@dataclasses.dataclass(frozen=True)
class VariantSelection(StudySelection):
    """A study selection built with a system prompt added (a system-prompt variant)."""

    prompt: str = ""

    def build(self) -> Plannable:
        """The study, every item with the variant's system prompt."""
        return SystemPromptVariant(super().build(), self.prompt)


def study_run(
    name: str, model: AuditModel, out: Path, quick: bool, seed: int, options: dict[str, Any]
) -> StudyRun:
    selection, own, quick_max_tokens = select_study(
        name, {}, options["study"].get(name, []) + options["study"].get(None, []), quick=quick
    )
    generation = GenerationOptions.for_study(
        selection,
        max_tokens=quick_max_tokens,
        temperature=None,
        top_p=None,
        seed=seed,
        model_options=tuple(options["model"].get(None, []) + options["model"].get(model.name, [])),
        max_concurrency=options["max_concurrency"],
    )
    if model.variant_prompt:
        variant = VariantSelection(
            selection.source, selection.study_type, selection.options, model.variant_prompt
        )
        generation = dataclasses.replace(generation, study=variant)
    analysis = own | analysis_options(seed=seed, examples_per_word=EXAMPLES_PER_WORD)
    return StudyRun(
        study_type=selection.study_type,
        model=model.spec,
        paths=run_folder_paths(out / model.name / name),
        generation=generation,
        analysis=analysis,
        probe=own | {"embeddings": "minilm", "seed": seed},
        report=own | {"examples_per_word": EXAMPLES_PER_WORD},
    )


#: Written in a run folder once every step finished: the store's size and time then.
DONE_FILE = ".audit-done"


def _store_stamp(run: StudyRun) -> str:
    store = run.paths.store
    if store is None or not store.is_file():
        return ""
    stat = store.stat()
    return f"{stat.st_size}:{stat.st_mtime_ns}"


def _finished(run: StudyRun) -> bool:
    """True when the run finished every step and its store has not changed since."""
    done = run.paths.results.parent / DONE_FILE
    report = run.paths.report / REPORT_FILE
    return (
        done.is_file()
        and report.is_file()
        and done.read_text(encoding="utf-8") == _store_stamp(run)
    )


def _has_probe(run: StudyRun) -> bool:
    from gasp.studies import StudyType

    return type(run.study_type).probe is not StudyType.probe


def run_one(
    run: StudyRun, model: str, study: str, console: Console, *, probe: bool = False
) -> RunRecord:
    """Generate (resuming), analyse and report one run; a finished run is not redone.
    The probe runs only with ``probe`` (no headline metric reads it; the tour shows it)."""
    if _finished(run):
        console.print(f"{model} / {study}: finished before, not redone")
        return RunRecord(model, study, run.paths)
    steps = [Step.generate, Step.analyze]
    steps += [Step.probe] if probe and _has_probe(run) else []
    steps += [Step.report]
    try:
        outcome = run_steps(run, steps, console)
    except BackendError as exc:
        console.print(f"[yellow]{model} / {study} not served: {exc}[/yellow]")
        return RunRecord(model, study, run.paths, "not served", str(exc))
    except GaspError as exc:
        console.print(f"[red]{model} / {study} failed: {exc}[/red]")
        return RunRecord(model, study, run.paths, "failed", str(exc))
    if not outcome.ok:
        return RunRecord(model, study, run.paths, "incomplete")
    (run.paths.results.parent / DONE_FILE).write_text(_store_stamp(run), encoding="utf-8")
    return RunRecord(model, study, run.paths)


def check_resume(
    out: Path, models: list[AuditModel], studies: list[str], quick: bool, baseline: str | None
) -> None:
    """Refuse a folder whose audit gave a model name another spec or prompt, or ran
    with(out) ``--quick``; record this audit (models and studies of earlier runs kept)."""
    mine = [{"name": m.name, "spec": m.spec, "variant_prompt": m.variant_prompt} for m in models]
    path = out / AUDIT_FILE
    old: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    known = {m["name"]: m for m in old.get("models", [])}
    for model in mine:
        prev = known.get(model["name"])
        if prev is not None and prev != model:
            raise ConfigError(
                f"{out} holds an audit where model {model['name']!r} is {prev['spec']!r} "
                "with another system prompt or spec; use another --out"
            )
    if old and old.get("quick") != quick:
        raise ConfigError(f"{out} holds an audit run {'without' if quick else 'with'} --quick")
    names = {m["name"] for m in mine}
    record = {
        "models": [m for m in old.get("models", []) if m["name"] not in names] + mine,
        "studies": [s for s in old.get("studies", []) if s not in studies] + studies,
        "quick": quick,
        "baseline": baseline,
    }
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2), encoding="utf-8")


def finish(
    card: Scorecard,
    out: Path,
    *,
    fail_on: str | None,
    margins: dict[str, float],
    junit: Path | None,
) -> int:
    """Write the scorecard, the page and the JUnit file; the exit status of the gate."""
    write_scorecard(card, out)
    page = write_audit_page(card, out)
    failing = card.failing(margins) if fail_on == "worse" else []
    if junit is not None:
        write_junit(card, junit, margins)
    typer.echo(str(page))
    for row in failing:
        typer.echo(
            f"worse: {row['study']} {row['metric']} {row['model']} vs {row['baseline']}: "
            f"{row['difference']:+.4g} ({row['quantity']}), q = {row['q_value']:.3g}"
        )
    return WORSE_EXIT_CODE if failing else 0


@dataclasses.dataclass(frozen=True)
class AuditPlan:
    """What one audit (or tour) runs: its models, studies and settings."""

    models: list[AuditModel]
    studies: list[str]
    out: Path
    quick: bool
    seed: int
    options: dict[str, Any]
    baseline: str | None = None
    level: float = 0.05
    #: Run each study's probe step too (the tour does; no headline metric reads it).
    probe: bool = False


def execute(
    plan: AuditPlan,
    title: str,
    *,
    fail_on: str | None = None,
    margins: dict[str, float] | None = None,
    junit: Path | None = None,
) -> tuple[int, list[RunRecord]]:
    """Run every (model, study) of ``plan`` (resuming), write the scorecard and its page;
    the gate's exit status (0 or 3) and how each run ended."""
    out = plan.out
    runs = [
        (m, n, study_run(n, m, out, plan.quick, plan.seed, plan.options))
        for m in plan.models
        for n in plan.studies
    ]
    check_resume(out, plan.models, plan.studies, plan.quick, plan.baseline)
    console = Console(stderr=True)
    console.print(title)
    records = []
    for number, (m, name, run) in enumerate(runs, start=1):
        console.rule(f"[bold]run {number}/{len(runs)}: {m.name} / {name}")
        records.append(run_one(run, m.name, name, console, probe=plan.probe))
    card = build_scorecard(
        plan.models,
        records,
        out,
        baseline=plan.baseline,
        level=plan.level,
        settings=DifferenceSettings(seed=plan.seed),
    )
    code = finish(card, out, fail_on=fail_on, margins=margins or {}, junit=junit)
    return code, records


def baseline_of(models: list[AuditModel], baseline: str | None) -> str | None:
    if baseline is None:
        return None
    for m in models:
        if baseline in (m.name, m.spec) and not m.variant_prompt:
            return m.name
    for m in models:
        if baseline == m.name:
            return m.name
    raise ConfigError(
        f"--baseline {baseline!r} is none of the models: {', '.join(m.name for m in models)}"
    )


__all__ = [
    "STEP_FAILED_EXIT_CODE",
    "WORSE_EXIT_CODE",
    "AuditPlan",
    "baseline_of",
    "check_resume",
    "check_studies",
    "execute",
    "finish",
    "parse_margins",
    "parse_models",
    "run_one",
    "scoped",
    "study_run",
]
