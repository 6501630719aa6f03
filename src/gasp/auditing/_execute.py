"""One run of an audit: a study for a model in ``<out>/<model>/<study>/``, made by the
pipeline of ``gasp run`` (:func:`gasp.pipeline.run_steps`: generate, resuming the
store; analyse; optionally probe; report).

:func:`run_spec` resolves what the run is (the pipeline's study selection with its
``--quick`` preset, sizes and options, and generation settings, the model's backend
settings) without running anything; :func:`check_spec` makes every check the runner
makes before it opens a store; :func:`run_study` runs it and says how it ended.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from gasp.auditing._folder import is_finished, mark_finished, save_seconds, saved_seconds
from gasp.auditing._models import ModelSetup
from gasp.auditing._scorecard import RunRecord
from gasp.errors import BackendError, GaspError
from gasp.io import RunPaths, run_folder_paths
from gasp.pipeline import (
    DEFAULT_MAX_CONCURRENCY,
    GenerationOptions,
    Step,
    StudyRun,
    check_run,
    run_steps,
    select_study,
)
from gasp.report import REPORT_FILE
from gasp.results import EXAMPLES_PER_WORD

if TYPE_CHECKING:
    from gasp.backends import DecodingConfig
    from gasp.runner import Plannable, RunOptions
    from gasp.studies import StudyType


@dataclasses.dataclass(frozen=True)
class RunnerSettings:
    """How every run of an audit is sent (the same for each model and study); each
    field is the :class:`gasp.pipeline.GenerationOptions` field of that name."""

    seed: int = 0
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    batch: bool = False
    max_requests: int | None = None
    max_cost: float | None = None
    #: Seconds one request may take, its retries included (None: the runner's default).
    request_deadline: float | None = None


@dataclasses.dataclass(frozen=True)
class RunSpec:
    """One (model, study) run of an audit, resolved but not run."""

    setup: ModelSetup
    study: str
    #: What the pipeline's steps run: the study, its generation settings, the folder.
    run: StudyRun
    #: The study's own options (the analysis and the report read them too).
    own: Mapping[str, Any]
    runner: RunnerSettings
    quick: bool

    @property
    def key(self) -> str:
        """``model/study``: the run's folder under the audit folder."""
        return f"{self.setup.model.name}/{self.study}"

    @property
    def study_type(self) -> StudyType:
        """The registered type of the study."""
        return self.run.study_type

    @property
    def shape(self) -> Mapping[str, Any]:
        """The options that shape the study's items (preset, sizes, study options)."""
        return self.run.generation.study.options

    @property
    def paths(self) -> RunPaths:
        """The run's folder: its store, results and report."""
        return self.run.paths

    @property
    def decoding(self) -> dict[str, Any]:
        """The decoding settings (the seed aside), resolved against the study's defaults."""
        generation = self.run.generation
        return {
            "max_tokens": generation.max_tokens,
            "temperature": generation.temperature,
            "top_p": generation.top_p,
        }

    def build(self) -> Plannable:
        """The study to generate (a variant's system prompt added)."""
        return self.run.generation.build_study()

    def decoding_config(self) -> DecodingConfig:
        """The decoding settings of every request."""
        return self.run.generation.decoding()

    def run_options(self, *, progress: bool) -> RunOptions:
        """The runner's options for this run."""
        return self.run.generation.run_options(progress=progress)

    def settings(self) -> dict[str, Any]:
        """Every setting that shapes this run's answers, as recorded in the audit folder."""
        model = self.setup.model
        return {
            "spec": model.spec,
            "variant_prompt": model.variant_prompt,
            "model_options": self.setup.recorded(),
            **({"servers": self.setup.servers()} if self.setup.base_urls else {}),
            **({"server_identity": self.setup.server_identity()} if self.setup.identities else {}),
            "seed": self.runner.seed,
            "quick": self.quick,
            "study_options": {k: _plain(v) for k, v in sorted(self.shape.items()) if v is not None},
            "decoding": {k: _plain(v) for k, v in sorted(self.decoding.items())},
        }


def _plain(value: Any) -> Any:
    return value if isinstance(value, bool | int | float | str) or value is None else str(value)


