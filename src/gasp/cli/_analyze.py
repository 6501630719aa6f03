"""``gasp analyze`` and ``gasp compare``: analyse runs and compare them, by the study each
run recorded in its manifest."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from gasp.cli import _analysis_options as an
from gasp.cli import _generation_options as gen
from gasp.cli import _texts as tx
from gasp.cli._app import app
from gasp.cli._incomplete import generation_note, note_analysis
from gasp.cli._preflight import check_writable_folder
from gasp.cli._studies import study_type_of_results
from gasp.errors import ConfigError, DataError


@app.command()
def analyze(
    run: Annotated[
        Path,
        typer.Argument(
            help="The run to analyse: a run folder, a run store (.sqlite), or texts you "
            "already have: a table (.csv, .tsv, .parquet, .jsonl, .xlsx; give --study), an "
            "Inspect AI log (.eval), an lm-eval samples_*.jsonl or a saved datasets folder."
        ),
    ],
    study: Annotated[
        str | None,
        typer.Option(help="The study of a table of generations (runs record their own)."),
    ] = None,
    study_option: gen.StudyOptionOption = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Results folder (default: the run's results folder)."),
    ] = None,
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
    seed: Annotated[
        int | None, typer.Option(help="Seed of the resampling (default: the run's seed).")
    ] = None,
    examples_per_word: an.ExamplesPerWordOption = None,
    column: tx.ColumnOption = None,
    where: tx.WhereOption = None,
    allow_new_groups: tx.AllowNewGroupsOption = False,
    fmt: tx.FormatOption = None,
) -> None:
    """Analyse a run with its study's analysis; options left unset take the values
    ``gasp run`` uses for this run, so re-analysing a run reproduces its results."""
    from gasp.io import locate_run, missing_input_line
    from gasp.store import read_manifest
    from gasp.studies import study_type_of_manifest

    if not run.exists():
        raise DataError(missing_input_line(str(run)))
    texts = tx.is_texts(run, fmt)
    if texts:
        study_type = tx.study_of_texts(run, study, fmt)
        results = out if out is not None else run.with_name(run.name + ".results")
    else:
        if column or where or allow_new_groups:
            raise ConfigError("--column, --where and --allow-new-groups apply to tables only")
        paths = locate_run(run)
        if paths.store is None:
            raise DataError(f"no run store at {run}; give a run folder or a .sqlite run store")
        study_type = study_type_of_manifest(read_manifest(paths.store) or {})
        if study is not None and study != study_type.name:
            raise ConfigError(f"{run} is a run of study {study_type.name!r}, not {study!r}")
        results = out if out is not None else paths.results
    options = gen.study_options(study_type, study_option) | an.analysis_options(
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
    check_writable_folder(
        results, "results folder", f"write them elsewhere with `gasp analyze {run} --out DIR`"
    )
    if texts:
        if allow_new_groups:
            options["allow_new_groups"] = True
        outcome = tx.analyze_texts(
            run, study_type, results, options, fmt=fmt, columns=column or (), where=where or ()
        )
    else:
        assert paths.store is not None
        note = generation_note(paths.store)
        outcome = study_type.analyze(paths.store, results, options)
        note_analysis(note, results)
    console = Console()
    for line in outcome.get("lines", ()):
        console.print(line)


@app.command()
def compare(
    runs: Annotated[list[Path], typer.Argument(help="Two or more run stores or results folders.")],
    out: Annotated[
        Path,
        typer.Option(
            "--out", help="Folder for the comparison tables (its report goes to OUT/report)."
        ),
    ],
    label: Annotated[
        list[str] | None, typer.Option("--label", help="Name of each run, in order.")
    ] = None,
) -> None:
    """Compare analysed runs of one study (for More of the Same: Table 14, Figure 4) and draw
    the comparison report; audit folders, or runs of several studies, give the audit
    scorecard (scorecard.json and index.html in OUT)."""
    from gasp.cli._compare_scorecard import compare_scorecard, is_audit_folder
    from gasp.io import check_comparison_paths, locate_run

    if any(is_audit_folder(r) for r in runs):
        typer.echo(str(compare_scorecard(runs, out, label)))
        return
    check_comparison_paths(runs, out)
    kinds = {study_type_of_results(locate_run(r).results).name for r in runs}
    if len(kinds) > 1:  # across studies: the audit scorecard of the saved results
        typer.echo(str(compare_scorecard(runs, out, label)))
        return
    study = study_type_of_results(locate_run(runs[0]).results)
    outcome = study.compare(runs, out, {"labels": label or None})
    console = Console()
    for line in outcome.get("lines", ()):
        console.print(line)


__all__: list[str] = ["analyze", "compare"]
