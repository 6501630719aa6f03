"""Calibrated Marked Words (seed ``000`` Section 3.2.1, Algorithms 3 and 4, Appendix A.2).

Marked Words flags common words ("the", "be") and reacts to the sizes of the
compared corpora. Calibrated Marked Words replaces its prior with a hybrid of the
generated text (the *topic prior*) and the English language (the *English prior*)
and rescales the prior of each compared group with a regularizing term.

For a target group ``G1`` and an unmarked group ``G2`` (Algorithm 3)::

    P[w] = alpha * P_topic[w] + (1 - alpha) * P_English[w]     for every w of P_topic
    C    = alpha * C_topic + (1 - alpha) * C_English
    r1   = C * sum_{w in W} P[w] / sum_{w in W} G1[w]
    r2   = C * sum_{w in W} P[w] / sum_{w in W} G2[w]

and the z-score of every word of ``P`` is the Fightin' Words z-score
(:func:`gasp.stats.log_odds_z`) with the prior ``P / r1`` for ``G1`` and ``P / r2``
for ``G2`` (Algorithm 4). Line 6 of Algorithm 4 prints ``n_U`` in the denominator of
``l1``; the log-odds of the target group needs the target total ``n_G`` (as in
Monroe et al. 2008 and line 7 for the unmarked group), which is what is computed.
The prior of a group thus puts ``1 / C`` times the group's own count of the
calibration words on those words: a larger ``C`` is a weaker prior.

Choices this implementation makes explicit
    * The topic prior is the word counts of all texts passed in ``counts`` (the
      reference corpus of generated text, as in Marked Personas), or in the batched
      API the texts named per comparison (for example every text of one occupation).
    * ``P`` covers the words of the topic prior (Algorithm 3 loops over
      ``P_topic``): words with a topic count of 0 get no z-score (NaN).
    * ``W`` (the calibration words) is :data:`CALIBRATION_FUNCTION_WORDS`, united
      with the words that are among the ``calibration_top_n`` (20) most frequent
      words of the hybrid prior *and* of the target group *and* of the unmarked group.
      "Among the 20 most frequent" includes ties with the 20th count; a word with a
      count of 0 never is. Words of ``W`` absent from the vocabulary are ignored.

Default hyperparameters (wordfreq prior scaled to the Brown corpus size): see
:data:`DEFAULT_ALPHA`, :data:`DEFAULT_C_TOPIC`, :data:`DEFAULT_C_ENGLISH` and the
calibration module :mod:`gasp.stats._calibration`, which chose them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from gasp.errors import ConfigError
from gasp.stats._english_prior import BROWN_CORPUS_TOKENS, ENGLISH_SOURCES
from gasp.stats._log_odds import log_odds_z

#: Fixed part of the calibration words ``W``: the 22 most frequent English function
#: words of wordfreq's list that are neither pronouns nor gendered (pronouns differ
#: between genders by construction, so they would bias ``r1`` and ``r2``).
CALIBRATION_FUNCTION_WORDS: tuple[str, ...] = (
    "the", "to", "and", "of", "a", "in", "is", "for", "that", "it", "on",
    "with", "this", "was", "be", "as", "are", "at", "by", "from", "or", "an",
)  # fmt: skip

#: Mixing weight of the topic prior (seed ``000`` Appendix A.2 found 0.15 best with
#: the Brown corpus; the calibration on the Marked Personas data with the wordfreq
#: prior is documented in :mod:`gasp.stats._calibration`).
DEFAULT_ALPHA = 0.15
#: Regularizing constant of the topic prior alone (alpha = 1), from calibration.
DEFAULT_C_TOPIC = 0.11
#: Regularizing constant of the English prior alone (alpha = 0), from calibration.
DEFAULT_C_ENGLISH = 0.069

TopicPrior = Literal["all", "compared"]


@dataclass(frozen=True)
class CalibratedConfig:
    """Hyperparameters of Calibrated Marked Words (validated on creation).

    ``alpha`` mixes the topic prior (weight ``alpha``) with the English prior;
    ``c_topic`` and ``c_english`` are the regularizing constants found by calibration;
    ``calibration_words`` is the fixed part of ``W`` and ``calibration_top_n`` the
    number of most frequent words of the prior and both groups that join it;
    ``english_source`` is ``"wordfreq"`` (scaled to ``english_corpus_size`` tokens) or
    ``"brown"`` (NLTK); ``topic_prior`` is ``"all"`` (every text of ``counts``) or
    ``"compared"`` (only the texts of the target and unmarked groups).
    """

    alpha: float = DEFAULT_ALPHA
    c_topic: float = DEFAULT_C_TOPIC
    c_english: float = DEFAULT_C_ENGLISH
    calibration_words: tuple[str, ...] = CALIBRATION_FUNCTION_WORDS
    calibration_top_n: int = 20
    english_source: str = "wordfreq"
    english_corpus_size: float = float(BROWN_CORPUS_TOKENS)
    topic_prior: TopicPrior = "all"

    def __post_init__(self) -> None:
        if not 0.0 <= self.alpha <= 1.0:
            raise ConfigError(f"alpha must lie in [0, 1], got {self.alpha}")
        for name in ("c_topic", "c_english", "english_corpus_size"):
            value = getattr(self, name)
            if not (np.isfinite(value) and value > 0):
                raise ConfigError(f"{name} must be a positive number, got {value}")
        if self.calibration_top_n < 0:
            raise ConfigError(
                f"calibration_top_n must be zero or more, got {self.calibration_top_n}"
            )
        if isinstance(self.calibration_words, str):
            raise ConfigError("calibration_words must be a sequence of words, not one string")
        object.__setattr__(self, "calibration_words", tuple(self.calibration_words))
        if not self.calibration_words and self.calibration_top_n == 0:
            raise ConfigError("the calibration words are empty and calibration_top_n is 0")
        if self.english_source not in ENGLISH_SOURCES:
            raise ConfigError(
                f"unknown English prior source {self.english_source!r}; "
                f"choose one of {', '.join(ENGLISH_SOURCES)}"
            )
        if self.topic_prior not in ("all", "compared"):
            raise ConfigError(f"topic_prior must be 'all' or 'compared', got {self.topic_prior!r}")

    @property
    def c(self) -> float:
        """The mixed regularizing constant ``alpha * c_topic + (1 - alpha) * c_english``."""
        return self.alpha * self.c_topic + (1.0 - self.alpha) * self.c_english


@dataclass(frozen=True)
class CalibratedTerms:
    """The regularized quantities of Algorithms 3 and 4 for a stack of pairs.

    Arrays have one row per (target, unmarked) pair: ``prior`` the hybrid prior ``P``
    (0 outside the topic prior), ``r1``/``r2`` the regularizing terms, ``calibration``
    the mask of ``W`` over the vocabulary, ``z`` the z-scores (NaN outside ``P``).
    """

    prior: np.ndarray
    r1: np.ndarray
    r2: np.ndarray
    calibration: np.ndarray
    z: np.ndarray = field(repr=False)


def _top_mask(values: np.ndarray, n: int) -> np.ndarray:
    """Per row, the entries among the ``n`` largest (ties with the n-th included, > 0 only)."""
    if n == 0:
        return np.zeros(values.shape, dtype=bool)
    width = values.shape[-1]
    if width <= n:
        return values > 0
    kth = np.partition(values, width - n, axis=-1)[..., width - n : width - n + 1]
    return (values >= kth) & (values > 0)


def calibrated_terms(
    target_counts: np.ndarray,
    unmarked_counts: np.ndarray,
    topic_counts: np.ndarray,
    english_counts: np.ndarray,
    fixed_words: np.ndarray,
    *,
    alpha: float,
    c: float,
    top_n: int = 20,
) -> CalibratedTerms:
    """Algorithms 3 and 4 vectorized over pairs (rows) and words (columns).

    ``target_counts``, ``unmarked_counts`` and ``topic_counts`` are (pairs, words)
    arrays (``topic_counts`` may be one row for all pairs); ``english_counts`` and the
    boolean ``fixed_words`` (the fixed calibration words) are over the words. ``c`` is
    the mixed constant ``alpha * c_topic + (1 - alpha) * c_english``. Pairs whose
    calibration words never occur in a group or in the prior get NaN terms.
    """
    g1 = np.atleast_2d(np.asarray(target_counts, dtype=np.float64))
    g2 = np.atleast_2d(np.asarray(unmarked_counts, dtype=np.float64))
    topic = np.atleast_2d(np.asarray(topic_counts, dtype=np.float64))
    english = np.asarray(english_counts, dtype=np.float64)
    in_prior = topic > 0
    prior = np.where(in_prior, alpha * topic + (1.0 - alpha) * english, 0.0)
    prior = np.broadcast_to(prior, g1.shape)
    calibration = np.asarray(fixed_words, dtype=bool) | (
        _top_mask(prior, top_n) & _top_mask(g1, top_n) & _top_mask(g2, top_n)
    )
    w_p = np.where(calibration, prior, 0.0).sum(axis=-1)
    w_g1 = np.where(calibration, g1, 0.0).sum(axis=-1)
    w_g2 = np.where(calibration, g2, 0.0).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        r1 = c * w_p / w_g1
        r2 = c * w_p / w_g2
        ok = np.isfinite(r1) & np.isfinite(r2) & (r1 > 0) & (r2 > 0)
        r1 = np.where(ok, r1, np.nan)
        r2 = np.where(ok, r2, np.nan)
        z = log_odds_z(g1, g2, prior / r1[:, None], prior / r2[:, None])
    z = np.where(np.broadcast_to(in_prior, z.shape), z, np.nan)
    return CalibratedTerms(prior=prior, r1=r1, r2=r2, calibration=calibration, z=z)
