"""Results of an analysis as saved on disk: tables, settings, layouts and word examples.

The analysis writes an :class:`AuditResults`; the report reads it and nothing else.
"""

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
from gasp.results._names import (
    ASSOCIATION_ACCURACY,
    AUDIT_LAYOUTS,
    CAPTURE_RATE,
    DECILES,
    EXCLUDED,
    MARKED_WORDS,
    MARKED_WORDS_BY_GROUP,
    MODEL_COMPARISON,
    PERCENT_CHANGE,
    PROBE_CLUSTERS,
    PROBE_SILHOUETTE,
    REPRESENTATION,
    SAMPLE_ASSOCIATIONS,
    SRB_SCORES,
    SRB_TEST,
    WORD_TABLES,
    probe_clusters_layout,
)

__all__ = [
    "ASSOCIATION_ACCURACY",
    "AUDIT_LAYOUTS",
    "CAPTURE_RATE",
    "DECILES",
    "EXAMPLES_FILE",
    "EXAMPLE_GROUPS",
    "EXCLUDED",
    "INDEX_FILE",
    "MARKED_WORDS",
    "MARKED_WORDS_BY_GROUP",
    "MODEL_COMPARISON",
    "PERCENT_CHANGE",
    "PROBE_CLUSTERS",
    "PROBE_SILHOUETTE",
    "REPRESENTATION",
    "RESULTS_FORMAT_VERSION",
    "SAMPLE_ASSOCIATIONS",
    "SRB_SCORES",
    "SRB_TEST",
    "WORD_TABLES",
    "AuditResults",
    "TableLayout",
    "build_example_index",
    "group_key",
    "probe_clusters_layout",
    "sample_genders",
    "sample_id",
    "split_cap",
    "trim_examples",
    "word_spans",
]
