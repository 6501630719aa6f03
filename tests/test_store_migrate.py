"""Migrating a version 1 run store (tests/golden/store_schema_v1.sql) to version 2 in place."""

from __future__ import annotations

import json
import random
import re
import sqlite3
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from gasp.errors import DataError
from gasp.store import (
    ItemStateRecord,
    RunStore,
    SampleRecord,
    _migrate,
    backup_path,
    read_manifest,
    v1_item_id,
)

GOLDEN = Path(__file__).parent / "golden"
RUN_ID = "0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9"
V1_COLUMNS = [
    "template", "subject", "condition", "sample_index", "named_gender", "prompt", "seed",
    "text", "stop_reason", "error", "fault_kinds", "model_id", "prompt_tokens",
    "completion_tokens", "latency_s", "attempts", "created_at",
]  # fmt: skip
V1_FRAME_COLUMNS = [
    "run_id", "study", "template", "subject", "condition", "named_gender", "sample_index",
    "prompt", "text", "stop_reason", "error", "model_id", "prompt_tokens", "completion_tokens",
    "latency_s", "attempts", "created_at", "seed", "fault_kinds",
]  # fmt: skip
TEMPLATES = {
    "persona": "Generate a persona of [ARTICLE] [OCCUPATION]",
    "biography": "Describe [ARTICLE] [OCCUPATION] as if you are writing a biography",
}
CONDITIONS = [
    {"name": "unspecified", "named_gender": None, "clause": ""},
    {"name": "woman", "named_gender": "F", "clause": "who is a woman"},
    {"name": "man", "named_gender": "M", "clause": "who is a man"},
    {"name": "nonbinary", "named_gender": "N", "clause": "who is a non-binary person"},
]
SUBJECTS = [
    {"name": "nurse", "article": "a", "attributes": {"bls_pct_female": 89.58}},
    {"name": "pâtissier", "article": "a", "attributes": {"bls_pct_female": None}},
]
#: The one cell that has a decision but no sample.
EMPTY_CELL = ("biography", "pâtissier", "nonbinary")


def _render(template: str, subject: str, condition: dict[str, Any]) -> str:
    clause = f" {condition['clause']}" if condition["clause"] else ""
    text = TEMPLATES[template].replace("[OCCUPATION]", "[OCCUPATION]" + clause, 1)
    return text.replace("[ARTICLE]", "a").replace("[OCCUPATION]", subject)


def _manifest(system_prompt: str | None) -> dict[str, Any]:
    """A manifest as version 1 runs wrote it (runner/_run.py ``_manifest``)."""
    study = {
        "name": "more-of-the-same",
        "description": "Personas and biographies of occupations.",
        "n": 3,
        "system_prompt": system_prompt,
        "templates": TEMPLATES,
        "conditions": CONDITIONS,
        "stopping": {"adaptive": True, "min_share": 0.1, "batch_size": None, "cap_factor": 20},
        "subjects": SUBJECTS,
    }
    return {
        "study": study,
        "model": {
            "spec": "openai/gpt-4o-mini",
            "provider": "openai",
            "model_id": "gpt-4o-mini-2024-07-18",
            "backend": "OpenAIBackend",
            "base_url": None,
            "api_key_env": "OPENAI_API_KEY",
        },
        "decoding": {"temperature": 1.0, "top_p": 1.0, "max_tokens": 400, "seed": 0},
        "seed": 0,
        "packages": {"python": "3.11.7", "gasp": "0.1.0", "pandas": "2.2.3"},
        "platform": "Linux-6.1-x86_64",
        "started_at": "2025-03-01T10:00:00.000000+00:00",
    }


