"""Text to tokens and sparse word counts, and the package's one list of pronouns."""

from gasp.text._pronouns import (
    FEMININE_PRONOUNS,
    MASCULINE_PRONOUNS,
    POSSESSIVE_DETERMINERS,
    PRONOUNS,
    SUBJECT_PRONOUNS,
    THEY_PRONOUNS,
    THIRD_PERSON_PRONOUNS,
    is_pronoun,
    remove_pronouns,
)
from gasp.text._tokenize import DocTermCounts, count_words, normalize, tokenize

__all__ = [
    "FEMININE_PRONOUNS",
    "MASCULINE_PRONOUNS",
    "POSSESSIVE_DETERMINERS",
    "PRONOUNS",
    "SUBJECT_PRONOUNS",
    "THEY_PRONOUNS",
    "THIRD_PERSON_PRONOUNS",
    "DocTermCounts",
    "count_words",
    "is_pronoun",
    "normalize",
    "remove_pronouns",
    "tokenize",
]
