"""Significant words of two groups within each subject, from a table of generations.

The Probe step starts from the words that are significant for one group against the
other within a subject (an occupation in seed ``000``, a race in the Marked Personas
data). :func:`significant_words` computes them from raw generations: within every
(model, subject), the texts of group ``A`` are compared with those of group ``B``
and vice versa with Calibrated Marked Words (seed ``000`` Algorithm 4, default) or
Marked Words (seed ``004``), and the significant words of each side are listed.

The topic prior of each comparison is every text of its model and subject (any
group), so each subject is judged against its own vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from gasp.errors import ConfigError, DataError
from gasp.stats import DEFAULT_THRESHOLD, Comparison, SignificanceRule, marked_words_many
from gasp.text import count_words

Method = Literal["calibrated", "marked"]

#: The model label used when the table has no model column.
SINGLE_MODEL = "model"


@dataclass(frozen=True)
class GenerationColumns:
    """Which columns of a generations table hold what.

    ``subject_columns`` (possibly several, joined by ``" | "``) define the unit within
    which the two groups are compared; none means one subject for the whole table.
    ``model_column`` separates models (none: one model).
    """

    text: str = "text"
    group: str = "gender"
    subject_columns: tuple[str, ...] = ()
    model_column: str | None = None

    def required(self) -> list[str]:
        """Every column the table must have."""
        cols = [self.text, self.group, *self.subject_columns]
        return cols + ([self.model_column] if self.model_column else [])


@dataclass(frozen=True)
class SignificantWords:
    """Significant words per (model, subject, group) and the subjects left out.

    ``words`` has columns model, subject, group, word, z (summed z-score);
    ``excluded`` has columns model, subject, reason.
    """

    words: pd.DataFrame
    excluded: pd.DataFrame


def _keys(table: pd.DataFrame, columns: GenerationColumns) -> tuple[np.ndarray, np.ndarray]:
    if columns.model_column:
        models = table[columns.model_column].astype(str).to_numpy(dtype=object)
    else:
        models = np.full(len(table), SINGLE_MODEL, dtype=object)
    if columns.subject_columns:
        parts = [table[c].astype(str) for c in columns.subject_columns]
        subject = parts[0]
        for part in parts[1:]:
            subject = subject + " | " + part
        subjects = subject.to_numpy(dtype=object)
    else:
        subjects = np.full(len(table), "all", dtype=object)
    return models, subjects


def significant_words(
    generations: pd.DataFrame,
    *,
    group_a: str,
    group_b: str,
    columns: GenerationColumns | None = None,
    method: Method = "calibrated",
    threshold: float = DEFAULT_THRESHOLD,
    min_texts: int = 1,
) -> SignificantWords:
    """The words significant for ``group_a`` against ``group_b`` and vice versa per subject.

    A subject is left out (listed in ``excluded``) when either group has fewer than
    ``min_texts`` texts in it.
    """
    cols = columns or GenerationColumns()
    if method not in ("calibrated", "marked"):
        raise ConfigError(f"method must be 'calibrated' or 'marked', got {method!r}")
    missing = [c for c in cols.required() if c not in generations.columns]
    if missing:
        known = ", ".join(map(str, generations.columns))
        raise DataError(f"column(s) {', '.join(missing)} not in the table (columns: {known})")
    a, b = str(group_a), str(group_b)
    if a == b:
        raise ConfigError(f"the two groups must differ, got {a!r} twice")
    group = generations[cols.group].astype(str).str.strip().to_numpy(dtype=object)
    for label in (a, b):
        if not (group == label).any():
            shown = ", ".join(sorted(set(group))[:20])
            raise DataError(f"group {label!r} never occurs in column {cols.group!r} ({shown})")
    texts = generations[cols.text].where(generations[cols.text].notna(), "").astype(str)
    counts = count_words(texts.tolist())
    models, subjects = _keys(generations, cols)
    in_a, in_b = group == a, group == b
    units = pd.DataFrame({"model": models, "subject": subjects}).drop_duplicates()
    comparisons: list[Comparison] = []
    labels: list[tuple[str, str, str]] = []
    excluded: list[dict[str, object]] = []
    for model, subject in units.itertuples(index=False):
        unit = (models == model) & (subjects == subject)
        mask_a, mask_b = unit & in_a, unit & in_b
        n_a, n_b = int(mask_a.sum()), int(mask_b.sum())
        if min(n_a, n_b) < max(min_texts, 1):
            excluded.append(
                {
                    "model": model,
                    "subject": subject,
                    "reason": f"{n_a} texts of {a}, {n_b} of {b} (need {max(min_texts, 1)} each)",
                }
            )
            continue
        for target, other, label, other_label in ((mask_a, mask_b, a, b), (mask_b, mask_a, b, a)):
            comparisons.append(Comparison(target=target, unmarked={other_label: other}, topic=unit))
            labels.append((str(model), str(subject), label))
    tables = marked_words_many(
        counts,
        comparisons,
        calibrated=method == "calibrated",
        rule=SignificanceRule(threshold=threshold),
    )
    frames = [
        pd.DataFrame(
            {
                "model": model,
                "subject": subject,
                "group": label,
                "word": table["word"].astype(str).to_numpy(),
                "z": table["z_sum"].to_numpy(dtype=np.float64),
            }
        )
        for (model, subject, label), table in zip(labels, tables, strict=True)
    ]
    words = (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame({c: [] for c in ("model", "subject", "group", "word", "z")})
    )
    excluded_table = pd.DataFrame(excluded, columns=["model", "subject", "reason"])
    return SignificantWords(words=words, excluded=excluded_table)
