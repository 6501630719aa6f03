"""OccuGender (seed ``001``): occupational gender bias read from the probabilities a model
gives to gender expressions after prompts about 40 BLS occupations.

The study's data (Table 4's jobs with their BLS shares of women, Table 3's templates,
Appendix A's expressions, Table 5's debiasing prompts), its score items, its analysis
(Eq. 3 and 4, averages over templates and jobs, coverage, bootstrap intervals, Spearman
with BLS, amplification, the female-minus-male gap) and its report section live here.
"""

from gasp.studies.occugender._aggregate import Bootstrap
from gasp.studies.occugender._analysis import analyze_scores, analyze_step
from gasp.studies.occugender._data import (
    GENDERS,
    GROUPS,
    LEVELS,
    NO_DEBIASING,
    STUDY_KIND,
    TASKS,
    Debiasing,
    Job,
    Template,
    article_for,
    case_variants,
    default_debiasing,
    default_expressions,
    default_jobs,
    default_templates,
    fill,
    load_expressions,
    load_jobs,
    load_templates,
)
from gasp.studies.occugender._study import OccuGenderStudy, answer_prefix
from gasp.studies.occugender._type import (
    QUICK_JOBS,
    STUDY_OPTIONS,
    STUDY_TYPE,
    OccuGender,
    build_study,
)

__all__ = [
    "GENDERS",
    "GROUPS",
    "LEVELS",
    "NO_DEBIASING",
    "QUICK_JOBS",
    "STUDY_KIND",
    "STUDY_OPTIONS",
    "STUDY_TYPE",
    "TASKS",
    "Bootstrap",
    "Debiasing",
    "Job",
    "OccuGender",
    "OccuGenderStudy",
    "Template",
    "analyze_scores",
    "analyze_step",
    "answer_prefix",
    "article_for",
    "build_study",
    "case_variants",
    "default_debiasing",
    "default_expressions",
    "default_jobs",
    "default_templates",
    "fill",
    "load_expressions",
    "load_jobs",
    "load_templates",
]
