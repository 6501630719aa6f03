"""Associating generated texts with a gender (seed ``000``, Algorithm 1)."""

from gasp.associate._gender import (
    FEMALE_WORDS,
    GENDER_LABELS,
    MALE_WORDS,
    NEUTRAL_WORDS,
    NONBINARY_CUES,
    GenderAssociation,
    associate_counts,
    associate_genders,
)
from gasp.associate._validation import AssociationValidation, validate_association

__all__ = [
    "FEMALE_WORDS",
    "GENDER_LABELS",
    "MALE_WORDS",
    "NEUTRAL_WORDS",
    "NONBINARY_CUES",
    "AssociationValidation",
    "GenderAssociation",
    "associate_counts",
    "associate_genders",
    "validate_association",
]
