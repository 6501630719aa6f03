"""The run store: one SQLite file per run (manifest, samples, cell decisions) and export."""

from gasp.store._export import EXPORT_FORMATS, export
from gasp.store._schema import SCHEMA_VERSION
from gasp.store._sqlite import (
    SAMPLES_FRAME_COLUMNS,
    CellRecord,
    RunStore,
    SampleRecord,
    read_manifest,
)

__all__ = [
    "EXPORT_FORMATS",
    "SAMPLES_FRAME_COLUMNS",
    "SCHEMA_VERSION",
    "CellRecord",
    "RunStore",
    "SampleRecord",
    "export",
    "read_manifest",
]
