""":func:`run` and :func:`run_async`: one study end to end in one run folder."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gasp._api._awaitable import awaitable
from gasp._api._keywords import (
    in_python_words,
    refuse_unknown,
    renamed,
    require_bool,
    require_choices,
    require_int,
    require_level,
    require_mapping,
    require_path,
    require_text,
    require_texts,
)
from gasp.pipeline import (
    DEFAULT_MODEL,
    DEFAULT_STUDY,
    RunResult,
    names_of,
)

if TYPE_CHECKING:
    from gasp.pipeline import PreparedRun, StepsOutcome

#: The keywords :func:`run` passes on to the run's settings (besides its own): the
#: declared settings of a run (``gasp.declared_settings``).
RUN_KEYWORDS = names_of("shape", "decoding", "runner", "analysis", "probe")
#: The steps of a run, in order.
STEPS = ("generate", "analyze", "probe", "report")


def run(
    study: str = DEFAULT_STUDY,
    model: str = DEFAULT_MODEL,
    *,
    out: str | Path | None = None,
    quick: bool = False,
    seed: int = 0,
    level: float | None = None,
    skip: str | Iterable[str] = (),
    study_options: Mapping[str, Any] | Sequence[str] | None = None,
    model_options: Mapping[str, Any] | Sequence[str] | None = None,
    quiet: bool = True,
    **options: Any,
) -> RunResult:
    """Generate, analyze, probe (where the study has a probe) and report ``study`` on
    ``model`` in the run folder ``out``, as ``gasp run`` does, and return its results.

    ``out`` defaults to ``runs/<study>-<model>``; a second call with the same settings
    resumes the run (nothing is asked twice). ``level`` is the Benjamini-Hochberg false
    discovery rate of the study's word tests (None: the study's rule). ``skip`` names
    steps to leave out (``"probe"``, ``["probe", "report"]``). ``study_options`` are the
    study's own options (``gasp studies`` lists them), ``model_options`` the backend's
    (``{"device": "cpu"}``). ``options`` are the other settings of ``gasp run`` by
    keyword (``n``, ``occupations``, ``max_tokens``, ``temperature``, ``bootstrap``,
    ``examples_per_word``, ``probe_embeddings``, ...). Options given as ``KEY=VALUE``
    texts (the command line's form) are read as the command line reads them.
    ``quiet=False`` shows the steps and their progress. A bad setting raises
    :class:`~gasp.errors.GaspError` naming its keyword before anything is written. It
    works inside a running event loop (a Jupyter kernel) too.

    Example:
        >>> import gasp
        >>> result = gasp.run("pronoun-pairs", "mock/personas", out=folder / "pairs",
        ...                   quick=True)
        >>> result.ok, result.study
        (True, 'pronoun-pairs')
        >>> "inconsistent" in set(result.metrics["metric"])
        True
    """
    fn = "gasp.run"
    options = renamed(fn, dict(options), {"level": level})
    refuse_unknown(fn, options, RUN_KEYWORDS)
    level = options.pop("level", level)
    require_text(fn, "study", study)
    require_text(fn, "model", model)
    folder = require_path(fn, "out", out)
    require_bool(fn, "quick", quick)
    require_bool(fn, "quiet", quiet)
    require_int(fn, "seed", seed, minimum=0, maximum=2**32 - 1)
    steps = require_texts(fn, "skip", skip)
    require_choices(fn, "skip", steps, STEPS)
    own = option_values(fn, "study_options", study_options)
    backend = option_values(fn, "model_options", model_options)
    options["fdr"] = require_level(fn, "level", level)
    if "base_urls" in options:
        options["base_urls"] = tuple(require_texts(fn, "base_urls", options["base_urls"]))
    from gasp.pipeline import prepare_run

    with in_python_words(fn):
        prepared = prepare_run(
            study, model, folder, quick=quick, skip=steps, seed=seed, study_options=own,
            quiet=quiet, model_options=backend, **options,
        )  # fmt: skip
    outcome = _execute(prepared, quiet=quiet)
    return RunResult(
        study=prepared.run.study_type.name,
        results_dir=prepared.run.paths.results,
        model=model,
        folder=prepared.out,
        report=outcome.report,
        ok=outcome.ok,
        lines=tuple(outcome.lines),
    )


def _execute(prepared: PreparedRun, *, quiet: bool) -> StepsOutcome:
    """Run the prepared steps: silently with ``quiet``; in a notebook as one updating
    bar; elsewhere with the steps and their progress on stderr."""
    from rich.console import Console

    from gasp.pipeline import execute_run
    from gasp.runner import in_notebook, notebook_bar

    if quiet or not in_notebook():
        return execute_run(prepared, Console(stderr=True, quiet=quiet))
    with notebook_bar(f"{prepared.study} on {prepared.model}") as bar:
        outcome = execute_run(prepared, Console(stderr=True, quiet=True))
        bar.verdict = "done" if outcome.ok else "done, some samples failed"
    return outcome


def study_option_values(
    function: str, value: Mapping[str, Any] | Sequence[str] | None
) -> dict[str, Any] | tuple[str, ...]:
    """A study's own options as :func:`run` and :func:`analyze` take them."""
    return option_values(function, "study_options", value)


def option_values(
    function: str, name: str, value: Mapping[str, Any] | Sequence[str] | None
) -> dict[str, Any] | tuple[str, ...]:
    """Options as a mapping (``{"n": 4}``), or as the command line's ``KEY=VALUE`` texts."""
    if value is None or isinstance(value, Mapping):
        return require_mapping(function, name, value)
    return tuple(require_texts(function, name, value))


run_async = awaitable(
    run,
    "run_async",
    """:func:`run` for a caller with an event loop of its own: ``await
    gasp.run_async(...)`` takes what :func:`run` takes and runs the study on a worker
    thread, the loop free meanwhile.

    Example:
        >>> import asyncio, gasp
        >>> result = asyncio.run(gasp.run_async("pronoun-pairs", "mock/personas",
        ...                                     out=folder / "pairs-async", quick=True))
        >>> result.ok
        True
    """,
)


__all__ = ["RUN_KEYWORDS", "STEPS", "option_values", "run", "run_async", "study_option_values"]
