"""One study end to end in one run folder: every check first, then the steps.

:func:`prepare_run` turns the settings of a run (``gasp run``'s options, or the
keywords of :func:`gasp.run`) into a :class:`PreparedRun`, checking everything it can
before anything is printed or written; :func:`execute_run` locks the run folder
(one run per folder) and runs the steps. The folder holds the run store
``run.sqlite``, the analysis ``results/`` and the ``report/``; generation resumes
the store, the other steps recompute from it.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gasp.errors import ConfigError
from gasp.pipeline._analysis import analysis_options
from gasp.pipeline._checks import check_out_folder, check_run
from gasp.pipeline._generation import GenerationOptions, OwnOptions, select_study
from gasp.pipeline._settings import BY_NAME, check_settings, names_of, pop_study_flags
from gasp.pipeline._steps import Step, StepsOutcome, StudyRun, run_steps

if TYPE_CHECKING:
    from rich.console import Console


@dataclasses.dataclass(frozen=True)
class PreparedRun:
    """A run whose every setting was checked: what to run, where, and which steps."""

    run: StudyRun
    steps: tuple[Step, ...]
    out: Path
    study: str
    model: str


def default_run_folder(study: str, model: str, *, quick: bool = False) -> Path:
    """``runs/<study>-<model>`` (``runs/quick-...`` for a quick run)."""
    from gasp.text import slug

    name = slug(Path(study).stem, fallback="run") + "-" + slug(model, fallback="run")
    return Path("runs") / f"{'quick-' if quick else ''}{name}"


def _pick(options: dict[str, Any], names: Iterable[str]) -> dict[str, Any]:
    return {name: options.pop(name) for name in names if name in options}


def generation_settings(
    study: str,
    *,
    quick: bool = False,
    seed: int = 0,
    study_options: OwnOptions = None,
    temperature: float | None = None,
    top_p: float | None = None,
    max_tokens: int | None = None,
    **options: Any,
) -> tuple[GenerationOptions, dict[str, Any], dict[str, Any]]:
    """The generation settings of a run from its options by name (the declared settings
    of the groups ``shape`` and ``runner``, :mod:`gasp.pipeline._settings`): the
    settings, the study's own options (the flags of its analysis and probe options
    among them) and the options left over (the analysis's)."""
    rest = dict(options)
    check_settings({k: v for k, v in rest.items() if k in BY_NAME})
    flags = pop_study_flags(rest, "shape")
    later = pop_study_flags(rest)
    runner = _pick(rest, (*names_of("runner"), "model_options"))
    if "base_urls" in runner:
        runner["base_urls"] = tuple(runner["base_urls"] or ())
    # the study records every option given in its plan (the run manifest)
    shape = flags | later
    selection, own, quick_max_tokens = select_study(study, shape, study_options, quick=quick)
    own |= later
    generation = GenerationOptions.for_study(
        selection,
        max_tokens=max_tokens if max_tokens is not None else quick_max_tokens,
        temperature=temperature,
        top_p=top_p,
        seed=seed,
        **runner,
    )
    return generation, own, rest


def prepare_run(
    study: str,
    model: str,
    out: str | Path | None = None,
    *,
    quick: bool = False,
    skip: Iterable[Step | str] = (),
    seed: int = 0,
    study_options: OwnOptions = None,
    temperature: float | None = None,
    top_p: float | None = None,
    max_tokens: int | None = None,
    examples_per_word: int | None = None,
    quiet: bool = False,
    **options: Any,
) -> PreparedRun:
    """Check every setting of a run and the folders it writes, before anything is
    printed; create the run folder when the run generates. ``options`` are the declared
    settings of the shape, the runner, the analysis and the probe
    (:mod:`gasp.pipeline._settings`); any other name is refused."""
    if examples_per_word is None:
        from gasp.results import EXAMPLES_PER_WORD as examples_per_word
    BY_NAME["examples_per_word"].check(examples_per_word)
    decoding = {"temperature": temperature, "top_p": top_p, "max_tokens": max_tokens}
    given: dict[str, Any] = {"quick": quick, "seed": seed, "study_options": study_options}
    given |= decoding
    generation, own, rest = generation_settings(study, **given, **options)
    from gasp.pipeline._analysis import ANALYSIS_OPTIONS

    unknown = sorted(set(rest) - set(ANALYSIS_OPTIONS))
    if unknown:
        raise ConfigError(f"unknown run option {unknown[0]!r}")
    selection = generation.study
    if generation.batch:
        from gasp.runner import check_batch_model

        check_batch_model(model)  # before any step starts
    analysis = own | analysis_options(**rest, seed=seed, examples_per_word=examples_per_word)
    folder = Path(out) if out is not None else default_run_folder(study, model, quick=quick)
    check_out_folder(folder)
    from gasp.io import run_folder_paths

    run = StudyRun(
        selection.study_type,
        model,
        run_folder_paths(folder),
        generation,
        analysis,
        own | {"seed": seed},
        own | {"examples_per_word": examples_per_word},
        quiet=quiet,
    )
    skipped = {Step(s) for s in skip}
    steps = tuple(s for s in Step if s not in skipped)
    check_run(run, steps, folder)  # every check first: a mistake is one line, nothing else
    return PreparedRun(run, steps, folder, study, model)


def _remove_if_empty(folder: Path) -> None:
    with contextlib.suppress(OSError):
        folder.rmdir()


def execute_run(prepared: PreparedRun, console: Console) -> StepsOutcome:
    """Run the steps of ``prepared``, the run folder locked for the whole run (a folder
    made only for the lock goes again when the run stores nothing)."""
    from gasp.store import store_lock

    run, out = prepared.run, prepared.out
    with contextlib.ExitStack() as held:
        if Step.generate in prepared.steps and run.paths.store is not None:
            if not out.exists():
                held.callback(_remove_if_empty, out)
            held.enter_context(
                store_lock(
                    run.paths.store,
                    wait=run.generation.wait,
                    on_wait=lambda h: console.print(f"waiting for {h.describe()} to finish"),
                )
            )
        names = ", ".join(prepared.steps) or "none"
        console.print(f"gasp run: {prepared.study} on {prepared.model} -> {out} (steps: {names})")
        return run_steps(run, prepared.steps, console)


def run_settings(prepared: PreparedRun) -> Mapping[str, Any]:
    """The settings of a prepared run, as plain values (for a notebook's display)."""
    generation = prepared.run.generation
    return {
        "study": prepared.run.study_type.name,
        "model": prepared.model,
        "out": str(prepared.out),
        "steps": [str(s) for s in prepared.steps],
        "seed": generation.seed,
        "max_tokens": generation.max_tokens,
        "temperature": generation.temperature,
    }


__all__ = [
    "PreparedRun",
    "default_run_folder",
    "execute_run",
    "generation_settings",
    "prepare_run",
    "run_settings",
]
