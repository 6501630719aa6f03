"""Studies as data: templates, subjects (occupations), conditions, samples per cell and
the stopping rule of seed ``000`` (Algorithm 5)."""

from gasp.studies._builtin import BUILTIN_STUDIES, MORE_OF_THE_SAME, more_of_the_same
from gasp.studies._load import (
    builtin_study_names,
    default_article,
    load_study,
    load_subjects_csv,
    study_from_mapping,
)
from gasp.studies._model import (
    ARTICLE_PLACEHOLDER,
    GROUP_PLACEHOLDER,
    STANDARD_CONDITIONS,
    SUBJECT_PLACEHOLDER,
    Cell,
    Condition,
    StoppingRule,
    Study,
    Subject,
)

__all__ = [
    "ARTICLE_PLACEHOLDER",
    "BUILTIN_STUDIES",
    "GROUP_PLACEHOLDER",
    "MORE_OF_THE_SAME",
    "STANDARD_CONDITIONS",
    "SUBJECT_PLACEHOLDER",
    "Cell",
    "Condition",
    "StoppingRule",
    "Study",
    "Subject",
    "builtin_study_names",
    "default_article",
    "load_study",
    "load_subjects_csv",
    "more_of_the_same",
    "study_from_mapping",
]
