"""One run of an audit: a study for a model in ``<out>/<model>/<study>/``, made by the
same steps as ``gasp run`` (generate, resuming the store; analyse; optionally probe;
report).

:func:`run_spec` resolves what the run is (the study with its ``--quick`` preset,
sizes and options, the decoding settings, the model's backend settings) without
running anything; :func:`check_spec` makes every check the runner makes before it
opens a store; :func:`run_study` runs it and says how it ended.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from gasp.audit._folder import is_finished, mark_finished
from gasp.audit._models import ModelSetup
from gasp.audit._scorecard import RunRecord
from gasp.errors import BackendError, DataError, GaspError
from gasp.io import RunPaths, run_folder_paths
from gasp.report import REPORT_FILE

if TYPE_CHECKING:
    from gasp.backends import DecodingConfig
    from gasp.runner import Plannable, RunOptions
    from gasp.studies import StudyType

#: Example generations saved per significant word (the report's example browser).
EXAMPLES_PER_WORD = 50


@dataclasses.dataclass(frozen=True)
class RunnerSettings:
    """How every run of an audit is sent (the same for each model and study)."""

    seed: int = 0
    max_concurrency: int = 16
    batch: bool = False
    max_requests: int | None = None
    max_cost: float | None = None


@dataclasses.dataclass(frozen=True)
class RunSpec:
    """One (model, study) run of an audit, resolved but not run."""

    setup: ModelSetup
    study: str
    study_type: StudyType
    #: The options that shape the study's items (preset, sizes, study options).
    shape: Mapping[str, Any]
    #: The study's own options (the analysis and the report read them too).
    own: Mapping[str, Any]
    decoding: Mapping[str, Any]
    paths: RunPaths
    runner: RunnerSettings
    quick: bool

    @property
    def key(self) -> str:
        """``model/study``: the run's folder under the audit folder."""
        return f"{self.setup.model.name}/{self.study}"

    def build(self) -> Plannable:
        """The study to generate (a variant's system prompt added)."""
        from gasp.runner import SystemPromptVariant

        study = self.study_type.plan(self.study, self.shape)
        prompt = self.setup.model.variant_prompt
        return SystemPromptVariant(study, prompt) if prompt else study

    def decoding_config(self) -> DecodingConfig:
        """The decoding settings of every request."""
        from gasp.backends import DecodingConfig

        return DecodingConfig(**self.decoding, seed=self.runner.seed)

    def run_options(self, *, progress: bool, dry_run: bool = False) -> RunOptions:
        """The runner's options for this run."""
        from gasp.runner import BatchOptions, RunOptions

        return RunOptions(
            decoding=self.decoding_config(),
            seed=self.runner.seed,
            max_concurrency=self.runner.max_concurrency,
            max_requests=self.runner.max_requests,
            max_cost=self.runner.max_cost,
            dry_run=dry_run,
            base_urls=self.setup.base_urls,
            api_key_env=self.setup.api_key_env,
            progress=progress,
            backend_options=self.setup.backend_options or None,
            batch=BatchOptions() if self.runner.batch else None,
        )

    def analysis(self) -> dict[str, Any]:
        """The options of the analysis step."""
        return {**self.own, "seed": self.runner.seed, "examples_per_word": EXAMPLES_PER_WORD}

    def settings(self) -> dict[str, Any]:
        """Every setting that shapes this run's answers, as recorded in the audit folder."""
        model = self.setup.model
        return {
            "spec": model.spec,
            "variant_prompt": model.variant_prompt,
            "model_options": self.setup.recorded(),
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
    unset, and its decoding defaults; nothing is run or written."""
    from gasp.backends import parse_model_options
    from gasp.studies import check_study_options, study_type_for

    kind = study_type_for(study)
    own = parse_model_options(list(pairs), flag="--study-option")
    check_study_options(kind.name, kind.study_options, own)
    shape: dict[str, Any] = {**(sizes or {}), **own}
    if quick:
        shape = kind.with_quick(shape)
    decoding = kind.decoding_settings({}, quick=quick)
    return RunSpec(
        setup=setup,
        study=study,
        study_type=kind,
        shape=shape,
        own=own,
        decoding=decoding,
        paths=run_folder_paths(out / setup.model.name / study),
        runner=runner,
        quick=quick,
    )


def check_spec(spec: RunSpec) -> None:
    """Every check before a run writes: the study builds from its options, the analysis
    reads them, the decoding and runner settings are valid (a :class:`ConfigError`)."""
    from gasp.runner import check_batch_model

    spec.build()
    if spec.runner.batch:
        check_batch_model(spec.setup.model.spec)
    spec.study_type.check_analysis_options(spec.analysis())
    spec.run_options(progress=False).validate()
    spec.decoding_config()


def check_served(spec: RunSpec) -> None:
    """The runner's own checks (model, key, server, its model list, capabilities, the
    run the store holds), without creating the store: a :class:`BackendError` when the
    backend cannot serve this study."""
    from gasp.runner import check_generation

    assert spec.paths.store is not None
    check_generation(
        spec.build(), spec.setup.model.spec, spec.paths.store, spec.run_options(progress=False)
    )


def _has_probe(kind: StudyType) -> bool:
    from gasp.studies import StudyType

    return type(kind).probe is not StudyType.probe


def _steps(spec: RunSpec, console: Console, probe: bool) -> bool:
    """Generate, analyse, probe (with ``probe``), report; False when some samples failed."""
    from gasp.runner import generate, summary_table

    paths = spec.paths
    assert paths.store is not None
    paths.results.parent.mkdir(parents=True, exist_ok=True)
    summary = generate(
        spec.build(),
        spec.setup.model.spec,
        paths.store,
        spec.run_options(progress=not console.quiet),
        console=console,
    )
    console.print(summary_table(summary))
    if summary.stopped:
        raise DataError(f"generation stopped ({summary.stopped}); run the same audit to continue")
    ok = summary.complete
    for line in spec.study_type.analyze(paths.store, paths.results, spec.analysis()).get(
        "lines", ()
    ):
        console.print(line)
    if probe and _has_probe(spec.study_type):
        try:
            console.print(
                spec.study_type.probe(
                    paths.results, {**spec.own, "embeddings": "minilm", "seed": spec.runner.seed}
                )
            )
        except GaspError as exc:
            console.print(f"[red]probe failed: {exc}[/red]")
            ok = False
    report = {**spec.own, "examples_per_word": EXAMPLES_PER_WORD}
    console.print(f"report: {spec.study_type.report(paths.results, paths.report, report)}")
    return ok


def run_study(spec: RunSpec, console: Console, *, probe: bool = False) -> RunRecord:
    """Run one study for one model (resuming); a finished run whose store has not
    changed is not redone. A backend that cannot serve it gives ``not served``, an error
    ``failed``, samples that failed after retries ``incomplete``."""
    name, study = spec.setup.model.name, spec.study
    if is_finished(spec.paths, REPORT_FILE):
        console.print(f"{name} / {study}: finished before, not redone (same settings)")
        return RunRecord(name, study, spec.paths)
    start = time.perf_counter()
    try:
        check_served(spec)
    except GaspError as exc:  # this backend cannot serve this study (or is not reached)
        console.print(f"[yellow]{name} / {study} not served: {exc}[/yellow]")
        return RunRecord(name, study, spec.paths, "not served", str(exc))
    try:
        ok = _steps(spec, console, probe)
    except BackendError as exc:
        console.print(f"[yellow]{name} / {study} not served: {exc}[/yellow]")
        return RunRecord(name, study, spec.paths, "not served", str(exc))
    except GaspError as exc:
        console.print(f"[red]{name} / {study} failed: {exc}[/red]")
        return RunRecord(name, study, spec.paths, "failed", str(exc))
    console.print(f"{name} / {study}: {time.perf_counter() - start:.1f} s")
    if not ok:
        return RunRecord(name, study, spec.paths, "incomplete", "some samples failed after retries")
    mark_finished(spec.paths)
    return RunRecord(name, study, spec.paths)


__all__ = [
    "EXAMPLES_PER_WORD",
    "RunSpec",
    "RunnerSettings",
    "check_served",
    "check_spec",
    "run_spec",
    "run_study",
]
