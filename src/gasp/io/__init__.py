"""Reading and writing tables of generations (CSV, TSV, Parquet, JSON Lines, JSON, Excel),
other tools' logs (Inspect AI, lm-evaluation-harness, Hugging Face ``datasets``) as
texts with the roles a study reads, and the layout of a run folder."""

from gasp.io._run_folder import (
    REPORT_DIR,
    RESULTS_DIR,
    STORE_FILE,
    RunPaths,
    check_comparison_paths,
    locate_run,
    missing_input_line,
    run_folder_paths,
)
from gasp.io._sources import (
    EXTRA_INSTALL,
    HF_DATASET,
    INSPECT,
    LM_EVAL,
    SOURCE_FORMATS,
    format_of_source,
    inspect_task,
    read_frame,
)
from gasp.io._tables import TABLE_FORMATS, read_generations, read_table, write_table
from gasp.io._texts import (
    SOURCE_COLUMNS,
    TEXT_ROLE,
    TableRole,
    TextTable,
    column_mapping,
    parse_assignments,
    read_texts,
    texts_from_frame,
)

__all__ = [
    "EXTRA_INSTALL",
    "HF_DATASET",
    "INSPECT",
    "LM_EVAL",
    "REPORT_DIR",
    "RESULTS_DIR",
    "SOURCE_COLUMNS",
    "SOURCE_FORMATS",
    "STORE_FILE",
    "TABLE_FORMATS",
    "TEXT_ROLE",
    "RunPaths",
    "TableRole",
    "TextTable",
    "check_comparison_paths",
    "column_mapping",
    "format_of_source",
    "inspect_task",
    "locate_run",
    "missing_input_line",
    "parse_assignments",
    "read_frame",
    "read_generations",
    "read_table",
    "read_texts",
    "run_folder_paths",
    "texts_from_frame",
    "write_table",
]
