"""``gasp tour``: the quick audit of one model (by default the embedded one).

It is ``gasp audit --quick`` with a single model and no comparison: every study runs
its ``--quick`` settings in its own run folder ``<out>/<model>/<study>/`` through the
same steps as ``gasp run`` (the probe included), and ``<out>/index.html`` and
``<out>/scorecard.json`` are the audit's scorecard of that model: every headline metric
with its interval, each cell linking the study's report. Running the same command again
resumes every study's store and does not redo a finished run (``gasp audit --quick``
with more models on the same folder reuses them). A study that fails or that the model
cannot serve is listed on the page with its one-line reason, the others still run, and
the exit status is 1; an unknown model or study stops the tour before it starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gasp.cli import _generation_options as gen
from gasp.cli._app import app
from gasp.cli._names import OldStudyOption, StudiesOption, study_list

#: Exit status of ``gasp tour`` when some study did not finish.
STUDY_FAILED_EXIT_CODE = 1


@app.command("tour")
def tour_command(
    model: gen.ModelOption = gen.DEFAULT_MODEL,
    out: Annotated[Path, typer.Option("--out", "-o", help="Tour folder.")] = Path("runs/tour"),
    studies: StudiesOption = None,
    study: OldStudyOption = None,
    seed: Annotated[int, typer.Option(help="Run seed of every study.")] = 0,
    model_option: gen.ModelOptionOption = None,
) -> None:
    """Run the quick version of every study (the quick audit of one model) and write the
    scorecard page linking the reports."""
    import gasp

    card = gasp.tour(
        model,
        out=out,
        studies=study_list(studies, study) or None,
        seed=seed,
        model_options=list(model_option or ()),
        quiet=False,
    )
    typer.echo(str(out / "index.html"))
    if any(r["status"] != "complete" for r in card.runs):
        raise typer.Exit(STUDY_FAILED_EXIT_CODE)


__all__ = ["tour_command"]
