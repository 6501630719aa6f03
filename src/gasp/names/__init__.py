"""First names: gender from US Social Security birth records (or a user's name table), and
person-name detection."""

from gasp.names._gender import DEFAULT_GENDER_THRESHOLD, first_name_gender
from gasp.names._person import (
    DEFAULT_COMMON_ZIPF,
    DEFAULT_MIN_COUNT,
    DEFAULT_NAME_RATIO,
    is_person_name,
    remove_person_names,
)
from gasp.names._ssa import babynames_path, name_statistics, total_births
from gasp.names._table import read_name_table

__all__ = [
    "DEFAULT_COMMON_ZIPF",
    "DEFAULT_GENDER_THRESHOLD",
    "DEFAULT_MIN_COUNT",
    "DEFAULT_NAME_RATIO",
    "babynames_path",
    "first_name_gender",
    "is_person_name",
    "name_statistics",
    "read_name_table",
    "remove_person_names",
    "total_births",
]
