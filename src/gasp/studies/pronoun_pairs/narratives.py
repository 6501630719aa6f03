"""The ``narratives`` study type (Marin and Eger, Section 3.4, Table 2), registered by this
module's ``STUDY_TYPE``; its code lives in :mod:`gasp.studies.pronoun_pairs`."""

from gasp.studies.pronoun_pairs._type import NARRATIVES_STUDY_TYPE

STUDY_TYPE = NARRATIVES_STUDY_TYPE

__all__ = ["STUDY_TYPE"]
