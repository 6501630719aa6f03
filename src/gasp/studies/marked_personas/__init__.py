"""Marked Personas (seed ``004``, Cheng, Durmus and Jurafsky, ACL 2023): personas and
stories of race x gender groups (or any axes and unmarked defaults of a study file), and
every analysis of the paper: Marked Words, one-vs-rest SVMs, JSD top words, the
Ghavami and Peplau stereotype lexicons, VADER sentiment and refusals, with its report.
"""

from gasp.studies.marked_personas._analysis import Settings, analyze_kind, comparisons, word_table
from gasp.studies.marked_personas._frame import prepare, refusal_mask
from gasp.studies.marked_personas._jsd import jsd_contributions, jsd_top_words
from gasp.studies.marked_personas._lexicons import (
    lexicon_rate,
    lexicon_rates,
    race_lexicons,
    resilience,
    word_presence,
)
from gasp.studies.marked_personas._model import (
    STUDY_KIND,
    Axis,
    AxisValue,
    MarkedPersonasStudy,
    PromptTemplate,
    load_study,
    marked_personas,
    study_from_mapping,
)
from gasp.studies.marked_personas._sentiment import compound
from gasp.studies.marked_personas._steps import analyze_frame, settings_from
from gasp.studies.marked_personas._svm import ANONYMIZERS, SvmResult, anonymize, one_vs_rest_svm
from gasp.studies.marked_personas._type import STUDY_TYPE, MarkedPersonas, build_study

__all__ = [
    "ANONYMIZERS",
    "STUDY_KIND",
    "STUDY_TYPE",
    "Axis",
    "AxisValue",
    "MarkedPersonas",
    "MarkedPersonasStudy",
    "PromptTemplate",
    "Settings",
    "SvmResult",
    "analyze_frame",
    "analyze_kind",
    "anonymize",
    "build_study",
    "comparisons",
    "compound",
    "jsd_contributions",
    "jsd_top_words",
    "lexicon_rate",
    "lexicon_rates",
    "load_study",
    "marked_personas",
    "one_vs_rest_svm",
    "prepare",
    "race_lexicons",
    "refusal_mask",
    "resilience",
    "settings_from",
    "study_from_mapping",
    "word_presence",
    "word_table",
]
