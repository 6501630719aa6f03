"""``gasp audit``: every chosen study for every model, one scorecard, a gate for CI.

The command parses its options, calls :func:`gasp.audit` (or :func:`gasp.plan_audit`
with ``--plan``), imported when the command runs so that ``gasp --help`` stays fast,
and prints what the gate found.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gasp.cli._app import app
from gasp.cli._declared import with_settings
from gasp.cli._names import StudiesOption, study_list

if TYPE_CHECKING:
    from gasp import Scorecard


def print_gate(card: Scorecard) -> None:
    """The page, the failing comparisons and the runs the gate could not judge."""
    if card.folder is not None:
        typer.echo(str(card.folder / "index.html"))
    gate = card.gate
    if gate is None:
        return
    for row in gate.failing:
        typer.echo(
            f"worse: {row['study']} {row['metric']} {row['model']} vs {row['baseline']}: "
            f"{row['difference']:+.4g} ({row['quantity']}), q = {row['q_value']:.3g}"
        )
    for error in gate.errors:
        typer.echo(f"not judged: {error.line()}", err=True)


@app.command("audit")
@with_settings("runner", leave_out=("max_requests", "max_cost", "wait"))
def audit_command(
    model: Annotated[
        list[str] | None,
        typer.Option("--model", "-m", help="[NAME=]provider/model (repeatable)."),
    ] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Audit folder.")] = Path("runs/audit"),
    baseline: Annotated[
        str | None,
        typer.Option(help="The model every other is compared with (default: every pair)."),
    ] = None,
    studies: StudiesOption = None,
    system_prompt_variant: Annotated[
        list[str] | None,
        typer.Option(help="NAME=TEXT: the first model with this system prompt (repeatable)."),
    ] = None,
    quick: Annotated[bool, typer.Option("--quick", help="Every study's reduced run.")] = False,
    level: Annotated[float, typer.Option(help="False discovery rate of the scorecard.")] = 0.05,
    fail_on: Annotated[
        str | None,
        typer.Option(
            help="'worse': exit 3 when a comparison is significantly worse, 1 when a chosen "
            "study of a model was not served, failed or could not be compared."
        ),
    ] = None,
    margin: Annotated[
        list[str] | None, typer.Option(help="METRIC=VALUE: fail only beyond this difference.")
    ] = None,
    junit: Annotated[Path | None, typer.Option(help="Write a JUnit XML file here.")] = None,
    seed: Annotated[int, typer.Option(help="Run seed of every study and test.")] = 0,
    model_option: Annotated[
        list[str] | None,
        typer.Option(
            help="[MODEL:]KEY=VALUE backend option (repeatable); MODEL:base_url=URL and "
            "MODEL:api_key_env=VAR give one model its server and key, MODEL:run_seed=N its "
            "own run seed."
        ),
    ] = None,
    study_option: Annotated[
        list[str] | None, typer.Option(help="[STUDY:]KEY=VALUE study option (repeatable).")
    ] = None,
    redo: Annotated[
        list[str] | None,
        typer.Option(help="STUDY or 'all': run it again from scratch (repeatable)."),
    ] = None,
    plan: Annotated[
        bool,
        typer.Option(
            "--plan",
            help="Print the plan (units, detectable differences, requests, tokens, time) "
            "and stop; a local engine is timed on a few requests, nothing is stored.",
        ),
    ] = False,
    detect: Annotated[
        list[str] | None,
        typer.Option(
            help="STUDY:METRIC=DELTA: size the study so DELTA is found with 80% power (repeatable)."
        ),
    ] = None,
    request_budget: Annotated[
        int | None,
        typer.Option(
            "--request-budget",
            "--max-requests",
            help="Refuse a plan that needs more requests than this (--max-requests: its old name).",
        ),
    ] = None,
    cost_budget: Annotated[
        float | None,
        typer.Option(
            "--cost-budget",
            "--max-cost",
            help="Refuse a plan that may cost more USD than this (--max-cost: its old name).",
        ),
    ] = None,
    request_rate: Annotated[
        float, typer.Option(help="Requests per second a server answers, for the plan's time.")
    ] = 1.0,
    **settings: Any,
) -> None:
    """Run every chosen study for every model and write a scorecard that tests every
    difference (exit 3 with --fail-on worse when one is significantly worse)."""
    import gasp

    names = study_list(studies) if studies is not None else None
    options: dict[str, Any] = {
        "system_prompt_variants": list(system_prompt_variant or []), "quick": quick,
        "seed": seed, "model_options": list(model_option or []),
        "study_options": list(study_option or []),
        "base_urls": list(settings.pop("base_urls") or []), **settings,
        "margins": list(margin or []), "redo": list(redo or []), "detect": list(detect or []),
        "request_budget": request_budget, "cost_budget": cost_budget, "request_rate": request_rate,
    }  # fmt: skip
    models = list(model or [])
    if plan:
        planned = gasp.plan_audit(models, names, baseline, out=out, level=level, **options)
        for line in planned.lines():
            typer.echo(line)
        return
    card = gasp.audit(
        models,
        names,
        baseline,
        out=out,
        level=level,
        fail_on=fail_on,
        junit=junit,
        quiet=False,
        **options,
    )
    print_gate(card)
    if card.exit_status:
        raise typer.Exit(card.exit_status)


__all__ = ["audit_command", "print_gate"]
