"""``gasp audit``: every chosen study for every model, one scorecard, a gate for CI.

The command parses its options and hands the work to :mod:`gasp.cli._audit_run`,
imported when the command runs (so ``gasp --help`` stays fast).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gasp.cli import _generation_options as gen
from gasp.cli._app import app
from gasp.cli._names import StudiesOption, study_list
from gasp.errors import ConfigError


@app.command("audit")
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
        str | None, typer.Option(help="'worse': exit 3 when a comparison is significantly worse.")
    ] = None,
    margin: Annotated[
        list[str] | None, typer.Option(help="METRIC=VALUE: fail only beyond this difference.")
    ] = None,
    junit: Annotated[Path | None, typer.Option(help="Write a JUnit XML file here.")] = None,
    seed: Annotated[int, typer.Option(help="Run seed of every study and test.")] = 0,
    model_option: Annotated[
        list[str] | None, typer.Option(help="[MODEL:]KEY=VALUE backend option (repeatable).")
    ] = None,
    study_option: Annotated[
        list[str] | None, typer.Option(help="[STUDY:]KEY=VALUE study option (repeatable).")
    ] = None,
    max_concurrency: gen.MaxConcurrencyOption = gen.DEFAULT_MAX_CONCURRENCY,
) -> None:
    """Run every chosen study for every model and write a scorecard that tests every
    difference (exit 3 with --fail-on worse when one is significantly worse)."""
    from gasp.cli._audit_run import (
        STEP_FAILED_EXIT_CODE,
        AuditPlan,
        baseline_of,
        check_studies,
        execute,
        parse_margins,
        parse_models,
        scoped,
    )
    from gasp.pipeline import check_out_folder
    from gasp.studies import study_names

    models = parse_models(list(model or []), list(system_prompt_variant or []))
    names = study_list(studies) or list(study_names())
    check_studies(names)
    base = baseline_of(models, baseline)
    if fail_on not in (None, "worse"):
        raise ConfigError(f"--fail-on must be 'worse', got {fail_on!r}")
    if fail_on and base is None:
        raise ConfigError("--fail-on worse needs a --baseline")
    if not 0.0 < level < 1.0:
        raise ConfigError(f"--level must lie in (0, 1), got {level}")
    margins = parse_margins(list(margin or []))
    options = {
        "model": scoped(list(model_option or []), {m.name for m in models}, "--model-option"),
        "study": scoped(list(study_option or []), set(names), "--study-option"),
        "max_concurrency": max_concurrency,
    }
    check_out_folder(out)
    plan = AuditPlan(models, names, out, quick, seed, options, base, level)
    title = f"gasp audit: {len(models)} models x {len(names)} studies -> {out}"
    code, records = execute(plan, title, fail_on=fail_on, margins=margins, junit=junit)
    if code:
        raise typer.Exit(code)
    if any(r.status in {"failed", "incomplete"} for r in records):
        raise typer.Exit(STEP_FAILED_EXIT_CODE)


__all__ = ["audit_command"]
