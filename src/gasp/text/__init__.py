"""Text to tokens and sparse word counts."""

from gasp.text._tokenize import DocTermCounts, count_words, normalize, tokenize

__all__ = ["DocTermCounts", "count_words", "normalize", "tokenize"]
