"""Text to tokens and sparse word counts, the package's one list of pronouns and its one list
of explicit gender terms, the one slug rule and the one ``KEY=VALUE`` reader."""

from gasp.text._assignments import parse_assignments
from gasp.text._counting import COUNT_CHUNK_SIZE, count_words, normalize_many
from gasp.text._gender_terms import GENDER_TERMS, gender_terms, is_gender_term
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
from gasp.text._slug import slug
from gasp.text._tokenize import MAX_WORD_CHARS, DocTermCounts, normalize, tokenize

__all__ = [
    "COUNT_CHUNK_SIZE",
    "FEMININE_PRONOUNS",
    "GENDER_TERMS",
    "MASCULINE_PRONOUNS",
    "MAX_WORD_CHARS",
    "POSSESSIVE_DETERMINERS",
    "PRONOUNS",
    "SUBJECT_PRONOUNS",
    "THEY_PRONOUNS",
    "THIRD_PERSON_PRONOUNS",
    "DocTermCounts",
    "count_words",
    "gender_terms",
    "is_gender_term",
    "is_pronoun",
    "normalize",
    "normalize_many",
    "parse_assignments",
    "remove_pronouns",
    "slug",
    "tokenize",
]
