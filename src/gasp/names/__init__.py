"""First names: gender from US Social Security birth records (or a user's name table),
person-name detection, and the protagonist's first name in a story opening."""

from gasp.names._gender import (
    AMBIGUOUS,
    DEFAULT_GENDER_THRESHOLD,
    DEFAULT_NAME_MIN_COUNT,
    NO_NAME,
    NOT_IN_TABLE,
    first_name_gender,
)
from gasp.names._keys import fold_accents, name_key
from gasp.names._person import (
    DEFAULT_COMMON_ZIPF,
    DEFAULT_MIN_COUNT,
    DEFAULT_NAME_RATIO,
    is_person_name,
    remove_person_names,
)
from gasp.names._protagonist import protagonist_name, protagonists, story_lines
from gasp.names._ssa import babynames_path, name_statistics, total_births
from gasp.names._table import read_name_table

__all__ = [
    "AMBIGUOUS",
    "DEFAULT_COMMON_ZIPF",
    "DEFAULT_GENDER_THRESHOLD",
    "DEFAULT_MIN_COUNT",
    "DEFAULT_NAME_MIN_COUNT",
    "DEFAULT_NAME_RATIO",
    "NOT_IN_TABLE",
    "NO_NAME",
    "babynames_path",
    "first_name_gender",
    "fold_accents",
    "is_person_name",
    "name_key",
    "name_statistics",
    "protagonist_name",
    "protagonists",
    "read_name_table",
    "remove_person_names",
    "story_lines",
    "total_births",
]
