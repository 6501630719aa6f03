"""Which significant words the Probe step clusters.

Seed ``000`` (Appendix C.3.1) clusters "the statistically significant words (including
pronouns identified as statistically significant)" after removing "all names,
one-letter words, two-letter words excluding 'dr' and 'md,' and non-English words".
:func:`filter_words` applies these rules, in this order, and records why each
removed word was removed:

``short``
    fewer than ``min_length`` (3) letters, except the words of ``keep_short``
    (``dr``, ``md``). The rule is the paper's: two-letter pronouns (``he``, ``me``,
    ``we``, ``us``) go with it, as in Figure 5 of seed ``000``, whose pronoun clusters
    hold ``she, her, shes`` and ``his, himself, him``.
``name``
    a person's first name according to the US Social Security baby-name statistics
    (:func:`gasp.names.is_person_name`). Pronouns (:data:`PRONOUNS`) are never
    treated as names, so ``her`` or ``his`` stay whatever the name list says.
``non_english``
    English word frequency (``wordfreq.zipf_frequency(word, "en")``) below
    ``min_zipf``. The default 1.0 (one occurrence per hundred million words) is the
    floor of wordfreq's English list: the rule removes the words wordfreq does not
    know as English, and keeps rare real words and the tokenizer's joined
    compounds (``shortterm`` 1.46, ``awardwinning`` 1.46, ``familys`` 2.03, all in
    Figure 5). Pronouns are kept.

The Brown corpus of the paper is not available offline; wordfreq is broader
(see the architecture notes), so the threshold is this package's choice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from gasp.errors import ConfigError
from gasp.text import PRONOUNS

KEPT = "kept"
SHORT = "short"
NAME = "name"
NON_ENGLISH = "non_english"


@dataclass(frozen=True)
class WordFilterConfig:
    """The rules of :func:`filter_words` (defaults follow seed ``000`` Appendix C.3.1)."""

    min_length: int = 3
    keep_short: tuple[str, ...] = ("dr", "md")
    remove_names: bool = True
    min_zipf: float = 1.0

    def __post_init__(self) -> None:
        if self.min_length < 1:
            raise ConfigError(f"min_length must be at least 1, got {self.min_length}")
        if self.min_zipf < 0:
            raise ConfigError(f"min_zipf must be non-negative, got {self.min_zipf}")


@lru_cache(maxsize=200_000)
def _zipf(word: str) -> float:
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en"))


def english_zipf(words: Iterable[str]) -> np.ndarray:
    """wordfreq's English Zipf frequency of every word (0 for words it does not know)."""
    return np.array([_zipf(w) for w in words], dtype=np.float64)


def _default_name_test(words: np.ndarray) -> np.ndarray:
    from gasp.names import is_person_name

    return np.asarray(is_person_name(list(words)), dtype=bool)


def filter_words(
    words: Iterable[str],
    config: WordFilterConfig | None = None,
    *,
    name_test: Callable[[np.ndarray], np.ndarray] | None = None,
) -> pd.DataFrame:
    """Decide which of ``words`` the Probe step keeps.

    Returns one row per distinct word (sorted) with columns ``word``, ``reason``
    (``kept``, ``short``, ``name`` or ``non_english``: the first rule that removes it)
    and ``zipf`` (English Zipf frequency). ``name_test`` maps an array of words to a
    boolean mask of person names; it defaults to :func:`gasp.names.is_person_name`.
    """
    cfg = config or WordFilterConfig()
    distinct = np.array(sorted({str(w) for w in words if isinstance(w, str) and w}), dtype=object)
    reason = np.full(distinct.shape, KEPT, dtype=object)
    if distinct.size == 0:
        return pd.DataFrame({"word": distinct, "reason": reason, "zipf": np.zeros(0)})
    lengths = np.fromiter((len(w) for w in distinct), dtype=np.int64, count=distinct.size)
    keep_short = np.isin(distinct, np.array(cfg.keep_short, dtype=object))
    short = (lengths < cfg.min_length) & ~keep_short
    reason[short] = SHORT
    pronoun = np.isin(distinct, np.array(sorted(PRONOUNS), dtype=object))
    open_ = (reason == KEPT) & ~pronoun & ~keep_short
    if cfg.remove_names and open_.any():
        test = name_test or _default_name_test
        is_name = np.zeros(distinct.shape, dtype=bool)
        is_name[open_] = np.asarray(test(distinct[open_]), dtype=bool)
        reason[is_name] = NAME
    zipf = english_zipf(distinct)
    non_english = (reason == KEPT) & ~pronoun & ~keep_short & (zipf < cfg.min_zipf)
    reason[non_english] = NON_ENGLISH
    return pd.DataFrame({"word": distinct, "reason": reason, "zipf": zipf})
