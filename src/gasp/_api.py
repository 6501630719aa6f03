"""The public Python API: :func:`run`, :func:`analyze` and :func:`compare`.

Each is what the command of the same name does (the same folders, the same checks
and refusals before anything is written), returning a
:class:`~gasp.pipeline.RunResult` instead of printing. ``gasp`` imports this module
on first use, so ``import gasp`` stays fast.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from gasp.auditing import Scorecard
    from gasp.pipeline import RunResult, Step


def run(
    study: str,
    model: str = "embedded",
    *,
    out: str | Path | None = None,
    quick: bool = False,
    skip: Iterable[Step | str] = (),
    seed: int = 0,
    study_options: Mapping[str, Any] | None = None,
    probe_embeddings: str = "minilm",
    k_rule: str | None = None,
    n_init: int | None = None,
    quiet: bool = True,
    **options: Any,
) -> RunResult:
    """Generate, analyze, probe (where the study has a probe) and report ``study`` on
    ``model`` in the run folder ``out`` (default ``runs/<study>-<model>``), as ``gasp
    run`` does; a second call with the same settings resumes the run.

    ``options`` are ``gasp run``'s options by their Python names (``n``,
    ``occupations``, ``max_tokens``, ``temperature``, ``max_concurrency``,
    ``base_urls``, ``model_options`` (a mapping), ``fdr``, ``bootstrap``,
    ``examples_per_word``, ...); ``study_options`` the study's own (``gasp studies``
    lists them). A setting that is wrong raises :class:`~gasp.errors.GaspError`
    before anything is written. ``quiet=False`` shows the steps and progress bars.
    """
    from rich.console import Console

    from gasp.pipeline import ProbeSettings, RunResult, execute_run, prepare_run

    if "model_options" in options and isinstance(options["model_options"], str):
        options["model_options"] = (options["model_options"],)
    prepared = prepare_run(
        study,
        model,
        out,
        quick=quick,
        skip=skip,
        seed=seed,
        study_options=dict(study_options or {}),
        probe=ProbeSettings(probe_embeddings, k_rule, n_init),
        quiet=quiet,
        **options,
    )
    outcome = execute_run(prepared, Console(stderr=True, quiet=quiet))
    return RunResult(
        study=prepared.run.study_type.name,
        results_dir=prepared.run.paths.results,
        model=model,
        folder=prepared.out,
        report=outcome.report,
        ok=outcome.ok,
        lines=tuple(outcome.lines),
    )


def analyze(
    source: str | Path | pd.DataFrame,
    *,
    study: str | None = None,
    out: str | Path | None = None,
    study_options: Mapping[str, Any] | None = None,
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
    ``where`` keeps the rows whose column has one of the values given; ``options``
    are the analysis options (``fdr``, ``bootstrap``, ``seed``, ...). Results go to
    ``out`` (default: the run's results folder, or ``<file>.results``).
    """
    from gasp.pipeline import RunResult, TextOptions, analyze_source

    pairs = [f"{role}={name}" for role, name in (columns or {}).items()]
    rows = [
        f"{column}={value}"
        for column, values in (where or {}).items()
        for value in ([values] if isinstance(values, str) else values)
    ]
    outcome = analyze_source(
        source,
        study=study,
        out=None if out is None else Path(out),
        own=dict(study_options or {}),
        texts=TextOptions(pairs, rows, allow_new_groups, fmt),
        **options,
    )
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
) -> Any:
    """Compare analysed runs into ``out``, as ``gasp compare`` does.

    Runs of one study give the study's comparison and its report (for More of the
    Same: Table 14, Figure 4), returned as a :class:`~gasp.pipeline.RunResult`;
    ``labels`` name the runs in order. Audit folders, or runs of several studies, give
    the audit's scorecard (``gasp.auditing.compare_folders``) at significance ``level``
    (default: the level the audit folders record, else the audit's default), returned
    as its ``Scorecard``.
    """
    import importlib

    from gasp.errors import ConfigError
    from gasp.pipeline import RunResult, compare_runs, needs_scorecard

    folders, folder = [Path(p) for p in paths], Path(out)
    if needs_scorecard(folders):
        audit = importlib.import_module("gasp.auditing")
        compare_folders = getattr(audit, "compare_folders", None)
        if compare_folders is None:
            raise ConfigError("comparing audit folders or several studies needs gasp compare")
        return compare_folders(folders, folder, labels, level)
    if level is not None:
        raise ConfigError("--level applies to a scorecard (audit folders or several studies)")
    study, lines = compare_runs(folders, folder, {"labels": list(labels) if labels else None})
    report = _report_file(folder / "report")
    return RunResult(
        study=study.name, results_dir=folder, folder=folder, report=report, lines=lines
    )


def audit(
    models: Sequence[str] | str,
    studies: Sequence[str] | str | None = None,
    baseline: str | None = None,
    out: str | Path = "runs/audit",
    level: float = 0.05,
    **options: Any,
) -> Scorecard:
    """Audit ``models`` on ``studies`` against ``baseline`` in the folder ``out``, as
    ``gasp audit`` does (:func:`gasp.auditing.run_audit`), and return its scorecard."""
    from gasp.auditing import run_audit

    return run_audit(models, studies, baseline, out, level, **options)


def _report_file(folder: Path) -> Path | None:
    from gasp.report import REPORT_FILE

    path = folder / REPORT_FILE
    return path if path.is_file() else None


__all__ = ["analyze", "audit", "compare", "run"]
