"""Analyses of a table of generations without a study: ``gasp associate``, ``gasp
marked-words`` and ``gasp calibrate``.

Each reads a table (CSV, TSV, Parquet, JSON Lines or JSON) with a text column and, for
Marked Words and their calibration, the columns named by the group selectors
(``column=value[,column=value]``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gasp.errors import DataError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from gasp.stats import CalibrationReport

#: Columns ``gasp associate`` adds to the table.
ASSOCIATION_COLUMNS = {
    "gender": "associated_gender",
    "female": "female_count",
    "male": "male_count",
    "neutral": "neutral_count",
    "nonbinary_cue": "nonbinary_cue",
}


def associate_table(file: Path, text_column: str) -> tuple[pd.DataFrame, pd.Series]:
    """The table of ``file`` with each text's associated gender and counts added, and
    the number of texts per label (F, M, N, unassigned)."""
    from gasp.associate import GENDER_LABELS, associate_counts
    from gasp.io import read_generations
    from gasp.text import count_words

    table = read_generations(file, text_column)
    texts = table[text_column].tolist()
    association = associate_counts(texts, count_words(texts))
    added = association.table.rename(columns=ASSOCIATION_COLUMNS)
    for column in added.columns:
        table[column] = added[column].to_numpy()
    labels = [*GENDER_LABELS, "unassigned"]
    counts = association.genders.fillna("unassigned").value_counts().reindex(labels)
    return table, counts.fillna(0).astype(int)


def group_column_name(selector: dict[str, str], taken: set[str]) -> str:
    """A column-friendly name for a group from its values (``a White`` -> ``a_White``),
    unique among ``taken`` (which it joins)."""
    base = "_".join(re.sub(r"[^0-9A-Za-z]+", "_", v).strip("_") for v in selector.values())
    base = base or "group"
    name, i = base, 2
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    taken.add(name)
    return name


@dataclasses.dataclass(frozen=True)
class MarkedWordsOfTable:
    """The marked words of a target group against the unmarked groups of a table."""

    words: pd.DataFrame
    target_size: int
    #: Each unmarked group's column name and its number of texts.
    unmarked_sizes: dict[str, int]


def marked_words_of_table(
    file: Path,
    target: str,
    unmarked: Sequence[str],
    *,
    text_column: str,
    threshold: float,
    fdr: float | None,
    min_count: int,
    calibrated: bool,
) -> MarkedWordsOfTable:
    """The words that mark the ``target`` group against every ``unmarked`` group of the
    table ``file`` (plain or calibrated Marked Words)."""
    from gasp.io import read_generations
    from gasp.stats import calibrated_marked_words, group_mask, marked_words, parse_selector
    from gasp.text import count_words

    target_selector = parse_selector(target)
    unmarked_selectors = [parse_selector(u) for u in unmarked]
    if not unmarked_selectors:
        raise DataError("give at least one --unmarked group")
    columns = {c for s in [target_selector, *unmarked_selectors] for c in s}
    table = read_generations(file, text_column, sorted(columns))
    target_mask = group_mask(table, target_selector)
    taken: set[str] = set()
    masks: dict[str, np.ndarray] = {
        group_column_name(selector, taken): group_mask(table, selector)
        for selector in unmarked_selectors
    }
    run = calibrated_marked_words if calibrated else marked_words
    words = run(
        count_words(table[text_column].tolist()),
        target_mask,
        masks,
        threshold=threshold,
        fdr_alpha=fdr,
        min_count=min_count,
    )
    sizes = {name: int(mask.sum()) for name, mask in masks.items()}
    return MarkedWordsOfTable(words, int(target_mask.sum()), sizes)


def _targets(table: pd.DataFrame, target: Sequence[str], each: str | None) -> list[dict[str, str]]:
    from gasp.stats import parse_selector

    selectors = [parse_selector(t) for t in target]
    if each:
        columns = [c.strip() for c in each.split(",") if c.strip()]
        for column in columns:
            if column not in table.columns:
                raise DataError(f"unknown column {column!r} in --each")
        present = table[columns].dropna().astype(str).apply(lambda col: col.str.strip())
        combos = sorted(set(present.itertuples(index=False, name=None)))
        selectors += [dict(zip(columns, combo, strict=True)) for combo in combos]
    if not selectors:
        raise DataError("give at least one --target selector or --each columns")
    return selectors


def calibrate_table(
    file: Path,
    unmarked: Sequence[str],
    target: Sequence[str],
    *,
    each: str | None,
    text_column: str,
    n_common: int,
    english_source: str,
    threshold: float,
    alpha_step: float,
) -> CalibrationReport:
    """Calibrate C_English and C_topic of Calibrated Marked Words on the table ``file``
    (seed ``000``, A.2): every target group (``target`` selectors, or every combination
    of the ``each`` columns' values) against the ``unmarked`` groups."""
    from gasp.io import read_generations
    from gasp.stats import (
        CalibratedConfig,
        Comparison,
        calibrate,
        group_mask,
        parse_selector,
        selector_name,
    )
    from gasp.text import count_words

    table = read_generations(file, text_column)
    counts = count_words(table[text_column])
    unmarked_masks = {
        selector_name(sel): group_mask(table, sel) for sel in map(parse_selector, unmarked)
    }
    if not unmarked_masks:
        raise DataError("give at least one --unmarked selector")
    comparisons = [
        Comparison(target=group_mask(table, sel), unmarked=unmarked_masks, name=selector_name(sel))
        for sel in _targets(table, target, each)
    ]
    return calibrate(
        counts,
        comparisons,
        config=CalibratedConfig(english_source=english_source),
        n_common=n_common,
        threshold=threshold,
        alpha_step=alpha_step,
    )


def write_calibration(report: CalibrationReport, out: Path) -> None:
    """The search and sweep tables of a calibration, and its two constants, as CSV in
    ``out``."""
    import pandas as pd

    out.mkdir(parents=True, exist_ok=True)
    report.english_search.to_csv(out / "c_english_search.csv", index=False)
    report.topic_search.to_csv(out / "c_topic_search.csv", index=False)
    report.alpha_sweep.to_csv(out / "alpha_sweep.csv", index=False)
    constants = {"parameter": ["c_english", "c_topic"], "value": [report.c_english, report.c_topic]}
    pd.DataFrame(constants).to_csv(out / "constants.csv", index=False)


__all__ = [
    "ASSOCIATION_COLUMNS",
    "MarkedWordsOfTable",
    "associate_table",
    "calibrate_table",
    "group_column_name",
    "marked_words_of_table",
    "write_calibration",
]
