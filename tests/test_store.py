"""The SQLite run store: schema, write-once samples, manifest, export."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from gasp.errors import ConfigError, DataError
from gasp.store import (
    SAMPLES_FRAME_COLUMNS,
    SCHEMA_VERSION,
    CellRecord,
    RunStore,
    SampleRecord,
    export,
    read_manifest,
)
from gasp.studies.more_of_the_same import more_of_the_same

CONTRACT_COLUMNS = [
    "run_id", "study", "template", "subject", "condition", "named_gender", "sample_index",
    "prompt", "text", "stop_reason", "error", "model_id", "prompt_tokens", "completion_tokens",
    "latency_s", "attempts", "created_at",
]  # fmt: skip


def _record(
    index: int, *, text: str | None = "She is kind.", stop: str = "stop", **kw: object
) -> SampleRecord:
    values: dict[str, object] = {
        "template": "persona",
        "subject": "nurse",
        "condition": "woman",
        "sample_index": index,
        "named_gender": "F",
        "prompt": "Generate a persona of a nurse who is a woman",
        "seed": 7,
        "text": text,
        "stop_reason": stop,
        "model_id": "m",
        "prompt_tokens": 9,
        "completion_tokens": 3,
        "latency_s": 0.5,
    }
    values.update(kw)
    return SampleRecord(**values)  # type: ignore[arg-type]


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    s = RunStore.open(tmp_path / "run.sqlite", create=True)
    study = more_of_the_same().restrict(subjects=["nurse"], n=2)
    s.write_manifest({"study": study.to_dict(), "model": {"spec": "mock/x"}, "seed": 0})
    return s


def test_new_store_uses_wal_and_the_documented_schema(store: RunStore) -> None:
    conn = sqlite3.connect(store.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"gasp_meta", "manifest", "samples", "cells", "sessions"} <= tables
    assert store.meta("schema_version") == str(SCHEMA_VERSION)
    assert len(store.run_id) == 36
    conn.close()


def test_manifest_is_written_once(store: RunStore) -> None:
    assert store.manifest()["model"] == {"spec": "mock/x"}
    with pytest.raises(ConfigError, match="already has a manifest"):
        store.write_manifest({"other": 1})
    assert store.study().subjects[0].name == "nurse"


def test_samples_are_written_once_and_errors_replaced(store: RunStore) -> None:
    assert store.write_samples([_record(0), _record(1, text=None, stop="error", error="boom")]) == 2
    # a success is never overwritten
    assert store.write_samples([_record(0, text="He is new.")]) == 0
    # an error row is replaced by the retried sample
    assert store.write_samples([_record(1, text="She retried.", attempts=3)]) == 1
    frame = store.samples()
    assert list(frame["text"]) == ["She is kind.", "She retried."]
    assert list(frame["attempts"]) == [1, 3]
    with pytest.raises(sqlite3.IntegrityError):
        store._conn.execute(
            "INSERT INTO samples (template, subject, condition, sample_index, prompt, "
            "stop_reason, created_at) VALUES ('persona', 'nurse', 'woman', 0, 'p', 'stop', 't')"
        )


def test_samples_frame_has_the_contract_columns(store: RunStore) -> None:
    store.write_samples(
        [_record(1), _record(0, text=None, stop="error", error="timeout", fault_kinds="timeout")]
    )
    store.write_samples(
        [_record(0, template="persona", condition="unspecified", named_gender=None, text="It is.")]
    )
    frame = store.samples()
    assert list(frame.columns[: len(CONTRACT_COLUMNS)]) == CONTRACT_COLUMNS
    assert list(frame.columns) == list(SAMPLES_FRAME_COLUMNS)
    assert len(frame) == 2  # the error row is left out
    # study order: conditions as the study lists them (unspecified before woman)
    assert list(frame["condition"]) == ["unspecified", "woman"]
    assert frame["named_gender"].iloc[0] is None and frame["named_gender"].iloc[1] == "F"
    assert set(frame["run_id"]) == {store.run_id}
    assert set(frame["study"]) == {"more-of-the-same"}
    with_errors = store.samples(include_errors=True)
    assert len(with_errors) == 3
    assert with_errors.loc[with_errors["stop_reason"] == "error", "error"].item() == "timeout"


def test_cells_record_decisions(store: RunStore) -> None:
    store.write_cells(
        [CellRecord("persona", "nurse", "unspecified", "skipped", "few men", 10, 9, 0)]
    )
    store.write_cells(
        [CellRecord("persona", "nurse", "unspecified", "skipped", "few men!", 10, 9, 0)]
    )
    cells = store.cells()
    assert len(cells) == 1 and cells["reason"].item() == "few men!"


def test_open_rejects_missing_foreign_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no run store"):
        RunStore.open(tmp_path / "none.sqlite")
    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    with pytest.raises(DataError, match="not a gasp run store"):
        RunStore.open(other)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(DataError):
        RunStore.open(junk)
    with pytest.raises(DataError):
        read_manifest(junk)


def test_read_manifest_leaves_the_file_byte_identical(store: RunStore) -> None:
    store.write_samples([_record(0)])
    store.close()
    before = store.path.read_bytes()
    assert read_manifest(store.path)["seed"] == 0  # type: ignore[index]
    assert store.path.read_bytes() == before


def test_transaction_rolls_back_as_a_whole(store: RunStore) -> None:
    bad = _record(1, stop="not-a-reason")
    with pytest.raises(sqlite3.IntegrityError):
        store.write_samples([_record(0), bad])
    assert store.count_samples(include_errors=True) == 0


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".jsonl"])
def test_export_round_trips(store: RunStore, tmp_path: Path, suffix: str) -> None:
    store.write_samples([_record(0), _record(1, text='Line one,\n"quoted"')])
    store.close()
    out = export(store.path, tmp_path / f"out{suffix}")
    if suffix == ".parquet":
        frame = pd.read_parquet(out)
        meta = pq.read_schema(out).metadata[b"gasp_manifest"]
        assert json.loads(meta)["model"]["spec"] == "mock/x"
    elif suffix == ".csv":
        frame = pd.read_csv(out)
    else:
        frame = pd.read_json(out, lines=True)
    assert list(frame.columns) == list(SAMPLES_FRAME_COLUMNS)
    assert list(frame["text"]) == ["She is kind.", 'Line one,\n"quoted"']
    assert list(frame["sample_index"]) == [0, 1]


def test_export_rejects_unknown_format(store: RunStore, tmp_path: Path) -> None:
    store.close()
    with pytest.raises(ConfigError, match=r"cannot export to out\.xlsx"):
        export(store.path, tmp_path / "out.xlsx")


def test_every_table_and_column_is_documented(store: RunStore) -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "store-schema.md").read_text()
    conn = sqlite3.connect(store.path)
    tables = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
        )
    ]
    assert sorted(tables) == ["cells", "gasp_meta", "manifest", "samples", "sessions"]
    for table in tables:
        assert f"### `{table}`" in doc
        for column in conn.execute(f"PRAGMA table_info({table})"):
            assert f"`{column[1]}`" in doc, (table, column[1])
    conn.close()
    assert f"schema version {SCHEMA_VERSION}" in doc
