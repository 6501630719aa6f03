"""Reading and writing tables of generations (CSV, TSV, Parquet, JSON Lines, JSON), and
the layout of a run folder."""

from gasp.io._run_folder import (
    REPORT_DIR,
    RESULTS_DIR,
    STORE_FILE,
    RunPaths,
    locate_run,
    run_folder_paths,
)
from gasp.io._tables import TABLE_FORMATS, read_generations, read_table, write_table

__all__ = [
    "REPORT_DIR",
    "RESULTS_DIR",
    "STORE_FILE",
    "TABLE_FORMATS",
    "RunPaths",
    "locate_run",
    "read_generations",
    "read_table",
    "run_folder_paths",
    "write_table",
]
