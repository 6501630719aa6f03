"""Analyses of a run: who is represented, how, and how models compare."""

from gasp.results import AuditResults
from gasp.studies.more_of_the_same.analysis._audit import (
    RunAudit,
    analyze_run,
    analyze_samples,
    default_results_dir,
)
from gasp.studies.more_of_the_same.analysis._comparison import compare_results, compare_runs
from gasp.studies.more_of_the_same.analysis._config import AnalysisConfig, analysis_config_for_run
from gasp.studies.more_of_the_same.analysis._descriptions import (
    DescriptionResults,
    analyze_descriptions,
)
from gasp.studies.more_of_the_same.analysis._name_free import (
    NAMES_REMOVED,
    PAPER,
    VARIANTS,
    NameFilter,
)
from gasp.studies.more_of_the_same.analysis._prepare import (
    BLSFigure,
    PreparedRun,
    bls_from_study,
    prepare_run,
)
from gasp.studies.more_of_the_same.analysis._representation import analyze_representation
from gasp.studies.more_of_the_same.analysis._word_tables import marked_words_by_group, word_tables

__all__ = [
    "NAMES_REMOVED",
    "PAPER",
    "VARIANTS",
    "AnalysisConfig",
    "AuditResults",
    "BLSFigure",
    "DescriptionResults",
    "NameFilter",
    "PreparedRun",
    "RunAudit",
    "analysis_config_for_run",
    "analyze_descriptions",
    "analyze_representation",
    "analyze_run",
    "analyze_samples",
    "bls_from_study",
    "compare_results",
    "compare_runs",
    "default_results_dir",
    "marked_words_by_group",
    "prepare_run",
    "word_tables",
]
