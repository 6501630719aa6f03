"""``gasp tour``: the quick run of every study, with one index page linking the reports.

Each study runs its ``--quick`` settings in its own run folder under ``--out``
(``<out>/<study>/``), through the same steps as ``gasp run``; the index page
``<out>/index.html`` links every report with the headline lines of its analysis.
Running the same command again resumes every study's store. A study that fails is
shown as failed on the index (with its one-line reason, for example a capability
the model lacks) and the others still run; an unknown model or study stops the tour
before it starts.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from gasp.cli import _analysis_options as an
from gasp.cli import _generation_options as gen
from gasp.cli._app import app
from gasp.cli._steps import Step, StepsOutcome, StudyRun, run_steps
from gasp.errors import ConfigError, GaspError

if TYPE_CHECKING:
    from gasp.report import IndexEntry
    from gasp.studies import StudyType

#: Example generations kept per significant word (``gasp run``'s default).
EXAMPLES_PER_WORD = 50

#: Exit status of ``gasp tour`` when some study did not finish.
STUDY_FAILED_EXIT_CODE = 1


def _has_probe(study_type: StudyType) -> bool:
    from gasp.studies import StudyType

    return type(study_type).probe is not StudyType.probe


def _study_run(
    name: str, model: str, out: Path, seed: int, model_options: tuple[str, ...]
) -> StudyRun:
    """The quick run of study ``name`` in ``out/<name>``, with every option at its default."""
    from gasp.io import run_folder_paths

    selection, own, quick_max_tokens = gen.select_study(name, {}, None, quick=True)
    generation = gen.GenerationOptions.for_study(
        selection,
        max_tokens=quick_max_tokens,
        temperature=None,
        top_p=None,
        seed=seed,
        model_options=model_options,
    )
    analysis = own | an.analysis_options(seed=seed, examples_per_word=EXAMPLES_PER_WORD)
    return StudyRun(
        study_type=selection.study_type,
        model=model,
        paths=run_folder_paths(out / name),
        generation=generation,
        analysis=analysis,
        probe=own | {"embeddings": "minilm", "seed": seed},
        report=own | {"examples_per_word": EXAMPLES_PER_WORD},
    )


def _entry(
    run: StudyRun, name: str, outcome: StepsOutcome | None, error: str, seconds: float
) -> IndexEntry:
    from gasp.report import IndexEntry

    lines: tuple[str, ...] = ()
    if outcome is None:
        status, report = "failed", None
    else:
        status = "complete" if outcome.ok else "incomplete"
        report, lines = outcome.report, tuple(outcome.lines)
    return IndexEntry(
        name=name,
        description=run.study_type.description,
        report=report,
        status=status,
        seconds=seconds,
        lines=lines,
        error=error,
    )


@app.command("tour")
def tour_command(
    model: gen.ModelOption = gen.DEFAULT_MODEL,
    out: Annotated[Path, typer.Option("--out", "-o", help="Tour folder.")] = Path("runs/tour"),
    study: Annotated[
        list[str] | None,
        typer.Option("--study", help="Run only this study (repeatable; default: every study)."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Run seed of every study.")] = 0,
    model_option: gen.ModelOptionOption = None,
) -> None:
    """Run the quick version of every study and write an index page linking the reports."""
    from gasp.backends import parse_model_spec
    from gasp.report import write_index
    from gasp.studies import study_names

    names = list(study or study_names())
    unknown = [n for n in names if n not in study_names()]
    if unknown:
        raise ConfigError(
            f"unknown study {unknown[0]!r}; the studies are: {', '.join(study_names())}"
        )
    parse_model_spec(model)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} exists and is not a folder")
    runs = {n: _study_run(n, model, out, seed, tuple(model_option or ())) for n in names}
    console = Console(stderr=True)
    console.print(f"gasp tour: {len(names)} studies on {model} -> {out}")
    entries: list[IndexEntry] = []
    for number, (name, run) in enumerate(runs.items(), start=1):
        console.rule(f"[bold]study {number}/{len(names)}: {name}")
        steps = [s for s in Step if s is not Step.probe or _has_probe(run.study_type)]
        start = time.perf_counter()
        outcome: StepsOutcome | None = None
        error = ""
        try:
            outcome = run_steps(run, steps, console)
        except GaspError as exc:
            error = str(exc)
            console.print(f"[red]{name} failed: {error}[/red]")
        entries.append(_entry(run, name, outcome, error, time.perf_counter() - start))
    total = sum(e.seconds for e in entries)
    index = write_index(
        entries,
        out,
        f"gasp tour on {model}",
        f"{len(entries)} {'study' if len(entries) == 1 else 'studies'}, {total / 60:.1f} min",
    )
    console.print(f"[bold]Index:[/bold] {index}")
    typer.echo(str(index))
    if any(e.status != "complete" for e in entries):
        raise typer.Exit(STUDY_FAILED_EXIT_CODE)


__all__ = ["tour_command"]
