"""Text to tokens and sparse word counts."""

from gasp.text._pronouns import PRONOUNS, is_pronoun, remove_pronouns
from gasp.text._tokenize import DocTermCounts, count_words, normalize, tokenize

__all__ = [
    "PRONOUNS",
    "DocTermCounts",
    "count_words",
    "is_pronoun",
    "normalize",
    "remove_pronouns",
    "tokenize",
]
