"""``gasp run``: generate, analyze, probe and report a study in one run folder.

The command parses its options into :func:`gasp.pipeline.prepare_run` (every check
before anything is printed) and :func:`gasp.pipeline.execute_run`, then prints the
report's path. Its options are grouped in panels: those of every study, those of
More of the Same only, and those some studies read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gasp.cli import _analysis_options as an
from gasp.cli import _generation_options as gen
from gasp.cli._app import app

#: Exit status of ``gasp run`` when a step did not finish (failed samples, a failed probe).
STEP_FAILED_EXIT_CODE = 1

MOTS, SOME = gen.MOTS_PANEL, gen.SOME_PANEL


@app.command("run")
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
    occupations: gen.OccupationsOption = None,
    occupations_file: gen.OccupationsFileOption = None,
    n: gen.NOption = None,
    templates: gen.TemplatesOption = None,
    conditions: gen.ConditionsOption = None,
    cap_factor: gen.CapFactorOption = None,
    study_option: gen.StudyOptionOption = None,
    max_tokens: gen.MaxTokensOption = None,
    temperature: gen.TemperatureOption = None,
    top_p: gen.TopPOption = None,
    seed: Annotated[int, typer.Option(help="Run seed (generation, bootstrap, probe).")] = 0,
    max_concurrency: gen.MaxConcurrencyOption = gen.DEFAULT_MAX_CONCURRENCY,
    base_url: gen.BaseUrlOption = None,
    api_key_env: gen.ApiKeyEnvOption = None,
    max_requests: gen.MaxRequestsOption = None,
    max_cost: gen.MaxCostOption = None,
    model_option: gen.ModelOptionOption = None,
    batch: gen.BatchOption = False,
    wait: gen.WaitOption = False,
    min_samples: an.MinSamplesOption = None,
    min_share: an.MinShareOption = None,
    per_template: an.PerTemplateOption = False,
    threshold: an.ThresholdOption = None,
    fdr: an.LevelOption = None,
    fdr_scope: an.FdrScopeOption = None,
    plain: an.PlainOption = False,
    embeddings: an.EmbeddingsOption = None,
    bootstrap: an.BootstrapOption = None,
    permutations: an.PermutationsOption = None,
    probe_embeddings: Annotated[
        str,
        typer.Option(
            help="Embeddings of the probe's clustering (minilm, glove, a file).",
            rich_help_panel=MOTS,
        ),
    ] = "minilm",
    k_rule: Annotated[
        str | None,
        typer.Option(
            help="How the probe chooses k: max (largest silhouette, default), paper (the "
            "paper's largest fall) or stability.",
            rich_help_panel=MOTS,
        ),
    ] = None,
    n_init: Annotated[
        int | None,
        typer.Option(help="k-means++ runs per k in the probe (default 5).", rich_help_panel=MOTS),
    ] = None,
    examples_per_word: an.ExamplesPerWordOption = None,
    skip: Annotated[
        list[str] | None,
        typer.Option(
            "--skip",
            help="Skip a step: generate, analyze, probe or report (repeatable); its stored "
            "output is used.",
        ),
    ] = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet", "-q", help="No banner, step titles, progress bars or tables (errors show)."
        ),
    ] = False,
) -> None:
    """Generate, analyze, probe and report a study in one run folder; print the report path."""
    import gasp

    given = {
        "examples_per_word": examples_per_word, "occupations": occupations,
        "occupations_file": occupations_file, "n": n, "templates": templates,
        "conditions": conditions, "cap_factor": cap_factor, "max_tokens": max_tokens,
        "temperature": temperature, "top_p": top_p, "max_concurrency": max_concurrency,
        "base_urls": base_url, "api_key_env": api_key_env, "max_requests": max_requests,
        "max_cost": max_cost, "batch": batch, "wait": wait, "min_samples": min_samples,
        "min_share": min_share, "per_template": per_template, "threshold": threshold,
        "fdr_scope": fdr_scope, "plain": plain, "embeddings": embeddings,
        "bootstrap": bootstrap, "permutations": permutations, "k_rule": k_rule, "n_init": n_init,
    }  # fmt: skip
    result = gasp.run(
        study, model, out=out, quick=quick, seed=seed, level=fdr, skip=skip or (),
        study_options=study_option or None, model_options=model_option or None, quiet=quiet,
        probe_embeddings=probe_embeddings,
        **{k: v for k, v in given.items() if v is not None},
    )  # fmt: skip
    if result.report is not None:
        typer.echo(str(result.report))
    if not result.ok:
        raise typer.Exit(STEP_FAILED_EXIT_CODE)


__all__ = ["run_command"]
