"""More of the Same (seed ``000``): personas and biographies of occupations with gender
unspecified and named, Algorithm 5, the Gender Association Method, Calibrated Marked
Words, SRB and the probe.

The study's data (63 occupations with BLS figures, two templates, four conditions),
its items for the runner (one per template, occupation and condition) and its
stopping rule live here.
"""

from gasp.studies.more_of_the_same._items import cell_item, study_plan
from gasp.studies.more_of_the_same._load import (
    builtin_study_names,
    default_article,
    load_study,
    load_subjects_csv,
    study_from_mapping,
)
from gasp.studies.more_of_the_same._model import (
    ARTICLE_PLACEHOLDER,
    GROUP_PLACEHOLDER,
    STANDARD_CONDITIONS,
    STUDY_KIND,
    SUBJECT_PLACEHOLDER,
    Cell,
    Condition,
    StoppingRule,
    Study,
    Subject,
)
from gasp.studies.more_of_the_same._stopping import AdaptiveProgress, AdaptiveStopping
from gasp.studies.more_of_the_same._study import (
    BUILTIN_STUDIES,
    MORE_OF_THE_SAME,
    MORE_OF_THE_SAME_TEMPLATES,
    more_of_the_same,
)
from gasp.studies.more_of_the_same._type import QUICK, STUDY_TYPE, MoreOfTheSame, QuickPreset

__all__ = [
    "ARTICLE_PLACEHOLDER",
    "BUILTIN_STUDIES",
    "GROUP_PLACEHOLDER",
    "MORE_OF_THE_SAME",
    "MORE_OF_THE_SAME_TEMPLATES",
    "QUICK",
    "STANDARD_CONDITIONS",
    "STUDY_KIND",
    "STUDY_TYPE",
    "SUBJECT_PLACEHOLDER",
    "AdaptiveProgress",
    "AdaptiveStopping",
    "Cell",
    "Condition",
    "MoreOfTheSame",
    "QuickPreset",
    "StoppingRule",
    "Study",
    "Subject",
    "builtin_study_names",
    "cell_item",
    "default_article",
    "load_study",
    "load_subjects_csv",
    "more_of_the_same",
    "study_from_mapping",
    "study_plan",
]
