"""Options that mean the same in several commands, declared once under one name.

A table of generations is ``FILE`` with its text in ``--text-column``;
``--out`` is where a command writes (``--output``, its old spelling, still works but
is hidden); ``--studies`` takes comma-separated study names and may be repeated
(``--study``, the tour's old spelling, still works but is hidden).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

TableArgument = Annotated[
    Path, typer.Argument(help="Table of generations (CSV, TSV, Parquet, JSONL, JSON).")
]
TextColumnOption = Annotated[str, typer.Option(help="Column holding the text.")]
OldOutputOption = Annotated[Path | None, typer.Option("--output", hidden=True)]
StudiesOption = Annotated[
    list[str] | None,
    typer.Option("--studies", help="Comma-separated studies (repeatable; default: every study)."),
]
OldStudyOption = Annotated[list[str] | None, typer.Option("--study", hidden=True)]


class MarkedWordsMethod(StrEnum):
    """Which Marked Words a command runs: plain (Marked Personas; ``marked`` is its old
    name in ``gasp probe``) or calibrated (More of the Same, Algorithm 4)."""

    plain = "plain"
    calibrated = "calibrated"
    marked = "marked"

    @property
    def calibrated_words(self) -> bool:
        """True for Calibrated Marked Words."""
        return self is MarkedWordsMethod.calibrated


def study_list(*given: Iterable[str] | None) -> list[str]:
    """The study names of ``--studies`` values (and old ``--study`` ones), in order, once."""
    names = [s.strip() for values in given for text in values or () for s in text.split(",")]
    return list(dict.fromkeys(n for n in names if n))


__all__ = [
    "MarkedWordsMethod",
    "OldOutputOption",
    "OldStudyOption",
    "StudiesOption",
    "TableArgument",
    "TextColumnOption",
    "study_list",
]
