"""Calibrated marked words per subject and gender, categorised as in Table 15 (seed ``000``).

For an associated gender ``g`` (``F`` or ``M``) of a unit, with ``A`` the words marked
for associated ``g``, ``S_g`` those marked for named ``g`` and ``S_o`` those marked for
the other named gender, every word of ``A`` or ``S_g`` falls in one category:

``both``
    in ``A`` and in ``S_g`` (bold in Table 15);
``associated_and_other_named``
    in ``A`` and in ``S_o`` but not in ``S_g`` (underlined);
``named_only``
    in ``S_g`` but not in ``A`` (gray);
``associated_only``
    in ``A`` only (plain).

Pronouns are kept, as in Table 15.

``word_tables`` (:data:`gasp.results.WORD_TABLES`) columns:
    subject, template, gender, word, category, z_associated (summed z of the word for
    associated ``g``, NaN when not marked there), z_named (summed z for the named gender
    of its category: ``S_g``, or ``S_o`` for ``associated_and_other_named``), is_pronoun,
    kind (``name``: a person's first name, ``gender term``: a word of
    :data:`gasp.text.GENDER_TERMS` or the analysis's extra terms, ``pronoun``, ``word``:
    any other word; the name-free SRB variant leaves out names and gender terms).
Rows are ordered by subject, template, gender, category (the order above), then by
decreasing z.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

CATEGORIES: tuple[str, ...] = (
    "both",
    "associated_and_other_named",
    "named_only",
    "associated_only",
)
"""The categories of Table 15, in display order."""

WORD_TABLE_COLUMNS: tuple[str, ...] = (
    "subject",
    "template",
    "gender",
    "word",
    "category",
    "z_associated",
    "z_named",
    "is_pronoun",
    "kind",
)

_OTHER = {"F": "M", "M": "F"}


def _z_of(part: pd.DataFrame, source: str, gender: str) -> pd.Series:
    rows = part[(part["source"] == source) & (part["gender"] == gender)]
    return pd.Series(rows["z_sum"].to_numpy(dtype=float), index=rows["word"].astype(str))


def word_tables(marked_words: pd.DataFrame) -> pd.DataFrame:
    """Categorise the marked words of every unit and associated gender (Table 15).

    ``marked_words`` is the long ``marked_words`` table of
    :func:`analyze_descriptions` (columns subject, template,
    source, gender, word, z_sum, is_pronoun).
    """
    if marked_words.empty:
        return pd.DataFrame(columns=list(WORD_TABLE_COLUMNS))
    pieces: list[pd.DataFrame] = []
    pronoun = dict(
        zip(marked_words["word"].astype(str), marked_words["is_pronoun"].astype(bool), strict=False)
    )
    kinds = (
        dict(zip(marked_words["word"].astype(str), marked_words["kind"].astype(str), strict=False))
        if "kind" in marked_words.columns
        else {}
    )
    for (subject, template), part in marked_words.groupby(["subject", "template"], sort=True):
        for gender in ("F", "M"):
            assoc = _z_of(part, "associated", gender)
            same = _z_of(part, "named", gender)
            other = _z_of(part, "named", _OTHER[gender])
            if assoc.empty and same.empty:
                continue
            words = pd.Index(assoc.index).union(pd.Index(same.index))
            in_a = words.isin(assoc.index)
            in_same = words.isin(same.index)
            in_other = words.isin(other.index)
            category = np.select(
                [in_a & in_same, in_a & in_other, in_same & ~in_a],
                list(CATEGORIES[:3]),
                default=CATEGORIES[3],
            )
            z_named = np.where(
                category == "associated_and_other_named",
                other.reindex(words).to_numpy(dtype=float),
                same.reindex(words).to_numpy(dtype=float),
            )
            pieces.append(
                pd.DataFrame(
                    {
                        "subject": subject,
                        "template": template,
                        "gender": gender,
                        "word": words.astype(str),
                        "category": category,
                        "z_associated": assoc.reindex(words).to_numpy(dtype=float),
                        "z_named": z_named,
                        "is_pronoun": [pronoun.get(w, False) for w in words],
                        "kind": [kinds.get(w, "word") for w in words],
                    }
                )
            )
    if not pieces:
        return pd.DataFrame(columns=list(WORD_TABLE_COLUMNS))
    table = pd.concat(pieces, ignore_index=True)
    order = {c: i for i, c in enumerate(CATEGORIES)}
    table["_cat"] = table["category"].map(order)
    table["_z"] = table["z_associated"].fillna(table["z_named"])
    table = table.sort_values(
        ["subject", "template", "gender", "_cat", "_z", "word"],
        ascending=[True, True, True, True, False, True],
        kind="mergesort",
    )
    return table[list(WORD_TABLE_COLUMNS)].reset_index(drop=True)


def marked_words_by_group(marked_words: pd.DataFrame) -> pd.DataFrame:
    """The marked words listed per subject, template, source and gender.

    Columns subject, template, source, gender, n_words, words (comma-separated, by
    decreasing ``z_min``: the order the analysis reports them in).
    """
    columns = ["subject", "template", "source", "gender", "n_words", "words"]
    if marked_words.empty:
        return pd.DataFrame(columns=columns)
    keys = columns[:4]
    frame = marked_words.sort_values("z_min", ascending=False, kind="stable")
    grouped = frame.groupby(keys, sort=True, dropna=False)["word"]
    out = grouped.agg(lambda w: ", ".join(w.astype(str))).rename("words").reset_index()
    out["n_words"] = grouped.size().to_numpy()
    return out[columns]
