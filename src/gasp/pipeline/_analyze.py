"""Analysing a run, or texts a user already has, and comparing analysed runs.

:func:`analyze_source` is ``gasp analyze`` and :func:`gasp.analyze`: it dispatches on
what it is given (a run folder or store: the study its manifest records; a table, a
DataFrame or another tool's log: the study named) and writes the results folder.
:func:`compare_runs` is the comparison of analysed runs of one study.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gasp.errors import ConfigError, DataError
from gasp.pipeline._analysis import analysis_options
from gasp.pipeline._checks import check_writable_folder
from gasp.pipeline._generation import OwnOptions, study_options
from gasp.pipeline._incomplete import generation_note, note_analysis
from gasp.pipeline._settings import check_settings, pop_study_flags
from gasp.pipeline._sources import analyze_texts, is_texts, study_of_texts, study_type_of_results

if TYPE_CHECKING:
    import pandas as pd

    from gasp.studies import StudyType


@dataclasses.dataclass(frozen=True)
class AnalysisOutcome:
    """Where an analysis wrote its results, for which study, and its summary lines."""

    study_type: StudyType
    results: Path
    lines: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class TextOptions:
    """How texts a user already has are read (tables and logs only)."""

    #: ``ROLE=NAME``: read the study's role ROLE from the column NAME.
    columns: Sequence[str] = ()
    #: ``COLUMN=VALUE``: keep the rows whose COLUMN is VALUE.
    where: Sequence[str] = ()
    #: Keep group labels outside the study's groups as new groups.
    allow_new_groups: bool = False
    #: The format when the file name does not tell it (``csv``, ``inspect``, ...).
    fmt: str | None = None

    def given(self) -> bool:
        """Whether any of these options was given."""
        return bool(self.columns or self.where or self.allow_new_groups)


def analyze_source(
    source: str | Path | pd.DataFrame,
    *,
    study: str | None = None,
    out: Path | None = None,
    own: OwnOptions = None,
    texts: TextOptions = TextOptions(),
    **analysis: Any,
) -> AnalysisOutcome:
    """Analyse ``source`` with its study's analysis into ``out`` (default: the run's
    results folder, or ``<file>.results`` beside a table). ``analysis`` holds the
    options of :func:`~gasp.pipeline.analysis_options`; those left unset take the
    values the run used, so re-analysing a run reproduces its results."""
    from gasp.io import locate_run, missing_input_line
    from gasp.store import damaged_store, read_manifest
    from gasp.studies import get_study_type, study_type_of_manifest

    path = Path(source) if isinstance(source, str | Path) else None
    frame = None if isinstance(source, str | Path) else source
    store = None
    if path is None:
        if study is None:
            raise ConfigError("a DataFrame of generations needs its study: give study=...")
        if out is None:
            raise ConfigError("give the results folder of a DataFrame's analysis (out=...)")
        study_type, results = get_study_type(study), out
    elif not path.exists():
        raise DataError(missing_input_line(str(source)))  # the name as typed
    elif is_texts(path, texts.fmt):
        study_type = study_of_texts(path, study, texts.fmt)
        results = out if out is not None else path.with_name(path.name + ".results")
    else:
        if texts.given():
            raise ConfigError("--column, --where and --allow-new-groups apply to tables only")
        paths = locate_run(path)
        if paths.store is None:
            raise DataError(f"no run store at {path}; give a run folder or a .sqlite run store")
        store = paths.store
        study_type = study_type_of_manifest(read_manifest(store) or {})
        if study is not None and study != study_type.name:
            raise ConfigError(f"{path} is a run of study {study_type.name!r}, not {study!r}")
        results = out if out is not None else paths.results
    flagged = pop_study_flags(analysis)
    check_settings(flagged)
    options = study_options(study_type, own) | flagged | analysis_options(**analysis)
    hint = f"write them elsewhere with `gasp analyze {path or 'TABLE'} --out DIR`"
    check_writable_folder(results, "results folder", hint)
    if store is None:
        if texts.allow_new_groups:
            options["allow_new_groups"] = True
        outcome = analyze_texts(
            frame if frame is not None else results_source(path),
            study_type,
            results,
            options,
            fmt=texts.fmt,
            columns=texts.columns,
            where=texts.where,
        )
    else:
        note = generation_note(store)
        try:
            outcome = study_type.analyze(store, results, options)
        except sqlite3.DatabaseError as exc:  # a damaged page, a store locked elsewhere
            raise damaged_store(store, exc) from None
        note_analysis(note, results)
    return AnalysisOutcome(study_type, results, tuple(outcome.get("lines", ())))


def results_source(path: Path | None) -> Path:
    """``path``, which a table's analysis always has (a DataFrame's aside)."""
    assert path is not None
    return path


def needs_scorecard(runs: Sequence[Path]) -> bool:
    """Whether ``runs`` are compared by a scorecard: one of them is not an analysed run
    (an audit folder), or they are runs of several studies."""
    from gasp.io import locate_run

    try:
        kinds = {study_type_of_results(locate_run(r).results).name for r in runs}
    except DataError:
        return True
    return len(kinds) > 1


def compare_runs(
    runs: Sequence[Path], out: Path, options: Mapping[str, Any]
) -> tuple[StudyType, tuple[str, ...]]:
    """Compare analysed runs of one study (for More of the Same: Table 14, Figure 4) into
    ``out`` with its report; the study and the summary lines."""
    from gasp.io import check_comparison_paths, locate_run

    if len(runs) < 2:
        raise ConfigError("give two or more runs to compare")
    check_comparison_paths(runs, out)
    kinds = {study_type_of_results(locate_run(r).results).name for r in runs}
    if len(kinds) > 1:
        raise ConfigError(
            "these runs are of several studies (" + ", ".join(sorted(kinds)) + "); compare "
            "runs of one study, or compare them as an audit (scorecard)"
        )
    study = study_type_of_results(locate_run(runs[0]).results)
    outcome = study.compare(list(runs), out, dict(options))
    return study, tuple(outcome.get("lines", ()))


__all__ = [
    "AnalysisOutcome",
    "TextOptions",
    "analyze_source",
    "compare_runs",
    "needs_scorecard",
]
