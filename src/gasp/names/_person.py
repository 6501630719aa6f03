"""Tell person names apart from ordinary words in word lists.

Significant-word lists of generated biographies contain first names (``sarah``,
``emily``); they say nothing about how a group is described and are removed
before comparing lists. Many names are also common English words (``will``,
``grace``, ``hope``, ``mark``), so a name is only removed when it is rare as a
word or used far more as a name than as a word. The rule, for a lower-cased
word ``w``:

1. ``w`` is a name candidate when at least ``min_count`` US babies were given
   it as a first name (Social Security records, all years, both sexes);
2. a candidate whose English frequency (wordfreq, Zipf scale) is below
   ``common_zipf`` is a name (``emily``, ``tucker``, ``amber``);
3. a candidate that is a common word is a name only when its share of all
   births is at least ``name_ratio`` times its frequency in English text. With
   the defaults this ratio is about 197 for ``mary``, 115 for ``james``, 102
   for ``sarah`` and 61 for ``john`` (names), but 39 for ``grace``, 35 for
   ``mark``, 30 for ``jack``, 0.9 for ``hope`` and 0.05 for ``will`` (words);
4. with ``possessive``, a word ending in ``s`` that is not itself a name is a
   name when it is rare as a word and its stem is a name (``sarahs`` from
   ``Sarah's`` after the tokenizer strips the apostrophe).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from typing import TypedDict, Unpack

import numpy as np
import wordfreq

from gasp.errors import ConfigError
from gasp.names._ssa import _name_totals, total_births

DEFAULT_MIN_COUNT = 1000
DEFAULT_COMMON_ZIPF = 4.0
DEFAULT_NAME_RATIO = 50.0


@functools.cache
def _english_frequencies() -> dict[str, float]:
    """wordfreq's English word frequencies (share of tokens), loaded once."""
    return wordfreq.get_frequency_dict("en", wordlist="best")


def _name_rule(
    keys: list[str], min_count: int, common_zipf: float, name_ratio: float
) -> tuple[np.ndarray, np.ndarray]:
    """(is_name, is_rare_word) for lower-case ``keys`` by rules 1 to 3."""
    totals = _name_totals()["total"].reindex(keys).fillna(0).to_numpy(dtype=np.float64)
    freqs = _english_frequencies()
    freq = np.fromiter((freqs.get(k, 0.0) for k in keys), dtype=np.float64, count=len(keys))
    rare = freq < 10.0 ** (common_zipf - 9.0)
    share = totals / total_births()
    candidate = totals >= min_count
    is_name = candidate & (rare | (share >= name_ratio * freq))
    return is_name, rare


def is_person_name(
    words: Iterable[str],
    *,
    min_count: int = DEFAULT_MIN_COUNT,
    common_zipf: float = DEFAULT_COMMON_ZIPF,
    name_ratio: float = DEFAULT_NAME_RATIO,
    possessive: bool = True,
) -> np.ndarray:
    """Boolean mask: which ``words`` are first names rather than ordinary words.

    Case-insensitive. See the module documentation for the rule and its
    parameters; ``mary`` and ``john`` are names, ``table``, ``will``,
    ``grace``, ``hope`` and ``mark`` are not.
    """
    if not math.isfinite(common_zipf) or name_ratio <= 0 or min_count < 0:
        raise ConfigError("min_count must be >= 0, common_zipf finite and name_ratio > 0")
    keys = [w.lower().strip() if isinstance(w, str) else "" for w in words]
    if not keys:
        return np.zeros(0, dtype=bool)
    is_name, rare = _name_rule(keys, min_count, common_zipf, name_ratio)
    if possessive:
        idx = np.flatnonzero(
            ~is_name & rare & np.fromiter((len(k) > 2 and k.endswith("s") for k in keys), bool)
        )
        if idx.size:
            stems = [keys[i][:-1] for i in idx]
            stem_name, _ = _name_rule(stems, min_count, common_zipf, name_ratio)
            is_name[idx[stem_name]] = True
    return is_name


class NameRule(TypedDict, total=False):
    """The settings of :func:`is_person_name`'s rule, each with its default there."""

    min_count: int
    common_zipf: float
    name_ratio: float
    possessive: bool


def remove_person_names(words: Iterable[str], **rule: Unpack[NameRule]) -> list[str]:
    """The ``words`` that are not person names by :func:`is_person_name` (with its
    ``rule`` settings), in order."""
    words_list = list(words)
    mask = is_person_name(words_list, **rule)
    return [w for w, m in zip(words_list, mask, strict=True) if not m]
