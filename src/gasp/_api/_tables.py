""":func:`associate_genders`, :func:`marked_words` and :func:`calibrate`: analyses of a
table of generations the user already has, without a study."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from gasp._api._keywords import (
    in_python_words,
    require_choices,
    require_int,
    require_number,
    require_path,
    require_text,
    require_texts,
)
from gasp.stats import CalibrationReport

#: The Marked Words variants: plain (Marked Personas) or calibrated (More of the Same).
MARKED_WORDS_METHODS = ("plain", "calibrated")


@dataclasses.dataclass(frozen=True)
class GenderAssociation:
    """The table with each text's associated gender and counts added, the number of
    texts per label (F, M, N, unassigned), and the file written (None: none)."""

    table: pd.DataFrame
    counts: pd.Series
    written: Path | None = None


@dataclasses.dataclass(frozen=True)
class MarkedWords:
    """The words that mark a target group against the unmarked groups of a table: one
    row per significant word (``word``, ``count_target``, ``z_<group>`` for each
    unmarked group, ``z_sum``), the sizes of the groups, and the file written."""

    words: pd.DataFrame
    target_size: int
    #: Each unmarked group's column name and its number of texts.
    unmarked_sizes: dict[str, int]
    written: Path | None = None


def _table_path(function: str, file: str | Path) -> Path:
    path = require_path(function, "file", file, optional=False, folder=False)
    assert path is not None
    return path


def associate_genders(
    file: str | Path, *, text_column: str = "text", out: str | Path | None = None
) -> GenderAssociation:
    """Associate each text of the table ``file`` with a gender (F, M, N or unassigned)
    from its gendered words, as ``gasp associate`` does; with ``out`` the table with
    the associated gender and counts is written there (.csv, .jsonl, .parquet, ...).

    Example:
        >>> import gasp, pandas as pd
        >>> texts = ["She said her day went well.", "He took his car.", "It rained."]
        >>> pd.DataFrame({"text": texts}).to_csv(folder / "texts.csv", index=False)
        >>> found = gasp.associate_genders(folder / "texts.csv")
        >>> int(found.counts["F"]), int(found.counts["M"])
        (1, 1)
    """
    fn = "gasp.associate_genders"
    path = _table_path(fn, file)
    require_text(fn, "text_column", text_column)
    target = require_path(fn, "out", out, folder=False)
    from gasp.io import write_table
    from gasp.pipeline import associate_table

    with in_python_words(fn):
        table, counts = associate_table(path, text_column)
        written = write_table(table, target) if target is not None else None
    return GenderAssociation(table, counts, written)


def marked_words(
    file: str | Path,
    target: str,
    unmarked: str | Sequence[str],
    *,
    text_column: str = "text",
    threshold: float = 1.96,
    level: float | None = None,
    min_count: int = 0,
    method: str = "plain",
    out: str | Path | None = None,
) -> MarkedWords:
    """The words that distinguish the ``target`` group of the table ``file`` from every
    ``unmarked`` group, as ``gasp marked-words`` does. Groups are ``column=value``
    selectors (``"gender=W"``, ``"race=a Black,gender=W"``).

    A word is significant when its z-score exceeds ``threshold`` against every
    unmarked group, or, with ``level``, by a Benjamini-Hochberg test at that false
    discovery rate. ``method`` is ``plain`` (Marked Personas) or ``calibrated`` (More
    of the Same, Algorithm 4). With ``out`` every significant word is written there.

    Example:
        >>> import gasp, pandas as pd
        >>> rows = [("She loves yoga and tea.", "W"), ("He loves football and beer.", "M")]
        >>> pd.DataFrame(rows * 20, columns=["text", "gender"]).to_csv(
        ...     folder / "groups.csv", index=False)
        >>> found = gasp.marked_words(folder / "groups.csv", "gender=W", "gender=M")
        >>> "yoga" in set(found.words["word"]), found.target_size
        (True, 20)
    """
    fn = "gasp.marked_words"
    path = _table_path(fn, file)
    require_text(fn, "target", target)
    groups = require_texts(fn, "unmarked", unmarked)
    require_text(fn, "text_column", text_column)
    require_number(fn, "threshold", threshold)
    chosen = None if level is None else require_number(fn, "level", level)
    require_int(fn, "min_count", min_count)
    require_choices(fn, "method", [require_text(fn, "method", method) or ""], MARKED_WORDS_METHODS)
    written_to = require_path(fn, "out", out, folder=False)
    from gasp.errors import ConfigError
    from gasp.io import write_table
    from gasp.pipeline import marked_words_of_table

    with in_python_words(fn):
        if chosen is not None and not 0.0 < chosen < 1.0:
            raise ConfigError(f"--level must be a false discovery rate in (0, 1), got {level}")
        found = marked_words_of_table(
            path, target, groups, text_column=text_column, threshold=threshold, fdr=chosen,
            min_count=min_count, calibrated=method == "calibrated",
        )  # fmt: skip
        written = write_table(found.words, written_to) if written_to is not None else None
    return MarkedWords(found.words, found.target_size, found.unmarked_sizes, written)


def calibrate(
    file: str | Path,
    unmarked: str | Sequence[str],
    target: str | Sequence[str] = (),
    *,
    each: str | Sequence[str] | None = None,
    text_column: str = "text",
    n_common: int = 100,
    english_source: str = "wordfreq",
    threshold: float = 1.96,
    alpha_step: float = 0.05,
    out: str | Path | None = None,
) -> CalibrationReport:
    """Choose the hyperparameters of Calibrated Marked Words for the table ``file``, as
    ``gasp calibrate`` does (seed ``000``, A.2): C_English and C_topic by binary search,
    then a sweep of alpha, every target group against the ``unmarked`` groups.

    Targets are ``column=value`` selectors (``target``), or every combination of the
    values of the columns ``each``. Common words are the ``n_common`` most frequent
    English words of ``english_source`` (``wordfreq``, or ``brown`` with NLTK). With
    ``out`` the search and sweep tables and the two constants are written there as CSV.

    Example:
        >>> import gasp, pandas as pd
        >>> rows = [("She loves yoga and the tea.", "W"), ("He loves football and the beer.", "M")]
        >>> pd.DataFrame(rows * 20, columns=["text", "gender"]).to_csv(
        ...     folder / "calibrate.csv", index=False)
        >>> report = gasp.calibrate(folder / "calibrate.csv", "gender=M", "gender=W")
        >>> report.c_english > 0 and report.c_topic > 0
        True
    """
    fn = "gasp.calibrate"
    path = _table_path(fn, file)
    groups = require_texts(fn, "unmarked", unmarked)
    targets = require_texts(fn, "target", target)
    columns = None if each is None else ",".join(require_texts(fn, "each", each))
    require_text(fn, "text_column", text_column)
    require_int(fn, "n_common", n_common)
    require_text(fn, "english_source", english_source)
    require_number(fn, "threshold", threshold)
    require_number(fn, "alpha_step", alpha_step)
    folder = require_path(fn, "out", out)
    from gasp.pipeline import calibrate_table, write_calibration

    with in_python_words(fn):
        report = calibrate_table(
            path, groups, targets, each=columns, text_column=text_column, n_common=n_common,
            english_source=english_source, threshold=threshold, alpha_step=alpha_step,
        )  # fmt: skip
    if folder is not None:
        write_calibration(report, folder)
    return report


__all__ = [
    "MARKED_WORDS_METHODS",
    "GenderAssociation",
    "MarkedWords",
    "associate_genders",
    "calibrate",
    "marked_words",
]
