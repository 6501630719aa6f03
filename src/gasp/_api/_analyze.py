""":func:`analyze` and :func:`compare`: saved runs, tables and logs in, results out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from gasp._api._keywords import (
    in_python_words,
    refuse_unknown,
    renamed,
    require_bool,
    require_level,
    require_mapping,
    require_path,
    require_text,
    require_texts,
)
from gasp._api._run import study_option_values
from gasp.errors import ArgumentTypeError
from gasp.pipeline import RunResult, names_of

#: The analysis keywords of :func:`analyze` (``level`` for the FDR among them).
ANALYZE_KEYWORDS = (*names_of("analysis"), "seed")


def analyze(
    source: str | Path | pd.DataFrame,
    *,
    study: str | None = None,
    out: str | Path | None = None,
    level: float | None = None,
    study_options: Mapping[str, Any] | Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    where: Mapping[str, str | Sequence[str]] | None = None,
    allow_new_groups: bool = False,
    fmt: str | None = None,
    **options: Any,
) -> RunResult:
    """Analyse ``source`` with its study's analysis, as ``gasp analyze`` does: a run
    folder or run store (the study its manifest records), a table of generations
    (CSV, TSV, Parquet, JSON Lines, Excel), an Inspect AI log, an lm-eval samples
    file, a saved ``datasets`` folder or a pandas DataFrame (give ``study``; a
    DataFrame needs ``out`` too).

    ``columns`` maps the study's roles to your column names (``{"text": "story"}``),
    ``where`` keeps the rows whose column has one of the values given; ``level`` is the
    false discovery rate of the word tests; ``options`` are the other analysis settings
    (``bootstrap``, ``seed``, ``threshold``, ...). Results go to ``out`` (default: the
    run's results folder, or ``<file>.results``).

    Example:
        >>> import gasp
        >>> run = gasp.run("narratives", "mock/personas", out=folder / "stories", quick=True)
        >>> again = gasp.analyze(run.folder, out=folder / "reanalysed", bootstrap=0)
        >>> again.study, again.model
        ('narratives', 'mock/personas')
    """
    fn = "gasp.analyze"
    options = renamed(fn, dict(options), {"level": level})
    refuse_unknown(fn, options, ANALYZE_KEYWORDS)
    level = options.pop("level", level)
    if not isinstance(source, str | Path | pd.DataFrame):
        raise ArgumentTypeError(
            f"{fn}(): source must be a path or a pandas DataFrame, got {type(source).__name__}"
        )
    require_text(fn, "study", study, optional=True)
    folder = require_path(fn, "out", out)
    require_bool(fn, "allow_new_groups", allow_new_groups)
    require_text(fn, "fmt", fmt, optional=True)
    own = study_option_values(fn, study_options)
    roles = require_mapping(fn, "columns", columns)
    kept = require_mapping(fn, "where", where)
    options["fdr"] = require_level(fn, "level", level)
    if options.get("seed") is not None:
        from gasp._api._keywords import require_int

        require_int(fn, "seed", options["seed"], minimum=0, maximum=2**32 - 1)
    from gasp.pipeline import TextOptions, analyze_source

    pairs = [f"{role}={require_text(fn, 'columns', name)}" for role, name in roles.items()]
    rows = [
        f"{column}={value}"
        for column, values in kept.items()
        for value in require_texts(fn, "where", values)
    ]
    with in_python_words(fn):
        outcome = analyze_source(
            source, study=study, out=folder, own=own,
            texts=TextOptions(pairs, rows, allow_new_groups, fmt), **options,
        )  # fmt: skip
    return RunResult(
        study=outcome.study_type.name,
        results_dir=outcome.results,
        model=_model_of(outcome.results),
        lines=outcome.lines,
    )


def _model_of(results: Path) -> str | None:
    """The model recorded with saved results (None when none is)."""
    from gasp.errors import DataError
    from gasp.results import AuditResults

    try:
        value = AuditResults.load(results).meta.get("model_id")
    except DataError:
        return None
    return None if value is None else str(value)


def compare(
    paths: Sequence[str | Path],
    *,
    out: str | Path,
    labels: Sequence[str] | None = None,
    level: float | None = None,
) -> RunResult:
    """Compare analysed runs into ``out``, as ``gasp compare`` does, and test every
    difference of their headline metrics.

    ``out`` always receives the scorecard (``scorecard.json``, ``index.html``): each
    headline metric per run with its interval, each difference tested, one
    Benjamini-Hochberg correction at ``level`` (default: the level audit folders record,
    else 0.05). Runs of one study also get the study's own comparison tables and report
    (for More of the Same: Table 14, Figure 4). ``labels`` name the runs in order
    (default: their models, or their folders when two share a model). Audit folders and
    runs of several studies are compared by their scorecard only. The result's
    ``comparisons`` are the tested differences.

    Example:
        >>> import gasp
        >>> a = gasp.run("pronoun-pairs", "mock/personas", out=folder / "a", quick=True)
        >>> b = gasp.run("pronoun-pairs", "mock/personas", out=folder / "b", quick=True,
        ...              model_options={"female_share": 0.9})
        >>> compared = gasp.compare([a.folder, b.folder], out=folder / "a-vs-b")
        >>> "inconsistent" in set(compared.comparisons["metric"])
        True
    """
    fn = "gasp.compare"
    if isinstance(paths, str | Path) or not isinstance(paths, Sequence):
        raise ArgumentTypeError(f"{fn}(): paths must be a list of folders, got {paths!r}")
    folders = [require_path(fn, "paths", p, optional=False, folder=False) for p in paths]
    target = require_path(fn, "out", out, optional=False)
    names = require_texts(fn, "labels", labels) if labels is not None else None
    chosen = require_level(fn, "level", level)
    from gasp.auditing import compare_folders
    from gasp.pipeline import compare_runs, needs_scorecard

    assert target is not None
    runs = [p for p in folders if p is not None]
    with in_python_words(fn):
        if needs_scorecard(runs):
            card = compare_folders(runs, target, names, chosen)
            page = card.folder / "index.html" if card.folder else None
            return RunResult(study="scorecard", results_dir=target, folder=target, report=page)
        study, lines = compare_runs(runs, target, {"labels": names})
        compare_folders(runs, target, names or _run_labels(runs), chosen)
    report = target / "report" / "report.html"
    return RunResult(
        study=study.name, results_dir=target, folder=target,
        report=report if report.is_file() else None, lines=lines,
    )  # fmt: skip


def _run_labels(runs: Sequence[Path]) -> list[str] | None:
    """Labels for runs that share a model (their folder names, numbered where those
    repeat); None when the models tell the runs apart."""
    from gasp.auditing import model_of_run

    models = [model_of_run(r) for r in runs]
    if len(set(models)) == len(models):
        return None
    names = [r.resolve().name or "run" for r in runs]
    return [n if names.count(n) == 1 else f"{n}-{i + 1}" for i, n in enumerate(names)]


__all__ = ["ANALYZE_KEYWORDS", "analyze", "compare"]