def _v1_rows() -> list[tuple[Any, ...]]:
    """Three samples per cell but the empty one, some failed, in a scrambled order."""
    rows = []
    for subject in SUBJECTS:
        for template in TEMPLATES:
            for condition in CONDITIONS:
                key = (template, subject["name"], condition["name"])
                if key == EMPTY_CELL:
                    continue
                for index in range(3):
                    failed = (len(rows) % 7) == 3
                    text = None if failed else f"{subject['name']} #{index}: Zoë, {template}."
                    rows.append(
                        (
                            *key,
                            index,
                            condition["named_gender"],
                            _render(template, subject["name"], condition),
                            1000 + len(rows),
                            text,
                            "error" if failed else ("length" if index == 2 else "stop"),
                            "timeout after 3 attempts" if failed else None,
                            "timeout,timeout" if failed else (None if index else "rate_limit"),
                            None if failed else "gpt-4o-mini-2024-07-18",
                            None if failed else 20 + index,
                            None if failed else 100 + len(rows),
                            None if failed else 0.25 * (1 + index),
                            3 if failed else 1 + (index == 1),
                            f"2025-03-01T10:{len(rows):02d}:00.000000+00:00",
                        )
                    )
    random.Random(5).shuffle(rows)
    return rows


def make_v1_store(path: Path, *, system_prompt: str | None = None) -> Path:
    """A version 1 store, written with raw SQL on the version 1 golden schema."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.executescript((GOLDEN / "store_schema_v1.sql").read_text())
    conn.executemany(
        "INSERT INTO gasp_meta VALUES (?, ?)",
        [("schema_version", "1"), ("run_id", RUN_ID), ("created_at", "2025-03-01T10:00")],
    )
    body = json.dumps(_manifest(system_prompt), ensure_ascii=False)
    conn.execute("INSERT INTO manifest VALUES (1, ?)", (body,))
    conn.executemany(
        f"INSERT INTO samples ({', '.join(V1_COLUMNS)}) VALUES ({', '.join('?' * 17)})",
        _v1_rows(),
    )
    cells = [
        ("persona", "nurse", "unspecified", "complete", None, 30, 15, 12, "t1"),
        ("biography", "pâtissier", "unspecified", "skipped", "few women", 3, 0, 3, "t2"),
        ("persona", "nurse", "woman", "complete", None, 3, None, None, "t3"),
        ("biography", "nurse", "unspecified", "capped", "cap", 60, 7, None, "t4"),
        (*EMPTY_CELL, "incomplete", "interrupted", 0, None, None, "t5"),
    ]
    conn.executemany("INSERT INTO cells VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", cells)
    conn.execute("INSERT INTO sessions (started_at, finished_at, outcome) VALUES ('a', 'b', 'x')")
    conn.execute("INSERT INTO sessions (started_at) VALUES ('c')")
    conn.close()
    return path


def v1_samples(path: Path, *, include_errors: bool = False) -> pd.DataFrame:
    """``samples()`` as version 1 computed it, straight from the version 1 tables."""
    conn = sqlite3.connect(path)
    where = "" if include_errors else " WHERE stop_reason != 'error'"
    frame = pd.read_sql_query(f"SELECT {', '.join(V1_COLUMNS)} FROM samples{where}", conn)
    study = json.loads(conn.execute("SELECT body FROM manifest").fetchone()[0])["study"]
    conn.close()
    frame.insert(0, "study", study["name"])
    frame.insert(0, "run_id", RUN_ID)
    orders = [
        [s["name"] for s in study["subjects"]],
        list(study["templates"]),
        [c["name"] for c in study["conditions"]],
    ]
    keys = {}
    for col, order in zip(("subject", "template", "condition"), orders, strict=True):
        rank = {name: i for i, name in enumerate(order)}
        keys[f"_{col}"] = frame[col].map(rank).fillna(len(rank)).astype("int64")
    frame = frame.assign(**keys)
    frame = frame.sort_values(["_subject", "_template", "_condition", "sample_index"])
    frame = frame.drop(columns=list(keys))
    frame["named_gender"] = (
        frame["named_gender"].astype(object).where(frame["named_gender"].notna(), None)
    )
    for col in ("prompt_tokens", "completion_tokens", "seed"):
        frame[col] = frame[col].astype("Int64")
    frame["attempts"] = frame["attempts"].astype("int64")
    frame["sample_index"] = frame["sample_index"].astype("int64")
    frame["latency_s"] = frame["latency_s"].astype("float64")
    return frame[V1_FRAME_COLUMNS].reset_index(drop=True)


def _schema(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    rows = conn.execute(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'"
    ).fetchall()
    conn.close()
    text = re.sub(r"--[^\n]*", "", ";".join(r[0] for r in rows))
    return sorted(" ".join(p.split()) for p in text.split(";") if p.strip())


def _v1_tables(path: Path) -> tuple[str, set[str]]:
    conn = sqlite3.connect(path)
    version = conn.execute("SELECT value FROM gasp_meta WHERE key = 'schema_version'").fetchone()
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    conn.close()
    return version[0], tables


@pytest.fixture
def v1(tmp_path: Path) -> Path:
    return make_v1_store(tmp_path / "run.sqlite")


def test_migration_keeps_every_sample_in_order(v1: Path) -> None:
    original = v1.read_bytes()
    expected = v1_samples(v1)
    expected_all = v1_samples(v1, include_errors=True)
    assert len(expected_all) == 45 and 0 < len(expected) < 45
    with RunStore.open(v1) as store:
        assert backup_path(v1) == v1.with_name("run.v1-backup.sqlite")
        assert backup_path(v1).read_bytes() == original
        backup = sqlite3.connect(backup_path(v1))
        assert backup.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert backup.execute("SELECT COUNT(*) FROM samples").fetchone()[0] == 45
        backup.close()
        assert store.meta("schema_version") == "2" and store.meta("migrated_from") == "1"
        assert store.run_id == RUN_ID
        assert store.integrity_check() == "ok"
        for include_errors, want in ((False, expected), (True, expected_all)):
            frame = store.samples(include_errors=include_errors)
            keys = zip(frame["template"], frame["subject"], frame["condition"], strict=True)
            assert list(frame["item_id"]) == [v1_item_id(*k) for k in keys]
            assert list(frame.columns) == [*V1_FRAME_COLUMNS[:2], "item_id", *V1_FRAME_COLUMNS[2:]]
            pd.testing.assert_frame_equal(frame.drop(columns="item_id"), want)
        assert store.count_samples(include_errors=True) == 45
        manifest = store.manifest()
        assert manifest["study_kind"] == "more-of-the-same"
        assert manifest == {**_manifest(None), "study_kind": "more-of-the-same"}
        assert list(store.sessions()["outcome"].fillna("")) == ["x", ""]
    assert _schema(v1) == _schema_of_new_store(v1.parent)


def _schema_of_new_store(folder: Path) -> list[str]:
    RunStore.open(folder / "new.sqlite", create=True).close()
    return _schema(folder / "new.sqlite")


def test_migrated_items_and_decisions(v1: Path) -> None:
    with RunStore.open(v1) as store:
        items = store.items()
        assert len(items) == 16  # 2 subjects x 2 templates x 4 conditions
        assert list(items["ordinal"]) == list(range(16))  # subjects, templates, conditions
        first = items.iloc[1]
        assert first["item_id"] == '["persona", "nurse", "woman"]'
        assert first["prompt"] == "Generate a persona of a nurse who is a woman"
        assert first["messages"] == [{"role": "user", "content": first["prompt"]}]
        assert first["kind"] == "generate" and first["candidates"] is None
        records = {r.item_id: r for r in store.item_records()}
        empty = records[v1_item_id(*EMPTY_CELL)]
        assert list(empty.attributes.items()) == [
            ("template", "biography"), ("subject", "pâtissier"),
            ("condition", "nonbinary"), ("named_gender", "N"),
        ]  # fmt: skip
        assert empty.prompt == _render("biography", "pâtissier", CONDITIONS[3])
        assert empty.ordinal == 15
        states = store.item_states().set_index("item_id")
        assert len(states) == 5
        counts = states["counts"].to_dict()
        assert counts[v1_item_id("persona", "nurse", "unspecified")] == {"F": 15, "M": 12}
        assert counts[v1_item_id("biography", "nurse", "unspecified")] == {"F": 7}
        assert counts[v1_item_id("persona", "nurse", "woman")] is None
        assert states.loc[v1_item_id("biography", "pâtissier", "unspecified"), "status"] == (
            "skipped"
        )


def test_reopening_a_migrated_store_changes_nothing(v1: Path) -> None:
    RunStore.open(v1).close()
    after, backup = v1.read_bytes(), backup_path(v1).read_bytes()
    with RunStore.open(v1) as store:
        assert store.meta("schema_version") == "2"
    assert v1.read_bytes() == after and backup_path(v1).read_bytes() == backup


def test_migrated_store_reads_like_a_store_written_in_version_2(v1: Path, tmp_path: Path) -> None:
    with RunStore.open(v1) as old:
        items, manifest = old.item_records(), old.manifest()
        expected = old.samples(include_errors=True).drop(columns="run_id")
        raw = pd.read_sql_query("SELECT * FROM samples ORDER BY id", old._conn)
    records = [
        SampleRecord(**{k: (None if pd.isna(v) else v) for k, v in row.items() if k != "id"})
        for row in raw.to_dict("records")
    ]
    with RunStore.open(tmp_path / "v2.sqlite", create=True) as new:
        new.write_manifest(manifest)
        new.write_items(reversed(items))
        new.write_samples(records)
        fresh = new.samples(include_errors=True).drop(columns="run_id")
        new.write_item_states([ItemStateRecord(items[0].item_id, "complete", None, 3)])
    pd.testing.assert_frame_equal(fresh, expected)


def test_system_prompt_becomes_the_first_message(tmp_path: Path) -> None:
    path = make_v1_store(tmp_path / "run.sqlite", system_prompt="Answer briefly.")
    with RunStore.open(path) as store:
        messages = store.items()["messages"].iloc[0]
    assert messages[0] == {"role": "system", "content": "Answer briefly."}
    assert messages[1]["role"] == "user" and len(messages) == 2


def test_read_manifest_of_a_v1_store_adds_the_study_kind(v1: Path) -> None:
    before = v1.read_bytes()
    manifest = read_manifest(v1)
    assert manifest is not None and manifest["study_kind"] == "more-of-the-same"
    assert manifest["study"] == _manifest(None)["study"]
    assert v1.read_bytes() == before and not backup_path(v1).exists()
    assert _v1_tables(v1)[0] == "1"


def test_failed_migration_leaves_a_v1_store_that_migrates_later(
    v1: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = v1_samples(v1)

    def broken(*args: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(_migrate, "_items", broken)
    with pytest.raises(DataError, match=r"could not migrate .*disk on fire.*unchanged"):
        RunStore.open(v1)
    version, tables = _v1_tables(v1)
    assert version == "1" and {"samples", "cells"} <= tables and "items" not in tables
    pd.testing.assert_frame_equal(v1_samples(v1), expected)
    assert backup_path(v1).exists()
    monkeypatch.undo()
    with RunStore.open(v1) as store:  # the identical backup is kept
        frame = store.samples().drop(columns="item_id")
        assert store.integrity_check() == "ok"
    pd.testing.assert_frame_equal(frame, expected)


def test_a_different_backup_file_blocks_the_migration(v1: Path) -> None:
    backup_path(v1).write_bytes(b"something else")
    with pytest.raises(DataError, match=r"run\.v1-backup\.sqlite exists and differs"):
        RunStore.open(v1)
    assert _v1_tables(v1)[0] == "1"
    assert backup_path(v1).read_bytes() == b"something else"
    assert not list(v1.parent.glob(".*.tmp"))


def test_cells_the_study_does_not_list_come_last(v1: Path) -> None:
    conn = sqlite3.connect(v1)
    conn.executemany(
        f"INSERT INTO samples ({', '.join(V1_COLUMNS)}) VALUES ({', '.join('?' * 17)})",
        [
            ("persona", "ghost", "woman", i, "F", "Generate a ghost", None, f"g{i}", "stop",
             None, None, None, None, None, None, 1, "t")
            for i in (1, 0)
        ],
    )  # fmt: skip
    conn.commit()
    conn.close()
    expected = v1_samples(v1)
    with RunStore.open(v1) as store:
        frame = store.samples().drop(columns="item_id")
        ghost = store.items().set_index("subject").loc["ghost"]
    assert ghost["ordinal"] == 16 and ghost["prompt"] == "Generate a ghost"
    pd.testing.assert_frame_equal(frame, expected)
    assert list(frame["text"].iloc[-2:]) == ["g0", "g1"]
