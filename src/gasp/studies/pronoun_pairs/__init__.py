"""Marin and Eger's paired pronoun and narrative tests (seed ``002``, Sections 3-4).

Two registered study types from one package: ``pronoun-pairs`` (Table 1's seven templates,
each profession pair asked with he, she and they; answers parsed to A, B or U; incorrect,
inconsistent and binary inconsistent shares, Table 3, Figure 4, professions, McNemar's
test between runs) and ``narratives`` (Table 2's five story openings; the protagonist's
first name and its gender, Table 4, the most frequent names), the latter exposed by
:mod:`gasp.studies.pronoun_pairs.narratives`.
"""

from gasp.studies.pronoun_pairs._narrative_analysis import analyze_narrative_frame
from gasp.studies.pronoun_pairs._narrative_compare import (
    COMPARE_SHARES,
    COMPARE_TESTS,
    compare_shares,
    exact_p_value,
    split_test,
    wilson_interval,
)
from gasp.studies.pronoun_pairs._narrative_metrics import (
    gender_shares,
    name_genders,
    table4,
    top_names,
    unknown_reasons,
)
from gasp.studies.pronoun_pairs._pairs_analysis import analyze_pairs_frame
from gasp.studies.pronoun_pairs._parse import (
    ANSWER_A,
    ANSWER_B,
    UNPARSED,
    parse_answer,
    prompt_echoes,
)
from gasp.studies.pronoun_pairs._professions import (
    Profession,
    default_professions,
    draw_pairs,
    load_professions,
    narrative_professions,
)
from gasp.studies.pronoun_pairs._study import (
    NARRATIVES_KIND,
    PAIRS_KIND,
    NarrativeStudy,
    PairsStudy,
)
from gasp.studies.pronoun_pairs._templates import (
    INSTRUCTION,
    NARRATIVE_TEMPLATES,
    PAIR_TEMPLATES,
    PRONOUNS,
    STORYTELLER,
    PairTemplate,
    indefinite_article,
    narrative_prompt,
)
from gasp.studies.pronoun_pairs._type import (
    NARRATIVES_STUDY_TYPE,
    PAIRS_STUDY_TYPE,
    Narratives,
    PronounPairs,
)

#: The registered ``pronoun-pairs`` study type (``narratives`` lives in :mod:`.narratives`).
STUDY_TYPE = PAIRS_STUDY_TYPE

__all__ = [
    "ANSWER_A",
    "ANSWER_B",
    "COMPARE_SHARES",
    "COMPARE_TESTS",
    "INSTRUCTION",
    "NARRATIVES_KIND",
    "NARRATIVES_STUDY_TYPE",
    "NARRATIVE_TEMPLATES",
    "PAIRS_KIND",
    "PAIRS_STUDY_TYPE",
    "PAIR_TEMPLATES",
    "PRONOUNS",
    "STORYTELLER",
    "STUDY_TYPE",
    "UNPARSED",
    "NarrativeStudy",
    "Narratives",
    "PairTemplate",
    "PairsStudy",
    "Profession",
    "PronounPairs",
    "analyze_narrative_frame",
    "analyze_pairs_frame",
    "compare_shares",
    "default_professions",
    "draw_pairs",
    "exact_p_value",
    "first_name",
    "gender_shares",
    "indefinite_article",
    "load_professions",
    "name_genders",
    "narrative_professions",
    "narrative_prompt",
    "parse_answer",
    "prompt_echoes",
    "split_test",
    "table4",
    "top_names",
    "unknown_reasons",
    "wilson_interval",
]
