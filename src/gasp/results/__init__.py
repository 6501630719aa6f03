"""Results of an analysis as saved on disk: tables, settings, layouts and word examples.

A study's analysis writes an :class:`AuditResults` (tables, settings, column layouts and
example generations per word); its report section reads it and nothing else.
"""

from gasp.results._columns import RESULTS_SCHEMA, UNITS, describe_columns, results_schema
from gasp.results._container import (
    EXAMPLES_FILE,
    INDEX_FILE,
    RESULTS_FORMAT_VERSION,
    AuditResults,
    TableLayout,
)
from gasp.results._examples import (
    EXAMPLE_GROUPS,
    build_example_index,
    group_key,
    sample_genders,
    sample_id,
    split_cap,
    trim_examples,
    word_spans,
)

__all__ = [
    "EXAMPLES_FILE",
    "EXAMPLE_GROUPS",
    "INDEX_FILE",
    "RESULTS_FORMAT_VERSION",
    "RESULTS_SCHEMA",
    "UNITS",
    "AuditResults",
    "TableLayout",
    "build_example_index",
    "describe_columns",
    "group_key",
    "results_schema",
    "sample_genders",
    "sample_id",
    "split_cap",
    "trim_examples",
    "word_spans",
]