def run_spec(
    setup: ModelSetup,
    study: str,
    out: Path,
    *,
    quick: bool,
    runner: RunnerSettings,
    pairs: Sequence[str] = (),
    sizes: Mapping[str, Any] | None = None,
) -> RunSpec:
    """Resolve one run: the study's ``--study-option`` ``pairs`` (checked against its
    declarations), ``sizes`` (the planner's), its ``--quick`` preset for what is left
    unset, and its decoding defaults, as ``gasp run`` resolves them
    (:func:`gasp.pipeline.select_study`); nothing is run or written."""
    model = setup.model
    selection, own, quick_max_tokens = select_study(
        study, sizes or {}, list(pairs), quick=quick, system_prompt=model.variant_prompt
    )
    backend = {"base_urls": setup.base_urls, "api_key_env": setup.api_key_env}
    generation = GenerationOptions.for_study(
        selection,
        max_tokens=quick_max_tokens,
        temperature=None,
        top_p=None,
        model_options=setup.backend_options,
        **backend,
        **dataclasses.asdict(runner),
    )
    run = StudyRun(
        selection.study_type,
        model.spec,
        run_folder_paths(out / model.name / study),
        generation,
        analysis={**own, "seed": runner.seed, "examples_per_word": EXAMPLES_PER_WORD},
        probe={**own, "seed": runner.seed},
        report={**own, "examples_per_word": EXAMPLES_PER_WORD},
    )
    return RunSpec(setup, study, run, own, runner, quick)


def check_spec(spec: RunSpec) -> None:
    """Every check before a run writes: the study builds from its options, the analysis
    reads them, the decoding and runner settings are valid (a :class:`ConfigError`)."""
    from gasp.runner import check_batch_model

    spec.build()
    if spec.runner.batch:
        check_batch_model(spec.setup.model.spec)
    spec.study_type.check_analysis_options(spec.run.analysis)
    spec.run_options(progress=False).validate()
    spec.decoding_config()


def check_served(spec: RunSpec) -> None:
    """The runner's own checks (model, key, server, its model list, capabilities, the
    run the store holds), without creating the store: a :class:`BackendError` when the
    backend cannot serve this study."""
    from gasp.runner import check_generation

    assert spec.paths.store is not None
    check_generation(
        spec.build(), spec.run.model, spec.paths.store, spec.run_options(progress=False)
    )


def _steps(spec: RunSpec, probe: bool) -> tuple[Step, ...]:
    """The pipeline's steps of an audit's run: the probe only with ``probe`` and only
    for a study that has one."""
    from gasp.studies import StudyType

    has_probe = type(spec.study_type).probe is not StudyType.probe
    return tuple(s for s in Step if s is not Step.probe or (probe and has_probe))


def run_study(
    spec: RunSpec, console: Console, *, probe: bool = False, progress: bool | None = None
) -> RunRecord:
    """Run one study for one model (resuming) with the pipeline's steps; a finished run
    whose store has not changed is not redone. A backend that cannot serve it gives
    ``not served``, an error ``failed``, samples that failed after retries
    ``incomplete``. ``progress`` (default: when ``console`` prints) reports the
    samples (to a notebook's bar when one is open)."""
    name, study = spec.setup.model.name, spec.study
    if is_finished(spec.paths, REPORT_FILE):
        console.print(f"{name} / {study}: finished before, not redone (same settings)")
        return RunRecord(name, study, spec.paths, seconds=saved_seconds(spec.paths))
    start = time.perf_counter()
    steps = _steps(spec, probe)
    run = dataclasses.replace(spec.run, quiet=console.quiet if progress is None else not progress)
    try:
        check_run(run, steps, spec.paths.results.parent)
    except GaspError as exc:  # this backend cannot serve this study (or is not reached)
        console.print(f"[yellow]{name} / {study} not served: {exc}[/yellow]")
        return RunRecord(name, study, spec.paths, "not served", str(exc))
    try:
        outcome = run_steps(run, steps, console)
    except BackendError as exc:
        console.print(f"[yellow]{name} / {study} not served: {exc}[/yellow]")
        return RunRecord(name, study, spec.paths, "not served", str(exc))
    except GaspError as exc:
        console.print(f"[red]{name} / {study} failed: {exc}[/red]")
        return RunRecord(name, study, spec.paths, "failed", str(exc))
    seconds = time.perf_counter() - start
    console.print(f"{name} / {study}: {seconds:.1f} s")
    save_seconds(spec.paths, seconds)
    if not outcome.ok:
        return RunRecord(
            name, study, spec.paths, "incomplete", "some samples failed after retries", seconds
        )
    mark_finished(spec.paths)
    return RunRecord(name, study, spec.paths, seconds=seconds)


__all__ = [
    "RunSpec",
    "RunnerSettings",
    "check_served",
    "check_spec",
    "run_spec",
    "run_study",
]
