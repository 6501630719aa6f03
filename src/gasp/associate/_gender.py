"""The Gender Association Method (seed ``000``, Algorithm 1 and Appendix A.1).

Each text is associated with ``F`` (female), ``M`` (male), ``N`` (non-binary) or
left unassigned (``None``) from counts of gendered pronouns and honorifics.
Readings of the published pseudo-code:

* the male count is ``he + his + him + himself + mr + male`` (the pseudo-code
  lists ``him`` twice);
* lines 9 and 11 group as ``(not nb and male > female) or (male > female + neutral)``;
* ``ms`` adds one to the female count when the token ``ms`` occurs and the raw text
  contains ``ms.`` (line 2 is a boolean).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from gasp.text import (
    COUNT_CHUNK_SIZE,
    FEMININE_PRONOUNS,
    MASCULINE_PRONOUNS,
    DocTermCounts,
    count_words,
)

FEMALE_WORDS: tuple[str, ...] = (*FEMININE_PRONOUNS, "female", "mrs")
MALE_WORDS: tuple[str, ...] = (*MASCULINE_PRONOUNS, "mr", "male")
NEUTRAL_WORDS: tuple[str, ...] = ("they", "their")
NONBINARY_CUES: tuple[str, ...] = ("nonbinary", "non-binary", "they/them")
GENDER_LABELS: tuple[str, ...] = ("F", "M", "N")


@dataclass(frozen=True)
class GenderAssociation:
    """Associated gender of each text with the counts behind each decision.

    ``table`` has one row per text and the columns ``gender`` (``F``, ``M``, ``N``
    or ``None`` for unassigned), ``female``, ``male``, ``neutral`` (counts) and
    ``nonbinary_cue`` (bool).
    """

    table: pd.DataFrame

    @property
    def genders(self) -> pd.Series:
        """The associated gender per text (``None`` where unassigned)."""
        return self.table["gender"]

    def shares(self) -> pd.Series:
        """Share of texts per label, ``unassigned`` included, summing to one."""
        labels = self.table["gender"].fillna("unassigned")
        counts = labels.value_counts().reindex([*GENDER_LABELS, "unassigned"], fill_value=0)
        total = max(int(counts.sum()), 1)
        return counts / total


def _decide(
    female: np.ndarray, male: np.ndarray, neutral: np.ndarray, nb: np.ndarray
) -> np.ndarray:
    """Vectorized decision of Algorithm 1 (lines 7 to 13)."""
    is_n = nb & (neutral > male + female)
    is_m = (~nb & (male > female)) | (male > female + neutral)
    is_f = (~nb & (female > male)) | (female > male + neutral)
    return np.select([is_n, is_m, is_f], ["N", "M", "F"], default="")


def _lowered(text: object) -> str:
    """``text`` lower-cased; a missing value is empty, any other value its ``str``."""
    if isinstance(text, str):
        return text.lower()
    return "" if text is None or bool(pd.isna(text)) else str(text).lower()  # type: ignore[call-overload]


def _text_cues(
    texts: Sequence[str] | pd.Series, chunk: int = COUNT_CHUNK_SIZE
) -> tuple[np.ndarray, np.ndarray]:
    """Per text: does it hold a non-binary cue, and ``ms.``? (lower-cased a chunk at a time)."""
    nb = np.zeros(len(texts), dtype=bool)
    ms_period = np.zeros(len(texts), dtype=bool)
    for start in range(0, len(texts), chunk):
        values = (
            texts.iloc[start : start + chunk].tolist()
            if isinstance(texts, pd.Series)
            else texts[start : start + chunk]
        )
        part = [_lowered(t) for t in values]
        nb[start : start + len(part)] = [any(c in t for c in NONBINARY_CUES) for t in part]
        ms_period[start : start + len(part)] = ["ms." in t for t in part]
    return nb, ms_period


def associate_counts(texts: Sequence[str] | pd.Series, counts: DocTermCounts) -> GenderAssociation:
    """Associate each text with a gender, reusing word counts already computed for ``texts``.

    ``texts`` may be a column of a DataFrame: it is read a chunk at a time.
    """
    if counts.n_documents != len(texts):
        raise ValueError("counts must have one row per text")
    nb, ms_period = _text_cues(texts)
    # One sparse column selection for every word the decision needs.
    cues = counts.word_counts([*FEMALE_WORDS, *MALE_WORDS, *NEUTRAL_WORDS, "ms"])
    n_f, n_m, n_n = len(FEMALE_WORDS), len(MALE_WORDS), len(NEUTRAL_WORDS)
    ms_presence = (cues[:, -1] > 0) & ms_period
    female = cues[:, :n_f].sum(axis=1) + ms_presence.astype(np.int64)
    male = cues[:, n_f : n_f + n_m].sum(axis=1)
    neutral = cues[:, n_f + n_m : n_f + n_m + n_n].sum(axis=1)
    decided = _decide(female, male, neutral, nb)
    table = pd.DataFrame(
        {
            "gender": pd.Series(decided, dtype=object).replace("", None),
            "female": female,
            "male": male,
            "neutral": neutral,
            "nonbinary_cue": nb,
        }
    )
    return GenderAssociation(table=table)


def associate_genders(texts: Sequence[str]) -> GenderAssociation:
    """Associate each text with ``F``, ``M``, ``N`` or ``None`` (Algorithm 1 of seed ``000``)."""
    texts_list = list(texts)
    return associate_counts(texts_list, count_words(texts_list))
