"""``gasp run``: generate, analyze, probe and report a study in one run folder.

The command calls :func:`gasp.run` and prints the report's path. Its flags besides the
study, the model and the run's own (out, quick, seed, skip, quiet, the study's and the
backend's options) are generated from the declared settings of a run
(``gasp.declared_settings``: the shape, decoding, runner, analysis and probe groups).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

import gasp
from gasp.cli import _generation_options as gen
from gasp.cli._app import app
from gasp.cli._declared import with_settings

#: Exit status of ``gasp run`` when a step did not finish (failed samples, a failed probe).
STEP_FAILED_EXIT_CODE = 1


@app.command("run")
@with_settings("shape", "decoding", "runner", "analysis", "probe")
def run_command(
    study: gen.StudyArgument = gen.DEFAULT_STUDY,
    model: gen.ModelOption = gen.DEFAULT_MODEL,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Run folder (default runs/<study>-<model>)."),
    ] = None,
    quick: Annotated[
        bool,
        typer.Option("--quick", help="The study's reduced run (explicit options override)."),
    ] = False,
    seed: Annotated[int, typer.Option(help="Run seed (generation, bootstrap, probe).")] = 0,
    study_option: Annotated[
        list[str] | None,
        typer.Option(
            "--study-option",
            help="The study's own option KEY=VALUE (repeatable; `gasp studies` lists them).",
        ),
    ] = None,
    model_option: Annotated[
        list[str] | None,
        typer.Option(
            "--model-option",
            help="Backend option KEY=VALUE (repeatable), e.g. device=cuda, batch_size=8.",
        ),
    ] = None,
    skip: Annotated[
        list[gasp.Step] | None,
        typer.Option("--skip", help="Skip a step (repeatable); its stored output is used."),
    ] = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet", "-q", help="No banner, step titles, progress bars or tables (errors show)."
        ),
    ] = False,
    **settings: Any,
) -> None:
    """Generate, analyze, probe and report a study in one run folder; print the report path."""
    given = {k: v for k, v in settings.items() if v is not None}
    result = gasp.run(
        study, model, out=out, quick=quick, seed=seed, skip=skip or (),
        study_options=study_option or None, model_options=model_option or None, quiet=quiet,
        **given,
    )  # fmt: skip
    if result.report is not None:
        typer.echo(str(result.report))
    if not result.ok:
        raise typer.Exit(STEP_FAILED_EXIT_CODE)


__all__ = ["run_command"]
