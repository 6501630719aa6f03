"""The run as one family of tests: study-wide FDR and the marked words expected by chance.

With ``AnalysisConfig(fdr_alpha=q, fdr_scope="study")`` the Benjamini-Hochberg procedure
runs over every word x unit x comparison test of the run at once
(:func:`gasp.stats.study_rule`); the cutoff it implies is then applied to each unit as
``z > z*``, to the observed word sets and to the bootstrap and permutation resamples
alike. Under every rule, :func:`chance_table` counts the tests and the marked words
expected by chance under the null (:func:`gasp.stats.chance_count`).

``chance_marked_words`` (:data:`CHANCE`), one row per comparison (source, gender) and
a last row ``all``/``all`` for the whole run:
    source, gender, rule (the rule in words), n_comparisons (units with that
    comparison), n_tests (word x comparison tests: finite z-scores, count at least
    ``min_count``), z_cutoff_low, z_cutoff_high (the smallest and largest z cutoff
    applied; equal under a fixed threshold or a study-wide FDR), expected_by_chance
    (marked words expected if no word differed between the groups), marked_words
    (marked words found, pronouns included).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pandas as pd

from gasp.stats import CHANCE_FIELDS, SignificanceRule, study_rule
from gasp.stats import chance_table as chance_table_of
from gasp.studies.more_of_the_same.analysis._config import AnalysisConfig
from gasp.studies.more_of_the_same.analysis._units import Tables

CHANCE_COLUMNS = ["source", "gender", "rule", *CHANCE_FIELDS]
_ORDER = (("named", "F"), ("named", "N"), ("named", "M"), ("associated", "F"), ("associated", "M"))


def applied_config(config: AnalysisConfig, tables: Sequence[Tables]) -> AnalysisConfig:
    """``config`` with a study-wide FDR resolved into its ``z > z*`` cutoff over ``tables``.

    ``tables`` hold the all-words tables of every unit of the run. Any other rule is
    returned unchanged.
    """
    rule = config.rule()
    if rule.fdr_scope != "study":
        return config
    resolved = study_rule(rule, (t for unit in tables for _, t in unit.values()))
    assert resolved.threshold is not None
    return dataclasses.replace(
        config, threshold=resolved.threshold, fdr_alpha=None, fdr_scope="comparison"
    )


def chance_table(
    tables: Sequence[Tables], applied: AnalysisConfig, described: SignificanceRule
) -> pd.DataFrame:
    """The ``chance_marked_words`` table of the run (see the module notes).

    ``applied`` is the configuration whose rule marked the words (after
    :func:`applied_config`); ``described`` the rule the user asked for, named in the
    ``rule`` column.
    """
    by_key: dict[tuple[str, str], list[pd.DataFrame]] = {key: [] for key in _ORDER}
    for unit in tables:
        for key, (_, table) in unit.items():
            by_key.setdefault(key, []).append(table)
    return chance_table_of(list(by_key.items()), ("source", "gender"), applied.rule(), described)
