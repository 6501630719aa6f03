"""Exporting a run store's samples, scores or items to Parquet, CSV or JSON Lines."""

from __future__ import annotations

import json
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from gasp.errors import ConfigError
from gasp.results import unique_temporary
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
#: First characters with which a spreadsheet reads a cell as a formula (OWASP's CSV
#: injection list: equals, plus, minus, at, tab, carriage return).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def neutralise_formula(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: a string that begins with one of
    :data:`FORMULA_PREFIXES` gets a leading single quote (OWASP's rule for CSV
    injection); any other value is returned as it is. A model's answer beginning
    ``=HYPERLINK(...)`` is then shown, not run."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def check_output_file(out: Path) -> None:
    """Refuse an output that exists and is not a regular file (a FIFO would block the
    writer until something reads it, a device would take the table): one
    :class:`ConfigError` line."""
    try:
        mode = out.stat().st_mode
    except OSError:
        return  # absent (or a dangling link): written as a new file
    if not stat.S_ISREG(mode):
        raise ConfigError(f"{out} is not a regular file (a pipe or a device); give a file path")


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


def _csv_cells(frame: pd.DataFrame, raw: bool) -> pd.DataFrame:
    """``frame`` as CSV cells: lists and records as JSON text, and (unless ``raw``) text
    a spreadsheet would run as a formula neutralised."""
    for column in (c for c in _NESTED_COLUMNS if c in frame.columns):
        frame[column] = [None if v is None else json.dumps(v) for v in frame[column]]
    if not raw:
        for column in frame.columns:
            dtype = frame[column].dtype
            if pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype):
                frame[column] = [neutralise_formula(v) for v in frame[column]]
    return frame


def export(
    store_path: str | Path,
    out_path: str | Path,
    *,
    include_errors: bool = True,
    table: str | None = None,
    raw_csv: bool = False,
) -> Path | None:
    """Write one table of a run to ``out_path``: ``table`` is ``samples``, ``scores``
    or ``items`` (None: the run's :func:`default_table`, scores for a scoring study).

    The format follows the extension: ``.parquet`` (the manifest is kept as the file's
    ``gasp_manifest`` metadata), ``.csv`` (list values as JSON text) or ``.jsonl``.
    Rows that record an error are included unless ``include_errors`` is false. In a CSV
    file every text cell beginning ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
    gets a leading ``'`` (:func:`neutralise_formula`) unless ``raw_csv``. An output that
    exists and is not a regular file is refused (:func:`check_output_file`).
    Returns the path written, or None (nothing written) when the table has no row.
    """
    out = Path(out_path)
    fmt = export_format(out)
    check_output_file(out)
    _, frame, manifest = export_frame(store_path, table=table, include_errors=include_errors)
    if frame.empty:
        return None
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = unique_temporary(out)
    try:
        if fmt == "parquet":
            arrow = pa.Table.from_pandas(frame, preserve_index=False)
            metadata = dict(arrow.schema.metadata or {})
            metadata[b"gasp_manifest"] = json.dumps(manifest, sort_keys=True).encode()
            pq.write_table(arrow.replace_schema_metadata(metadata), tmp)
        elif fmt == "csv":
            _csv_cells(frame, raw_csv).to_csv(tmp, index=False)
        else:
            frame.to_json(tmp, orient="records", lines=True, force_ascii=False)
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)
    return out
