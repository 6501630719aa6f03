"""The English word prior: wordfreq pseudo-counts aligned to a vocabulary, and Brown."""

from __future__ import annotations

import numpy as np
import pytest
import wordfreq

from gasp.errors import ConfigError
from gasp.stats import BROWN_CORPUS_TOKENS, common_english_words, english_prior
from gasp.stats._english_prior import _wordfreq_table
from gasp.text import normalize


def _summed_frequency(word: str) -> float:
    """Reference: sum of the wordfreq entries that the tokenizer turns into ``word``."""
    freqs = wordfreq.get_frequency_dict("en", wordlist="best")
    return sum(f for w, f in freqs.items() if normalize(w) == word)


def test_known_words_are_scaled_frequencies_and_unknown_words_are_zero() -> None:
    vocab = np.array(["the", "zzqxjv"], dtype=object)
    prior = english_prior(vocab)
    freqs = wordfreq.get_frequency_dict("en", wordlist="best")
    assert prior[0] >= freqs["the"] * BROWN_CORPUS_TOKENS
    assert prior[0] == pytest.approx(_summed_frequency("the") * BROWN_CORPUS_TOKENS, rel=1e-9)
    assert prior[1] == 0.0
    assert BROWN_CORPUS_TOKENS == 1_161_192


def test_entries_are_normalized_like_the_tokenizer_and_merged() -> None:
    freqs = wordfreq.get_frequency_dict("en", wordlist="best")
    prior = english_prior(np.array(["dont"], dtype=object), corpus_size=1000.0)[0]
    assert prior > freqs["don't"] * 1000.0  # "don't" and "dont" are one token
    assert prior == pytest.approx(_summed_frequency("dont") * 1000.0, rel=1e-9)
    words, _ = _wordfreq_table()
    assert "" not in set(words[:10].tolist())
    assert np.all(words[:-1] < words[1:])  # sorted and unique


def test_corpus_size_scales_linearly_and_order_follows_vocabulary() -> None:
    vocab = np.array(["work", "nurse", "engineer"], dtype=object)
    a = english_prior(vocab, corpus_size=1e6)
    b = english_prior(vocab, corpus_size=2e6)
    np.testing.assert_allclose(b, 2 * a, rtol=1e-12)
    rev = english_prior(vocab[::-1], corpus_size=1e6)
    np.testing.assert_allclose(rev, a[::-1], rtol=1e-12)
    assert english_prior(np.array([], dtype=object)).shape == (0,)


def test_lookup_table_is_cached() -> None:
    english_prior(np.array(["cat"], dtype=object))
    before = _wordfreq_table.cache_info().hits
    english_prior(np.array(["dog"], dtype=object))
    assert _wordfreq_table.cache_info().hits == before + 1


def test_bad_options_raise_config_errors() -> None:
    with pytest.raises(ConfigError):
        english_prior(np.array(["cat"], dtype=object), source="gutenberg")
    with pytest.raises(ConfigError):
        english_prior(np.array(["cat"], dtype=object), corpus_size=0)
    with pytest.raises(ConfigError):
        common_english_words(-1)


def test_common_words_are_the_most_frequent() -> None:
    top = common_english_words(10)
    assert len(top) == 10
    assert {"the", "and", "of", "to", "a"} <= top
    assert common_english_words(10) <= common_english_words(100)


def test_brown_prior_counts_when_nltk_data_is_installed() -> None:
    pytest.importorskip("nltk")
    try:
        prior = english_prior(np.array(["the", "zzqxjv"], dtype=object), source="brown")
    except ConfigError as exc:
        pytest.skip(str(exc))
    assert prior[0] > 60_000  # "the" occurs about 70,000 times in the Brown corpus
    assert prior[1] == 0.0
