"""The English-language word prior of Calibrated Marked Words (seed ``000`` Appendix A.2).

Seed ``000`` mixes the word counts of the generated text (the topic prior) with the
word counts of the Brown corpus from NLTK (the English prior). The Brown corpus
cannot be installed offline from PyPI, so the default English prior here comes from
``wordfreq``'s English frequency list ("best" list: large where available), which
spans books, news, subtitles, web text and Wikipedia.

How a frequency becomes a pseudo-count
    Every wordfreq entry is normalized with the package tokenizer
    (:func:`gasp.text.normalize`: lowercase, non-letters deleted), so ``"don't"``
    becomes ``"dont"`` exactly as in the counted generations; entries that collapse
    onto the same token add their frequencies and entries that become empty
    (numbers, punctuation) are dropped. The frequency of a word is multiplied by
    :data:`BROWN_CORPUS_TOKENS` (1,161,192, the number of tokens of the Brown
    corpus in NLTK), so the wordfreq prior has the size of the corpus the paper
    used and the mixing weight ``alpha`` keeps the meaning it has in the paper.
    Pseudo-counts are real numbers (a word with frequency 1e-7 gets 0.116).

Words wordfreq does not know
    get a pseudo-count of 0 (wordfreq lists words down to a frequency of about
    1e-8, so these are names, typos and glued compounds such as ``aidriven``).
    Under Calibrated Marked Words such a word keeps only its topic-prior mass.

NLTK's Brown corpus
    is used when ``source="brown"`` and NLTK with its ``brown`` data is installed;
    its tokens are normalized the same way and counted (raw counts, no scaling).

Both tables are built once per process and cached.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

import numpy as np

from gasp.errors import ConfigError
from gasp.text import normalize

EnglishSource = Literal["wordfreq", "brown"]

#: Tokens in the Brown corpus as distributed by NLTK (``len(nltk.corpus.brown.words())``).
BROWN_CORPUS_TOKENS = 1_161_192

#: The English prior sources understood by :func:`english_prior`.
ENGLISH_SOURCES: tuple[str, ...] = ("wordfreq", "brown")


def _merge(tokens: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sum ``weights`` over equal ``tokens``; returns sorted unique tokens and their sums."""
    keep = tokens != ""
    tokens, weights = tokens[keep], weights[keep]
    unique, inverse = np.unique(tokens, return_inverse=True)
    sums = np.bincount(inverse.ravel(), weights=weights, minlength=unique.size)
    return unique, sums.astype(np.float64)


@lru_cache(maxsize=1)
def _wordfreq_table() -> tuple[np.ndarray, np.ndarray]:
    """Sorted normalized English words and their summed wordfreq frequencies."""
    import wordfreq

    freqs = wordfreq.get_frequency_dict("en", wordlist="best")
    # A word made of letters only is already normalized once lowercased (fast path).
    tokens = np.array([w.lower() if w.isalpha() else normalize(w) for w in freqs], dtype=str)
    weights = np.fromiter(freqs.values(), dtype=np.float64, count=len(freqs))
    return _merge(tokens, weights)


@lru_cache(maxsize=1)
def _brown_table() -> tuple[np.ndarray, np.ndarray]:
    """Sorted normalized Brown-corpus tokens and their counts (needs NLTK and its data)."""
    try:
        from nltk.corpus import brown
    except ImportError as exc:
        raise ConfigError(
            "the Brown English prior needs NLTK: pip install nltk, then "
            "python -m nltk.downloader brown (or use the default wordfreq prior)"
        ) from exc
    try:
        words = brown.words()
        tokens = np.array([normalize(w) for w in words], dtype=str)
    except LookupError as exc:
        raise ConfigError(
            "NLTK's Brown corpus is not installed: python -m nltk.downloader brown"
        ) from exc
    return _merge(tokens, np.ones(tokens.size, dtype=np.float64))


def _table(source: str) -> tuple[np.ndarray, np.ndarray]:
    if source == "wordfreq":
        return _wordfreq_table()
    if source == "brown":
        return _brown_table()
    raise ConfigError(
        f"unknown English prior source {source!r}; choose one of {', '.join(ENGLISH_SOURCES)}"
    )


def english_prior(
    vocabulary: np.ndarray,
    *,
    source: str = "wordfreq",
    corpus_size: float = BROWN_CORPUS_TOKENS,
) -> np.ndarray:
    """English pseudo-counts aligned to ``vocabulary`` (0 for words the source lacks).

    ``source="wordfreq"`` scales frequencies to ``corpus_size`` tokens (default: the
    size of the Brown corpus); ``source="brown"`` returns raw Brown counts from NLTK
    and ignores ``corpus_size``. The returned float64 array has ``vocabulary``'s length.
    """
    if not corpus_size > 0:
        raise ConfigError(f"corpus_size must be positive, got {corpus_size}")
    words, weights = _table(source)
    vocab = np.asarray(vocabulary, dtype=str)
    out = np.zeros(vocab.size, dtype=np.float64)
    if vocab.size == 0 or words.size == 0:
        return out
    pos = np.searchsorted(words, vocab)
    pos_clipped = np.minimum(pos, words.size - 1)
    found = words[pos_clipped] == vocab
    out[found] = weights[pos_clipped[found]]
    if source == "wordfreq":
        out *= float(corpus_size)
    return out


@lru_cache(maxsize=8)
def common_english_words(n: int = 100, *, source: str = "wordfreq") -> frozenset[str]:
    """The ``n`` most frequent normalized English words of ``source``."""
    if n < 0:
        raise ConfigError(f"the number of common words must be >= 0, got {n}")
    words, weights = _table(source)
    order = np.lexsort((words, -weights))[:n]
    return frozenset(str(w) for w in words[order])


__all__ = [
    "BROWN_CORPUS_TOKENS",
    "ENGLISH_SOURCES",
    "EnglishSource",
    "common_english_words",
    "english_prior",
]
