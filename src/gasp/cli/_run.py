"""``gasp run``: generate, analyze, probe and report a study in one run folder.

``gasp run`` keeps everything of a run in one folder (``--out``): the run store
``run.sqlite``, the analysis ``results/`` and the ``report/``. Every step can be
skipped (``--skip``) and re-run: generation resumes the store, the other steps
recompute from it. The study's registered type does the study-specific steps.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from gasp.cli import _analysis_options as an
from gasp.cli import _generation_options as gen
from gasp.cli._app import app
from gasp.cli._preflight import check_out_folder, check_run
from gasp.cli._steps import Step, StudyRun, run_steps
from gasp.errors import ConfigError

#: Exit status of ``gasp run`` when a step did not finish (failed samples, a failed probe).
STEP_FAILED_EXIT_CODE = 1


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-") or "run"


def _remove_if_empty(folder: Path) -> None:
    with contextlib.suppress(OSError):
        folder.rmdir()


@app.command("run")
def run_command(
    study: gen.StudyArgument = gen.DEFAULT_STUDY,
    model: gen.ModelOption = gen.DEFAULT_MODEL,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Run folder (default runs/<study>-<model>).")
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
    fdr: an.FdrOption = None,
    fdr_scope: an.FdrScopeOption = None,
    plain: an.PlainOption = False,
    embeddings: an.EmbeddingsOption = None,
    bootstrap: an.BootstrapOption = None,
    permutations: an.PermutationsOption = None,
    probe_embeddings: Annotated[
        str, typer.Option(help="Embeddings of the probe's clustering (minilm, glove, a file).")
    ] = "minilm",
    k_rule: Annotated[
        str | None,
        typer.Option(
            help="How the probe chooses k: max (largest silhouette, default), paper (the "
            "paper's largest fall) or stability."
        ),
    ] = None,
    n_init: Annotated[
        int | None, typer.Option(help="k-means++ runs per k in the probe (default 5).")
    ] = None,
    examples_per_word: Annotated[
        int, typer.Option(help="Example generations kept per significant word in the report.")
    ] = 50,
    skip: Annotated[
        list[Step] | None,
        typer.Option("--skip", help="Skip a step (repeatable); its stored output is used."),
    ] = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet", "-q", help="No banner, step titles, progress bars or tables (errors show)."
        ),
    ] = False,
) -> None:
    """Generate, analyze, probe and report a study in one run folder; print the report path."""
    from gasp.embeddings import check_embeddings
    from gasp.io import run_folder_paths
    from gasp.runner import check_batch_model

    if examples_per_word < 1:
        raise ConfigError(f"--examples-per-word must be at least 1, got {examples_per_word}")
    flags = {
        "occupations": occupations,
        "occupations_file": occupations_file,
        "n": n,
        "templates": templates,
        "conditions": conditions,
        "cap_factor": cap_factor,
    }
    selection, own, quick_max_tokens = gen.select_study(study, flags, study_option, quick=quick)
    study_type = selection.study_type
    generation = gen.GenerationOptions.for_study(
        selection,
        max_tokens=max_tokens if max_tokens is not None else quick_max_tokens,
        temperature=temperature,
        top_p=top_p,
        seed=seed,
        max_concurrency=max_concurrency,
        base_urls=tuple(base_url or ()),
        api_key_env=api_key_env,
        max_requests=max_requests,
        max_cost=max_cost,
        model_options=tuple(model_option or ()),
        batch=batch,
        wait=wait,
    )
    if batch:
        check_batch_model(model)  # before any step starts
    analysis = own | an.analysis_options(
        min_samples=min_samples,
        min_share=min_share,
        per_template=per_template,
        threshold=threshold,
        fdr=fdr,
        fdr_scope=fdr_scope,
        plain=plain,
        embeddings=embeddings,
        bootstrap=bootstrap,
        permutations=permutations,
        seed=seed,
        examples_per_word=examples_per_word,
    )
    check_embeddings(probe_embeddings)
    probe = own | {"embeddings": probe_embeddings, "seed": seed}
    clustering: dict[str, Any] = {
        key: value for key, value in (("k_rule", k_rule), ("n_init", n_init)) if value
    }
    if clustering:
        from gasp.probe import ClusteringConfig

        ClusteringConfig(**clustering)  # a bad value is one error line before any step
    probe |= clustering
    report = own | {"examples_per_word": examples_per_word}
    if out is None:
        name = f"{'quick-' if quick else ''}{_slug(Path(study).stem)}-{_slug(model)}"
        out = Path("runs") / name
    check_out_folder(out)
    paths = run_folder_paths(out)
    skipped = set(skip or [])
    steps = [s for s in Step if s not in skipped]
    run = StudyRun(study_type, model, paths, generation, analysis, probe, report, quiet=quiet)
    check_run(run, steps, out)  # every check first: a mistake prints one line, nothing else
    console = Console(stderr=True, quiet=quiet)
    from gasp.store import store_lock

    # One run per folder: the folder is locked before anything is printed, for every
    # step; a folder made only for the lock goes again when the run stores nothing.
    with contextlib.ExitStack() as held:
        if Step.generate in steps and paths.store is not None:
            if not out.exists():
                held.callback(_remove_if_empty, out)
            held.enter_context(
                store_lock(
                    paths.store,
                    wait=wait,
                    on_wait=lambda h: console.print(f"waiting for {h.describe()} to finish"),
                )
            )
        console.print(
            f"gasp run: {study} on {model} -> {out} (steps: {', '.join(steps) or 'none'})"
        )
        outcome = run_steps(run, steps, console)
    if outcome.report is not None:
        typer.echo(str(outcome.report))
    if not outcome.ok:
        raise typer.Exit(STEP_FAILED_EXIT_CODE)


__all__ = ["Step", "run_command"]
