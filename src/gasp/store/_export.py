"""Exporting a run store's samples or scores to Parquet, CSV or JSON Lines."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from gasp.errors import ConfigError
from gasp.store._sqlite import RunStore

EXPORT_FORMATS: dict[str, str] = {
    ".parquet": "parquet",
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}

#: The tables :func:`export` writes.
EXPORT_TABLES: tuple[str, ...] = ("samples", "scores")


def export(
    store_path: str | Path,
    out_path: str | Path,
    *,
    include_errors: bool = True,
    table: str = "samples",
) -> Path:
    """Write the samples (or, with ``table="scores"``, the scores) of a run to ``out_path``.

    The format follows the extension: ``.parquet`` (the manifest is kept as the file's
    ``gasp_manifest`` metadata), ``.csv`` (list values as JSON text) or ``.jsonl``.
    Rows that record an error are included unless ``include_errors`` is false.
    Returns the path written.
    """
    if table not in EXPORT_TABLES:
        raise ConfigError(f"cannot export {table!r}: use one of {', '.join(EXPORT_TABLES)}")
    out = Path(out_path)
    fmt = EXPORT_FORMATS.get(out.suffix.lower())
    if fmt is None:
        raise ConfigError(
            f"cannot export to {out.name}: use one of {', '.join(sorted(EXPORT_FORMATS))}"
        )
    with RunStore.open(store_path) as store:
        if table == "scores":
            frame = store.scores(include_errors=include_errors)
        else:
            frame = store.samples(include_errors=include_errors)
        manifest = store.manifest() if store.has_manifest() else {}
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    if fmt == "parquet":
        arrow = pa.Table.from_pandas(frame, preserve_index=False)
        metadata = dict(arrow.schema.metadata or {})
        metadata[b"gasp_manifest"] = json.dumps(manifest, sort_keys=True).encode()
        pq.write_table(arrow.replace_schema_metadata(metadata), tmp)
    elif fmt == "csv":
        lists = [c for c in ("tokens", "token_ids") if c in frame.columns]
        for column in lists:
            frame[column] = [None if v is None else json.dumps(v) for v in frame[column]]
        frame.to_csv(tmp, index=False)
    else:
        frame.to_json(tmp, orient="records", lines=True, force_ascii=False)
    tmp.replace(out)
    return out
