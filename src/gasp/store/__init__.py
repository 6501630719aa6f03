"""The run store: one SQLite file per run (manifest, items, samples, scores, decisions).

See docs/store-schema.md for the schema, its versions and the migration of version 1
stores. The store knows nothing of studies: a study expands itself into
:class:`ItemRecord` rows, and the runner rebuilds the study from :meth:`RunStore.manifest`.
"""

from gasp.store._batches import BatchLedger, BatchRecord
from gasp.store._export import (
    EXPORT_FORMATS,
    EXPORT_TABLES,
    FORMULA_PREFIXES,
    check_output_file,
    default_table,
    export,
    export_format,
    export_frame,
    neutralise_formula,
)
from gasp.store._frames import (
    SAMPLES_LEADING_COLUMNS,
    SAMPLES_TRAILING_COLUMNS,
    SCORES_TRAILING_COLUMNS,
)
from gasp.store._lock import (
    LOCK_SUFFIX,
    LockHolder,
    StoreLock,
    StoreLockedError,
    lock_holder,
    lock_path,
    store_lock,
)
from gasp.store._migrate import V1_STUDY_KIND, backup_path, read_manifest, v1_item_id
from gasp.store._peek import count_answers, damaged_store, is_writable, read_only_uri, remove_store
from gasp.store._records import (
    MAX_STORED_INT,
    ItemRecord,
    ItemStateRecord,
    SampleRecord,
    ScoreRecord,
    utc_now,
)
from gasp.store._schema import SCHEMA_VERSION
from gasp.store._sqlite import RunStore

__all__ = [
    "EXPORT_FORMATS",
    "EXPORT_TABLES",
    "FORMULA_PREFIXES",
    "LOCK_SUFFIX",
    "MAX_STORED_INT",
    "SAMPLES_LEADING_COLUMNS",
    "SAMPLES_TRAILING_COLUMNS",
    "SCHEMA_VERSION",
    "SCORES_TRAILING_COLUMNS",
    "V1_STUDY_KIND",
    "BatchLedger",
    "BatchRecord",
    "ItemRecord",
    "ItemStateRecord",
    "LockHolder",
    "RunStore",
    "SampleRecord",
    "ScoreRecord",
    "StoreLock",
    "StoreLockedError",
    "backup_path",
    "check_output_file",
    "count_answers",
    "damaged_store",
    "default_table",
    "export",
    "export_format",
    "export_frame",
    "is_writable",
    "lock_holder",
    "lock_path",
    "neutralise_formula",
    "read_manifest",
    "read_only_uri",
    "remove_store",
    "store_lock",
    "utc_now",
    "v1_item_id",
]
