"""Exporting a run store's samples, scores or items to Parquet, CSV or JSON Lines."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from gasp.errors import ConfigError
from gasp.store._frames import study_name
from gasp.store._sqlite import RunStore

EXPORT_FORMATS: dict[str, str] = {
    ".parquet": "parquet",
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}

#: The tables :func:`export` writes: generated texts (one row per item and sample),
#: scores (one row per item, sample and candidate) and the items (prompts, attributes).
EXPORT_TABLES: tuple[str, ...] = ("samples", "scores", "items")

#: Columns holding lists or records, written as JSON text in CSV files.
_NESTED_COLUMNS = ("tokens", "token_ids", "messages", "candidates")


def export_format(out_path: str | Path) -> str:
    """The format :func:`export` writes to ``out_path`` (by its extension: ``parquet``,
    ``csv`` or ``jsonl``); :class:`ConfigError` for any other extension."""
    out = Path(out_path)
    fmt = EXPORT_FORMATS.get(out.suffix.lower())
    if fmt is None:
        raise ConfigError(
            f"cannot export to {out.name}: use one of {', '.join(sorted(EXPORT_FORMATS))}"
        )
    return fmt


def default_table(manifest: Mapping[str, Any]) -> str:
    """The table a run exports by default: ``scores`` for a run that only scores
    (its manifest's ``request_kinds``), else ``samples``."""
    kinds = manifest.get("request_kinds")
    if isinstance(kinds, list) and kinds and set(kinds) == {"score"}:
        return "scores"
    return "samples"


def _items_frame(store: RunStore, manifest: Mapping[str, Any]) -> pd.DataFrame:
    frame = store.items()
    frame.insert(0, "study", study_name(manifest))
    frame.insert(0, "run_id", store.run_id)
    return frame


def export_frame(
    store_path: str | Path, *, table: str | None = None, include_errors: bool = True
) -> tuple[str, pd.DataFrame, dict[str, Any]]:
    """The table of a run that :func:`export` writes: its name (``table``, or the run's
    :func:`default_table`), the frame and the manifest."""
    if table is not None and table not in EXPORT_TABLES:
        raise ConfigError(f"cannot export {table!r}: use one of {', '.join(EXPORT_TABLES)}")
    with RunStore.open(store_path) as store:
        manifest = store.manifest() if store.has_manifest() else {}
        table = table or default_table(manifest)
        if table == "scores":
            frame = store.scores(include_errors=include_errors)
        elif table == "items":
            frame = _items_frame(store, manifest)
        else:
            frame = store.samples(include_errors=include_errors)
    return table, frame, manifest


def export(
    store_path: str | Path,
    out_path: str | Path,
    *,
    include_errors: bool = True,
    table: str | None = None,
) -> Path | None:
    """Write one table of a run to ``out_path``: ``table`` is ``samples``, ``scores``
    or ``items`` (None: the run's :func:`default_table`, scores for a scoring study).

    The format follows the extension: ``.parquet`` (the manifest is kept as the file's
    ``gasp_manifest`` metadata), ``.csv`` (list values as JSON text) or ``.jsonl``.
    Rows that record an error are included unless ``include_errors`` is false.
    Returns the path written, or None (nothing written) when the table has no row.
    """
    out = Path(out_path)
    fmt = export_format(out)
    _, frame, manifest = export_frame(store_path, table=table, include_errors=include_errors)
    if frame.empty:
        return None
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    if fmt == "parquet":
        arrow = pa.Table.from_pandas(frame, preserve_index=False)
        metadata = dict(arrow.schema.metadata or {})
        metadata[b"gasp_manifest"] = json.dumps(manifest, sort_keys=True).encode()
        pq.write_table(arrow.replace_schema_metadata(metadata), tmp)
    elif fmt == "csv":
        lists = [c for c in _NESTED_COLUMNS if c in frame.columns]
        for column in lists:
            frame[column] = [None if v is None else json.dumps(v) for v in frame[column]]
        frame.to_csv(tmp, index=False)
    else:
        frame.to_json(tmp, orient="records", lines=True, force_ascii=False)
    tmp.replace(out)
    return out
