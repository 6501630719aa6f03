"""Sentiment (Marked Personas, Section 6) with VADER (``vaderSentiment``, which ships its
lexicon; the paper used NLTK's VADER, which agrees within 0.004 on the published data).

Text sentiment: the compound score of each text, mean and SD per group. Word sentiment:
the compound score of each significant word on its own (Section 6: "positive but
pernicious" words score at least 0), and, beyond the paper, the mean compound score of
the texts that contain the word.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

from gasp.stats import IntervalScheme, mean_interval

#: VADER's compound score lies in [-1, 1].
COMPOUND_BOUNDS = (-1.0, 1.0)


@cache
def _analyzer() -> Any:
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return SentimentIntensityAnalyzer()


def compound(texts: Sequence[str]) -> np.ndarray:
    """The VADER compound score of every text."""
    analyzer = _analyzer()
    return np.array([analyzer.polarity_scores(str(t))["compound"] for t in texts], dtype=float)


def group_sentiment(
    scores: np.ndarray, groups: Sequence[str], scheme: IntervalScheme | None = None
) -> pd.DataFrame:
    """Mean and SD (ddof 0) of the compound score per group, and over all texts; with
    ``scheme`` (a bootstrap of texts) also ``low`` and ``high``, the mean's interval."""
    labels = np.asarray(groups, dtype=object)
    rng = scheme.rng() if scheme is not None else None
    parts = [("all", scores)]
    parts += [(g, scores[labels == g]) for g in dict.fromkeys(labels.tolist())]
    rows = []
    for group, s in parts:
        row = {"group": group, "n": len(s), "mean": float(s.mean()), "sd": float(s.std())}
        if scheme is not None:
            _, row["low"], row["high"] = mean_interval(s, scheme, rng, COMPOUND_BOUNDS)
        rows.append(row)
    columns = ["group", "n", "mean", "sd"] + (["low", "high"] if scheme is not None else [])
    return pd.DataFrame(rows, columns=columns)


def word_sentiment(
    words: Sequence[str], contains: dict[str, np.ndarray], scores: np.ndarray
) -> pd.DataFrame:
    """Per word: its own compound score and the mean score of the texts containing it
    (``contains[word]``: a boolean mask over the texts)."""
    analyzer = _analyzer()
    rows = []
    for word in dict.fromkeys(words):
        mask = contains.get(word)
        text_mean = float(scores[mask].mean()) if mask is not None and mask.any() else float("nan")
        rows.append(
            {
                "word": word,
                "word_score": float(analyzer.polarity_scores(word)["compound"]),
                "texts_with_word": int(mask.sum()) if mask is not None else 0,
                "mean_text_score": text_mean,
            }
        )
    return pd.DataFrame(rows, columns=["word", "word_score", "texts_with_word", "mean_text_score"])
