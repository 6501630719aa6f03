"""The options of ``gasp analyze`` that read texts a user already has (declarations only;
:mod:`gasp.pipeline` reads the texts)."""

from __future__ import annotations

from typing import Annotated

import typer

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
