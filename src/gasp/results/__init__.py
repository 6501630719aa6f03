"""Results of an analysis as saved on disk: tables, settings, layouts and word examples.

A study's analysis writes an :class:`AuditResults` (tables, settings, column layouts and
example generations per word); its report section reads it and nothing else.
"""

from gasp.results._columns import RESULTS_SCHEMA, UNITS, describe_columns, results_schema
from gasp.results._container import (
    EXAMPLES_FILE,
    INCOMPLETE_KEY,
    INDEX_FILE,
    RESULTS_FORMAT_VERSION,
    AuditResults,
    TableLayout,
    mark_incomplete,
    replace_with,
    unique_temporary,
)
from gasp.results._examples import (
    EXAMPLE_GROUPS,
    build_example_index,
    group_key,
    plain_text,
    sample_genders,
    sample_id,
    split_cap,
    trim_examples,
    word_spans,
)
from gasp.results._headline import (
    CLOSER_TO_0,
    CLOSER_TO_REFERENCE,
    DIRECTIONS,
    HIGHER,
    LOWER,
    NEITHER,
    ColumnMean,
    HeadlineMetric,
    MetricReading,
    Reader,
    Statistic,
    mean_of,
    share_reading,
    table,
)

__all__ = [
    "CLOSER_TO_0",
    "CLOSER_TO_REFERENCE",
    "DIRECTIONS",
    "EXAMPLES_FILE",
    "EXAMPLE_GROUPS",
    "HIGHER",
    "INCOMPLETE_KEY",
    "INDEX_FILE",
    "LOWER",
    "NEITHER",
    "RESULTS_FORMAT_VERSION",
    "RESULTS_SCHEMA",
    "UNITS",
    "AuditResults",
    "ColumnMean",
    "HeadlineMetric",
    "MetricReading",
    "Reader",
    "Statistic",
    "TableLayout",
    "build_example_index",
    "describe_columns",
    "group_key",
    "mark_incomplete",
    "mean_of",
    "plain_text",
    "replace_with",
    "results_schema",
    "sample_genders",
    "sample_id",
    "share_reading",
    "split_cap",
    "table",
    "trim_examples",
    "unique_temporary",
    "word_spans",
]
