"""``gasp run``: generate, analyze, probe and report in one go; ``gasp report``: re-render.

``gasp run`` keeps everything of a run in one folder (``--out``): the run store
``run.sqlite``, the analysis ``results/`` (one CSV per table) and the ``report/``
(``report.html`` with its CSV tables and PNG/SVG figures). Every step can be
skipped (``--skip``) and re-run: generation resumes the store, the other steps
recompute from it. ``gasp report RUN`` re-renders the report from the saved results
without calling any model.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from rich.console import Console

from gasp.analysis import AnalysisConfig, AuditResults, analyze_run
from gasp.cli import _generation_options as gen
from gasp.cli._app import app
from gasp.errors import ConfigError, DataError, GaspError
from gasp.report import ReportOptions
from gasp.report._run_report import RunPaths, render_run_report, run_folder_paths
from gasp.runner import RunOptions, generate, summary_table
from gasp.studies import Study

T = TypeVar("T")


class Step(StrEnum):
    """The steps of ``gasp run``."""

    generate = "generate"
    analyze = "analyze"
    probe = "probe"
    report = "report"


@dataclasses.dataclass(frozen=True)
class QuickPreset:
    """The reduced More of the Same run of ``gasp run --quick``.

    Sized for the embedded SmolLM2 model on a 2-core CPU (about 90 tokens/s at batch
    16): 3 occupations, both templates, the four conditions, ``n`` samples per named
    cell and per associated gender, unspecified cells capped at ``cap_factor`` x n.
    """

    occupations: tuple[str, ...] = ("nurse", "engineer", "software engineer")
    n: int = 8
    max_tokens: int = 80
    cap_factor: int = 3
    probe_k: int | None = None


QUICK = QuickPreset()


def quick_study(study: str = "more-of-the-same", preset: QuickPreset = QUICK) -> Study:
    """The study ``gasp run --quick`` generates."""
    options = gen.GenerationOptions(
        study=study,
        occupations=",".join(preset.occupations),
        n=preset.n,
        cap_factor=preset.cap_factor,
    )
    return options.build_study()


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-") or "run"


def _timed(console: Console, index: int, total: int, title: str, fn: Callable[[], T]) -> T:
    console.rule(f"[bold]{index}/{total} {title}")
    start = time.perf_counter()
    result = fn()
    console.print(f"[green]done[/green] {title.lower()} in {time.perf_counter() - start:.1f} s")
    return result


def _generate(
    paths: RunPaths, study: Study, model: str, options: RunOptions, console: Console
) -> None:
    summary = generate(study, model, paths.store, options, console=console)
    console.print(summary_table(summary))
    if summary.stopped:
        raise DataError(f"generation stopped ({summary.stopped}); run the same command to continue")
    if not summary.complete:
        console.print(
            f"[yellow]{summary.failed} sample(s) failed after retries; the analysis uses the "
            "others (run the same command again to retry them)[/yellow]"
        )


def _analyze(paths: RunPaths, config: AnalysisConfig, console: Console) -> None:
    if paths.store is None or not paths.store.is_file():
        raise DataError(f"no run store at {paths.store}; run the generate step first")
    results = analyze_run(paths.store, config)
    results.save(paths.results)
    n_marked = len(results.tables.get("marked_words", []))
    console.print(
        f"analysed {results.meta.get('n_valid', '?')} generations of "
        f"{results.meta.get('n_subjects', '?')} occupation(s); {n_marked} significant word rows; "
        f"results in {paths.results}"
    )


def _probe(paths: RunPaths, embeddings: str, k: int | None, seed: int, console: Console) -> None:
    results = AuditResults.load(paths.results)
    try:
        from gasp.probe._audit import add_probe_tables
    except ImportError:  # the probe is an optional part of the package
        console.print("[yellow]probe not available; skipped[/yellow]")
        return
    try:
        result = add_probe_tables(results, embeddings=embeddings, k=k, seed=seed)
    except GaspError as exc:
        console.print(f"[yellow]probe skipped: {exc}[/yellow]")
        return
    results.save(paths.results)
    kept = result.kept_clusters()
    console.print(f"{result.k} clusters; {kept['cluster'].nunique()} kept (Figure 5)")


@app.command("run")
def run_command(
    study: gen.StudyArgument = gen.DEFAULT_STUDY,
    model: gen.ModelOption = gen.DEFAULT_MODEL,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Run folder (default runs/<study>-<model>).")
    ] = None,
    quick: Annotated[
        bool,
        typer.Option(
            "--quick",
            help=f"Reduced run: {len(QUICK.occupations)} occupations, n={QUICK.n}, "
            f"max {QUICK.max_tokens} tokens (explicit options override).",
        ),
    ] = False,
    occupations: gen.OccupationsOption = None,
    occupations_file: gen.OccupationsFileOption = None,
    n: gen.NOption = None,
    templates: gen.TemplatesOption = None,
    conditions: gen.ConditionsOption = None,
    cap_factor: Annotated[
        int | None, typer.Option(help="Stop an unspecified cell at this many times n samples.")
    ] = None,
    max_tokens: Annotated[int | None, typer.Option(help="Most tokens per answer.")] = None,
    temperature: gen.TemperatureOption = 1.0,
    top_p: gen.TopPOption = 1.0,
    seed: Annotated[int, typer.Option(help="Run seed (generation, bootstrap, probe).")] = 0,
    max_concurrency: gen.MaxConcurrencyOption = 16,
    base_url: gen.BaseUrlOption = None,
    api_key_env: gen.ApiKeyEnvOption = None,
    max_requests: gen.MaxRequestsOption = None,
    max_cost: gen.MaxCostOption = None,
    min_samples: Annotated[
        int | None,
        typer.Option(help="Generations per associated gender an occupation needs (default n)."),
    ] = None,
    bootstrap: Annotated[
        int, typer.Option(help="Bootstrap resamples of each SRB interval (0: none).")
    ] = AnalysisConfig.n_bootstrap,
    permutations: Annotated[
        int, typer.Option(help="Label shuffles of the permutation test (0: none).")
    ] = AnalysisConfig.n_permutations,
    probe_embeddings: Annotated[
        str, typer.Option(help="Embeddings of the probe's clustering (minilm, glove, a file).")
    ] = "minilm",
    examples_per_word: Annotated[
        int, typer.Option(help="Example generations kept per significant word in the report.")
    ] = 50,
    skip: Annotated[
        list[Step] | None,
        typer.Option("--skip", help="Skip a step (repeatable); its stored output is used."),
    ] = None,
) -> None:
    """Generate, analyze, probe and report a study in one run folder; print the report path."""
    skipped = set(skip or [])
    if quick:
        occupations = occupations or ",".join(QUICK.occupations)
        n = n if n is not None else QUICK.n
        max_tokens = max_tokens if max_tokens is not None else QUICK.max_tokens
        cap_factor = cap_factor if cap_factor is not None else QUICK.cap_factor
    if max_tokens is None:
        max_tokens = gen.DEFAULT_MAX_TOKENS
    generation = gen.GenerationOptions.from_values(locals())
    if examples_per_word < 1:
        raise ConfigError(f"--examples-per-word must be at least 1, got {examples_per_word}")
    if out is None:
        name = f"{'quick-' if quick else ''}{_slug(Path(study).stem)}-{_slug(model)}"
        out = Path("runs") / name
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} exists and is not a folder")
    paths = run_folder_paths(out)
    console = Console(stderr=True)
    steps = [s for s in Step if s not in skipped]
    total = len(steps)
    console.print(f"gasp run: {study} on {model} -> {out} (steps: {', '.join(steps) or 'none'})")
    index = 0
    if Step.generate in steps:
        index += 1
        options = generation.run_options(progress=True)
        spec = generation.build_study()
        _timed(
            console,
            index,
            total,
            "Generate",
            lambda: _generate(paths, spec, model, options, console),
        )
    if Step.analyze in steps:
        index += 1
        threshold = min_samples if min_samples is not None else _study_n(paths, n)
        config = AnalysisConfig(
            min_samples=threshold,
            n_bootstrap=bootstrap,
            n_permutations=permutations,
            seed=seed,
        )
        _timed(console, index, total, "Analyze", lambda: _analyze(paths, config, console))
    if Step.probe in steps:
        index += 1
        _timed(
            console,
            index,
            total,
            "Probe",
            lambda: _probe(
                paths, probe_embeddings, QUICK.probe_k if quick else None, seed, console
            ),
        )
    if Step.report in steps:
        index += 1
        opts = ReportOptions(examples_per_word=examples_per_word, examples_seed=seed)
        report = _timed(
            console, index, total, "Report", lambda: render_run_report(out, paths.report, opts)
        )
        console.print(f"[bold]Report:[/bold] {report}")
        typer.echo(str(report))


def _study_n(paths: RunPaths, n: int | None) -> int:
    """The sampling threshold: ``--n``, else the n of the study stored in the run."""
    if n is not None:
        return n
    if paths.store is not None and paths.store.is_file():
        from gasp.store import RunStore

        with RunStore.open(paths.store) as store:
            if store.has_manifest():
                return int(store.study().n)
    return AnalysisConfig().min_samples


@app.command("report")
def report_command(
    run: Annotated[
        Path,
        typer.Argument(
            help="A run folder (gasp run), a run store (.sqlite) or a results folder "
            "(an audit or a comparison)."
        ),
    ],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Report folder (default: the run's).")
    ] = None,
    examples_per_word: Annotated[
        int, typer.Option(help="Example generations kept per significant word.")
    ] = 50,
    seed: Annotated[int, typer.Option(help="Seed choosing which examples are kept.")] = 0,
) -> None:
    """Re-render the HTML report of a run from its saved results (no model is called)."""
    if examples_per_word < 1:
        raise ConfigError(f"--examples-per-word must be at least 1, got {examples_per_word}")
    opts = ReportOptions(examples_per_word=examples_per_word, examples_seed=seed)
    path = render_run_report(run, out, opts)
    typer.echo(str(path))
