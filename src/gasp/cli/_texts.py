"""``gasp analyze`` on texts a user already has: a table (CSV, TSV, Parquet, JSON Lines,
Excel), an Inspect AI log, an lm-eval sample file or a saved ``datasets`` folder."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gasp.errors import ConfigError

if TYPE_CHECKING:
    from gasp.studies import StudyType

ColumnOption = Annotated[
    list[str] | None,
    typer.Option(
        "--column",
        help="For a table: read the study's role ROLE from your column NAME (ROLE=NAME, "
        "repeatable; `gasp studies STUDY` lists the roles).",
    ),
]
WhereOption = Annotated[
    list[str] | None,
    typer.Option(
        "--where",
        help="For a table: keep the rows whose COLUMN is VALUE (COLUMN=VALUE, repeatable; "
        "one column given twice keeps either value).",
    ),
]
AllowNewGroupsOption = Annotated[
    bool,
    typer.Option(
        "--allow-new-groups",
        help="For a table: keep group labels outside the study's groups as new groups.",
    ),
]
FormatOption = Annotated[
    str | None,
    typer.Option(
        "--format",
        help="Format of the texts when the name does not tell it (csv, excel, json, jsonl, "
        "parquet, tsv, inspect, lm-eval, hf-dataset).",
    ),
]

_STORE_SUFFIXES = {".sqlite", ".sqlite3", ".db"}


def is_texts(path: Path, fmt: str | None) -> bool:
    """Whether ``path`` holds a user's texts rather than a gasp run."""
    from gasp.io import STORE_FILE

    if fmt is not None:
        return True
    if path.is_file():
        return path.suffix.lower() not in _STORE_SUFFIXES
    if path.is_dir():
        gasp_run = (path / STORE_FILE).is_file() or (path / "results.json").is_file()
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
    path: Path,
    study_type: StudyType,
    results: Path,
    options: Mapping[str, Any],
    *,
    fmt: str | None,
    columns: Sequence[str],
    where: Sequence[str],
) -> Mapping[str, Any]:
    """Read the texts with the study's roles and analyse them into ``results``."""
    from gasp.io import column_mapping, parse_assignments, read_texts

    roles = study_type.table_roles_for(options)
    if not roles:
        raise ConfigError(f"study {study_type.name!r} cannot analyse a table of generations")
    texts = read_texts(
        path,
        roles,
        fmt=fmt,
        columns=column_mapping(columns, roles),
        where=parse_assignments(where, "--where"),
    )
    return study_type.analyze_texts(texts, results, options)
