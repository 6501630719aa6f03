"""The steps of one study in one run folder (generate, analyze, probe, report).

:func:`gasp.run` and ``gasp run`` run them for one study, the audit for every study.
Each step prints its title and wall time on the console it is given; generation
resumes the run store, the other steps recompute from it.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from gasp.errors import DataError, GaspError
from gasp.pipeline._checks import report_from_results
from gasp.pipeline._incomplete import generation_note, note_analysis

if TYPE_CHECKING:
    from rich.console import Console

    from gasp.io import RunPaths
    from gasp.pipeline._generation import GenerationOptions
    from gasp.runner import RunOptions
    from gasp.studies import StudyType

T = TypeVar("T")

#: Analysis lines that only say where the results went (left out of the headline).
_WRITTEN_LINE = "results written to "


class Step(StrEnum):
    """The steps of a run."""

    generate = "generate"
    analyze = "analyze"
    probe = "probe"
    report = "report"


@dataclasses.dataclass(frozen=True)
class StudyRun:
    """Everything the steps of one study need: what to run, on what, where, and how."""

    study_type: StudyType
    model: str
    paths: RunPaths
    generation: GenerationOptions
    analysis: Mapping[str, Any]
    probe: Mapping[str, Any]
    report: Mapping[str, Any]
    #: No progress bars or tables (warnings and errors still show).
    quiet: bool = False


@dataclasses.dataclass
class StepsOutcome:
    """What the steps of one study produced."""

    #: False when a step did not finish (failed samples, a failed probe).
    ok: bool = True
    report: Path | None = None
    #: The analysis and probe summary lines that are plain text.
    lines: list[str] = dataclasses.field(default_factory=list)


def _loud(console: Console) -> Console:
    """``console``, or one on standard error that prints when ``console`` is quiet."""
    from rich.console import Console

    return Console(stderr=True) if console.quiet else console


def _timed(console: Console, index: int, total: int, title: str, fn: Callable[[], T]) -> T:
    from gasp.runner import active_bar

    bar = active_bar()
    if bar is not None:
        bar.set_step(index, total, title)
    console.rule(f"[bold]{index}/{total} {title}")
    start = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - start
    console.print(f"[green]done[/green] {title.lower()} in {seconds:.1f} s")
    return result


def _generate(run: StudyRun, console: Console) -> bool:
    """Generate into the run store; False when some samples failed after retries."""
    from gasp.runner import generate, summary_table

    options: RunOptions = run.generation.run_options(progress=not run.quiet)
    summary = generate(
        run.generation.build_study(), run.model, run.paths.store, options, console=console
    )
    console.print(summary_table(summary))
    if summary.stopped:
        raise DataError(f"generation stopped ({summary.stopped}); run the same command to continue")
    if not summary.complete:
        _loud(console).print(
            f"[yellow]{summary.failed} sample(s) failed after retries; the analysis uses the "
            "others (run the same command again to retry them)[/yellow]"
        )
        return False
    return True


def _analyze(run: StudyRun, console: Console) -> list[str]:
    store = run.paths.store
    if store is None or not store.is_file():
        raise DataError(f"no run store at {store}; run the generate step first")
    note = generation_note(store)
    outcome = run.study_type.analyze(store, run.paths.results, run.analysis)
    note_analysis(note, run.paths.results)
    lines = list(outcome.get("lines", ()))
    for line in lines:
        console.print(line)
    return [line for line in lines if isinstance(line, str) and not line.startswith(_WRITTEN_LINE)]


def _probe(run: StudyRun, console: Console) -> str | None:
    """The study's probe step: its summary line, or None when it failed."""
    try:
        line = run.study_type.probe(run.paths.results, run.probe)
    except GaspError as exc:
        console.print(f"[red]probe failed: {exc}[/red]")
        return None
    console.print(line)
    return line


def run_steps(run: StudyRun, steps: Sequence[Step], console: Console) -> StepsOutcome:
    """Run ``steps`` of one study in order; errors the user can fix propagate."""
    outcome = StepsOutcome()
    total = len(steps)
    for index, step in enumerate(steps, start=1):
        if step is Step.generate:
            ok = _timed(console, index, total, "Generate", lambda: _generate(run, console))
            outcome.ok &= ok
        elif step is Step.analyze:
            lines = _timed(console, index, total, "Analyze", lambda: _analyze(run, console))
            outcome.lines.extend(lines)
        elif step is Step.probe:
            line = _timed(console, index, total, "Probe", lambda: _probe(run, console))
            if line is None:
                outcome.ok = False
            elif line:
                outcome.lines.append(line)
        else:
            path = _timed(
                console,
                index,
                total,
                "Report",
                lambda: report_from_results(
                    lambda: run.study_type.report(run.paths.results, run.paths.report, run.report),
                    run.paths.results,
                ),
            )
            console.print(f"[bold]Report:[/bold] {path}")
            outcome.report = path
    return outcome


__all__ = ["Step", "StepsOutcome", "StudyRun", "run_steps"]
