"""What an analysis reads: a run, or texts a user already has (a table (CSV, TSV,
Parquet, JSON Lines, Excel), an Inspect AI log, an lm-eval sample file or a saved
``datasets`` folder), and the study that produced a results folder."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gasp.errors import ConfigError, DataError

if TYPE_CHECKING:
    import pandas as pd

    from gasp.studies import StudyType

_STORE_SUFFIXES = {".sqlite", ".sqlite3", ".db"}


def is_texts(path: Path, fmt: str | None) -> bool:
    """Whether ``path`` holds a user's texts rather than a gasp run."""
    from gasp.io import STORE_FILE
    from gasp.results import INDEX_FILE

    if fmt is not None:
        return True
    if path.is_file():
        return path.suffix.lower() not in _STORE_SUFFIXES
    if path.is_dir():
        gasp_run = (path / STORE_FILE).is_file() or (path / INDEX_FILE).is_file()
        return not gasp_run and not (path / "results").is_dir()
    return False


def study_of_texts(path: Path, study: str | None, fmt: str | None) -> StudyType:
    """The study named, or the one of an Inspect log's task (``gasp/<study>``)."""
    from gasp.io import INSPECT, format_of_source, inspect_task
    from gasp.studies import get_study_type, study_names

    found = fmt or format_of_source(path)
    if study is None and found == INSPECT:
        task = inspect_task(path).split("/")[-1].replace("_", "-")
        if task not in study_names():
            raise ConfigError(
                f"{path} is a log of Inspect task {task!r}: name its study with --study"
            )
        return get_study_type(task)
    if study is None:
        raise ConfigError(f"{path} is a table of generations: name its study with --study")
    return get_study_type(study)


def analyze_texts(
    source: Path | pd.DataFrame,
    study_type: StudyType,
    results: Path,
    options: Mapping[str, Any],
    *,
    fmt: str | None,
    columns: Sequence[str],
    where: Sequence[str],
) -> Mapping[str, Any]:
    """Read the texts (a file, or a DataFrame) with the study's roles and analyse them
    into ``results``. ``columns`` are ``ROLE=NAME`` and ``where`` ``COLUMN=VALUE`` texts."""
    from gasp.io import column_mapping, parse_assignments, read_texts, texts_from_frame

    roles = study_type.table_roles_for(options)
    if not roles:
        raise ConfigError(f"study {study_type.name!r} cannot analyse a table of generations")
    mapping = column_mapping(columns, roles)
    rows = parse_assignments(where, "--where")
    if isinstance(source, Path):
        texts = read_texts(source, roles, fmt=fmt, columns=mapping, where=rows)
    else:
        texts = texts_from_frame(
            source, roles, source="a DataFrame", fmt="dataframe", columns=mapping, where=rows
        )
    return study_type.analyze_texts(texts, results, options)


def study_type_of_results(results: Path) -> StudyType:
    """The study type that produced a results folder (recorded in ``results.json``)."""
    from gasp.results import INDEX_FILE, read_json_file
    from gasp.studies import DEFAULT_STUDY_KIND, get_study_type

    meta_file = results / INDEX_FILE
    missing = f"no saved results at {results}; run `gasp analyze` first"
    try:
        meta = read_json_file(meta_file, missing)
    except OSError as exc:
        raise DataError(f"cannot read {meta_file}: {exc.strerror or exc}") from None
    inner = meta.get("meta", meta)
    kind = inner.get("study_kind") if isinstance(inner, dict) else None
    return get_study_type(str(kind or DEFAULT_STUDY_KIND))


__all__ = ["analyze_texts", "is_texts", "study_of_texts", "study_type_of_results"]
