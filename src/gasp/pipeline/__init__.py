"""The pipeline of a run: generate, analyze, probe and report one study in one folder.

This package is what :func:`gasp.run`, :func:`gasp.analyze` and :func:`gasp.compare`
and the commands ``gasp run``, ``gasp generate``, ``gasp analyze``, ``gasp probe``,
``gasp report``, ``gasp compare`` and ``gasp export`` do; the command line only parses
their options and prints. It holds the study and generation settings of a run
(:func:`select_study`, :class:`GenerationOptions`), the analysis options
(:func:`analysis_options`), the checks before a run (:func:`check_run`, ...), the
steps (:func:`run_steps`), what an analysis reads (:func:`analyze_source`), the
probe of a table (:func:`probe_table`) and a run's outputs re-made (:func:`report_run`,
:func:`export_run`), and the analyses of a table without a study (:func:`associate_table`,
:func:`marked_words_of_table`, :func:`calibrate_table`). It knows studies through the
registry only.
"""

from gasp.pipeline._analysis import ANALYSIS_OPTIONS, analysis_options
from gasp.pipeline._analyze import (
    AnalysisOutcome,
    TextOptions,
    analyze_source,
    compare_runs,
    needs_scorecard,
)
from gasp.pipeline._checks import (
    check_out_folder,
    check_run,
    check_writable_folder,
    make_folder,
    report_from_results,
)
from gasp.pipeline._generation import (
    DEFAULT_MAX_CONCURRENCY,
    DEFAULT_MODEL,
    DEFAULT_STUDY,
    GenerationOptions,
    OwnOptions,
    StudySelection,
    decoding_values,
    select_study,
    study_options,
)
from gasp.pipeline._incomplete import generation_note, note_analysis, note_report
from gasp.pipeline._outputs import ExportOutcome, export_run, report_run
from gasp.pipeline._probe import PROBE_FILES, ProbeTableOutcome, probe_results, probe_table
from gasp.pipeline._result import METRIC_COLUMNS, RunResult
from gasp.pipeline._run import (
    PreparedRun,
    default_run_folder,
    execute_run,
    generation_settings,
    prepare_run,
    run_settings,
)
from gasp.pipeline._settings import (
    SETTINGS,
    Setting,
    check_settings,
    default_of,
    names_of,
    settings_of,
)
from gasp.pipeline._sources import study_type_of_results
from gasp.pipeline._steps import Step, StepsOutcome, StudyRun, run_steps
from gasp.pipeline._study_flags import study_flag_old_names
from gasp.pipeline._tables import (
    ASSOCIATION_COLUMNS,
    MarkedWordsOfTable,
    associate_table,
    calibrate_table,
    group_column_name,
    marked_words_of_table,
    write_calibration,
)

__all__ = [
    "ANALYSIS_OPTIONS",
    "ASSOCIATION_COLUMNS",
    "DEFAULT_MAX_CONCURRENCY",
    "DEFAULT_MODEL",
    "DEFAULT_STUDY",
    "METRIC_COLUMNS",
    "PROBE_FILES",
    "SETTINGS",
    "AnalysisOutcome",
    "ExportOutcome",
    "GenerationOptions",
    "MarkedWordsOfTable",
    "OwnOptions",
    "PreparedRun",
    "ProbeTableOutcome",
    "RunResult",
    "Setting",
    "Step",
    "StepsOutcome",
    "StudyRun",
    "StudySelection",
    "TextOptions",
    "analysis_options",
    "analyze_source",
    "associate_table",
    "calibrate_table",
    "check_out_folder",
    "check_run",
    "check_settings",
    "check_writable_folder",
    "compare_runs",
    "decoding_values",
    "default_of",
    "default_run_folder",
    "execute_run",
    "export_run",
    "generation_note",
    "generation_settings",
    "group_column_name",
    "make_folder",
    "marked_words_of_table",
    "names_of",
    "needs_scorecard",
    "note_analysis",
    "note_report",
    "prepare_run",
    "probe_results",
    "probe_table",
    "report_from_results",
    "report_run",
    "run_settings",
    "run_steps",
    "select_study",
    "settings_of",
    "study_flag_old_names",
    "study_options",
    "study_type_of_results",
    "write_calibration",
]
