"""The SQLite run store (schema version 2): items, write-once samples and scores, manifest."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from gasp.errors import ConfigError, DataError
from gasp.store import (
    SAMPLES_TRAILING_COLUMNS,
    SCHEMA_VERSION,
    SCORES_TRAILING_COLUMNS,
    ItemRecord,
    ItemStateRecord,
    RunStore,
    SampleRecord,
    ScoreRecord,
    export,
    read_manifest,
    v1_item_id,
)

CONTRACT_COLUMNS = [
    "run_id", "study", "item_id", "template", "subject", "condition", "named_gender",
    "sample_index", "prompt", "text", "stop_reason", "error", "model_id", "prompt_tokens",
    "completion_tokens", "latency_s", "attempts", "created_at",
]  # fmt: skip

STUDY = {
    "name": "more-of-the-same",
    "system_prompt": None,
    "templates": {"persona": "Generate a persona of [ARTICLE] [OCCUPATION]"},
    "conditions": [
        {"name": "unspecified", "named_gender": None, "clause": ""},
        {"name": "woman", "named_gender": "F", "clause": "who is a woman"},
    ],
    "subjects": [{"name": "nurse", "article": "a", "attributes": {}}],
}


def _item(condition: str, ordinal: int) -> ItemRecord:
    prompt = "Generate a persona of a nurse" + (" who is a woman" if condition == "woman" else "")
    return ItemRecord(
        item_id=v1_item_id("persona", "nurse", condition),
        ordinal=ordinal,
        kind="generate",
        prompt=prompt,
        attributes={
            "template": "persona",
            "subject": "nurse",
            "condition": condition,
            "named_gender": "F" if condition == "woman" else None,
        },
        messages=(("user", prompt),),
    )


ITEMS = (_item("unspecified", 0), _item("woman", 1))
WOMAN = ITEMS[1].item_id
SCORE_ITEM = ItemRecord(
    item_id="q1",
    ordinal=2,
    kind="score",
    prompt="The nurse said that",
    attributes={"job": "nurse", "pronoun_set": "he/she"},
    candidates=("she", "he"),
)


def _record(
    index: int, *, text: str | None = "She is kind.", stop: str = "stop", **kw: object
) -> SampleRecord:
    values: dict[str, object] = {
        "item_id": WOMAN,
        "sample_index": index,
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


def _score(candidate: str, logprob: float | None, **kw: object) -> ScoreRecord:
    values: dict[str, object] = {
        "item_id": "q1",
        "sample_index": 0,
        "candidate": candidate,
        "logprob": logprob,
        "tokens": (" " + candidate,),
        "token_ids": (11,),
        "model_id": "m",
    }
    values.update(kw)
    return ScoreRecord(**values)  # type: ignore[arg-type]


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    s = RunStore.open(tmp_path / "run.sqlite", create=True)
    s.write_manifest({"study": STUDY, "model": {"spec": "mock/x"}, "seed": 0})
    s.write_items([*ITEMS, SCORE_ITEM])
    return s


def test_new_store_uses_wal_and_the_documented_schema(store: RunStore) -> None:
    conn = sqlite3.connect(store.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"gasp_meta", "manifest", "items", "samples", "scores", "item_states"} <= tables
    assert store.meta("schema_version") == str(SCHEMA_VERSION) == "2"
    assert len(store.run_id) == 36
    assert store.integrity_check() == "ok"
    conn.close()


def test_manifest_is_written_once(store: RunStore) -> None:
    assert store.manifest()["model"] == {"spec": "mock/x"}
    with pytest.raises(ConfigError, match="already has a manifest"):
        store.write_manifest({"other": 1})
    assert store.manifest()["study"]["subjects"][0]["name"] == "nurse"


def test_items_are_written_once_and_conflicts_are_named(store: RunStore) -> None:
    assert store.write_items([*ITEMS, SCORE_ITEM]) == 0  # same content: nothing to do
    changed = ItemRecord(**{**ITEMS[1].__dict__, "prompt": "Generate a nurse"})
    with pytest.raises(DataError, match=r"item '\[\"persona\", \"nurse\", \"woman\"\]'.*prompt"):
        store.write_items([_item("man", 5), changed])
    assert len(store.items()) == 3  # the new item in the failed batch was not written
    items = store.items()
    assert list(items.columns) == [
        "item_id", "ordinal", "kind", "prompt", "messages", "candidates",
        "template", "subject", "condition", "named_gender", "job", "pronoun_set",
    ]  # fmt: skip
    assert items["messages"].iloc[1] == [{"role": "user", "content": ITEMS[1].prompt}]
    assert items["candidates"].iloc[2] == ["she", "he"] and items["candidates"].iloc[0] is None
    assert items["job"].iloc[0] is None and items["named_gender"].iloc[1] == "F"
    assert store.item_records() == [*ITEMS, SCORE_ITEM]


def test_bad_items_are_refused() -> None:
    with pytest.raises(DataError, match="needs candidates"):
        ItemRecord("x", 0, "score", "p", {})
    with pytest.raises(DataError, match="no candidates"):
        ItemRecord("x", 0, "generate", "p", {}, candidates=("a",))
    with pytest.raises(DataError, match="kind"):
        ItemRecord("x", 0, "classify", "p", {})
    with pytest.raises(DataError, match="'text' cannot be an attribute"):
        ItemRecord("x", 0, "generate", "p", {"text": 1})


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
            "INSERT INTO samples (item_id, sample_index, stop_reason, created_at) "
            "VALUES (?, 0, 'stop', 't')",
            (WOMAN,),
        )
    stored = store.stored_samples()
    assert list(stored.columns) == [
        "item_id", "sample_index", "stop_reason", "text", "prompt_tokens", "completion_tokens",
    ]  # fmt: skip
    assert len(stored) == 2


def test_samples_need_a_stored_generate_item(store: RunStore) -> None:
    with pytest.raises(DataError, match="'nope' is not in the store"):
        store.write_samples([_record(0), _record(1, item_id="nope")])
    with pytest.raises(DataError, match="'q1' is a score item"):
        store.write_samples([_record(0, item_id="q1")])
    assert store.count_samples(include_errors=True) == 0


def test_samples_frame_has_the_contract_columns(store: RunStore) -> None:
    store.write_samples(
        [_record(1), _record(0, text=None, stop="error", error="timeout", fault_kinds="timeout")]
    )
    store.write_samples([_record(0, item_id=ITEMS[0].item_id, text="It is.")])
    frame = store.samples()
    # the attributes of the score item (job, pronoun_set) follow those of the persona items
    mots = [c for c in frame.columns if c not in ("job", "pronoun_set")]
    assert mots[: len(CONTRACT_COLUMNS)] == CONTRACT_COLUMNS
    attributes = ["template", "subject", "condition", "named_gender", "job", "pronoun_set"]
    assert list(frame.columns) == [
        "run_id", "study", "item_id", *attributes, *SAMPLES_TRAILING_COLUMNS
    ]  # fmt: skip
    assert len(frame) == 2  # the error row is left out
    # study order: items by ordinal (unspecified before woman)
    assert list(frame["condition"]) == ["unspecified", "woman"]
    assert frame["named_gender"].iloc[0] is None and frame["named_gender"].iloc[1] == "F"
    assert frame["named_gender"].dtype == object
    assert set(frame["run_id"]) == {store.run_id}
    assert set(frame["study"]) == {"more-of-the-same"}
    assert str(frame["seed"].dtype) == "Int64" and frame["sample_index"].dtype == "int64"
    with_errors = store.samples(include_errors=True)
    assert len(with_errors) == 3
    assert with_errors.loc[with_errors["stop_reason"] == "error", "error"].item() == "timeout"
    assert store.count_samples() == 2 and store.count_samples(include_errors=True) == 3


def test_scores_are_written_once_in_candidate_order(store: RunStore) -> None:
    rows = [_score("he", -2.5), _score("she", None, status="error", error="boom", tokens=())]
    assert store.write_scores(rows) == 2
    assert store.write_scores([_score("he", -9.0)]) == 0  # never overwritten
    assert store.write_scores([_score("she", -1.25, approximate=True, attempts=2)]) == 1
    frame = store.scores()
    assert list(frame.columns) == [
        "run_id", "study", "item_id", "template", "subject", "condition", "named_gender",
        "job", "pronoun_set", *SCORES_TRAILING_COLUMNS,
    ]  # fmt: skip
    assert list(frame["candidate"]) == ["she", "he"]  # the item's order
    assert list(frame["logprob"]) == [-1.25, -2.5]
    assert list(frame["approximate"]) == [True, False]
    assert frame["tokens"].iloc[0] == [" she"] and frame["token_ids"].iloc[0] == [11]
    assert list(frame["n_tokens"]) == [1, 1] and list(frame["job"]) == ["nurse", "nurse"]
    assert frame["template"].iloc[0] is None
    stored = store.stored_scores()
    assert list(stored.columns) == ["item_id", "sample_index", "candidate", "status", "logprob"]
    with pytest.raises(DataError, match="no candidate 'they'"):
        store.write_scores([_score("they", -1.0)])
    with pytest.raises(DataError, match="is a generate item"):
        store.write_scores([_score("she", -1.0, item_id=WOMAN)])
    with pytest.raises(sqlite3.IntegrityError):  # an error row holds no log-probability
        store.write_scores([_score("she", -1.0, sample_index=1, status="error")])
    assert store.count_scores(include_errors=True) == 2


def test_item_states_record_decisions(store: RunStore) -> None:
    item = ITEMS[0].item_id
    store.write_item_states([ItemStateRecord(item, "skipped", "few men", 10, {"F": 9, "M": 0})])
    store.write_item_states([ItemStateRecord(item, "skipped", "few men!", 10, {"F": 9, "M": 0})])
    store.write_item_states([ItemStateRecord("q1", "complete", None, 1)])
    states = store.item_states()
    assert states["reason"].iloc[0] == "few men!" and pd.isna(states["reason"].iloc[1])
    assert states["counts"].iloc[0] == {"F": 9, "M": 0} and states["counts"].iloc[1] is None
    assert list(states.columns[:3]) == ["item_id", "template", "subject"]
    assert list(states.columns[-5:]) == ["status", "reason", "n_samples", "counts", "updated_at"]
    with pytest.raises(DataError, match="'nope' is not in the store"):
        store.write_item_states([ItemStateRecord("nope", "complete", None, 1)])
    with pytest.raises(sqlite3.IntegrityError):  # the schema holds without the check too
        store._conn.execute(
            "INSERT INTO item_states VALUES ('nope', 'complete', NULL, 1, NULL, 't')"
        )


def test_an_empty_store_gives_empty_frames(tmp_path: Path) -> None:
    with RunStore.open(tmp_path / "empty.sqlite", create=True) as store:
        assert list(store.samples().columns) == [
            "run_id", "study", "item_id", *SAMPLES_TRAILING_COLUMNS
        ]  # fmt: skip
        assert store.scores().empty and store.item_states().empty and store.items().empty
        store.write_items(ITEMS)
        assert list(store.samples().columns)[3:7] == [
            "template", "subject", "condition", "named_gender"
        ]  # fmt: skip
        assert store.samples()["study"].empty and store.stored_samples().empty


def test_open_rejects_missing_foreign_newer_and_empty_files(tmp_path: Path) -> None:
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
    newer = tmp_path / "newer.sqlite"
    RunStore.open(newer, create=True).close()
    conn = sqlite3.connect(newer)
    conn.execute("UPDATE gasp_meta SET value = '3' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(DataError, match="schema version 3, written by a newer gasp"):
        RunStore.open(newer)
    with pytest.raises(DataError, match="schema version 3"):
        read_manifest(newer)


def test_read_manifest_leaves_the_file_byte_identical(store: RunStore) -> None:
    store.write_samples([_record(0)])
    store.close()
    before = store.path.read_bytes()
    assert read_manifest(store.path)["seed"] == 0  # type: ignore[index]
    assert "study_kind" not in read_manifest(store.path)  # type: ignore[operator]
    assert store.path.read_bytes() == before


def test_transaction_rolls_back_as_a_whole(store: RunStore) -> None:
    bad = _record(1, stop="not-a-reason")
    with pytest.raises(sqlite3.IntegrityError):
        store.write_samples([_record(0), bad])
    assert store.count_samples(include_errors=True) == 0


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".jsonl"])
def test_export_round_trips(store: RunStore, tmp_path: Path, suffix: str) -> None:
    store.write_samples([_record(0), _record(1, text='Line one,\n"quoted"')])
    store.write_scores([_score("she", -1.0), _score("he", -2.0)])
    columns = list(store.samples().columns)
    store.close()
    out = export(store.path, tmp_path / f"out{suffix}")
    scores_out = export(store.path, tmp_path / f"scores{suffix}", table="scores")
    if suffix == ".parquet":
        frame = pd.read_parquet(out)
        meta = pq.read_schema(out).metadata[b"gasp_manifest"]
        assert json.loads(meta)["model"]["spec"] == "mock/x"
        assert list(pd.read_parquet(scores_out)["tokens"].iloc[0]) == [" she"]
    elif suffix == ".csv":
        frame = pd.read_csv(out)
        assert json.loads(pd.read_csv(scores_out)["tokens"].iloc[0]) == [" she"]
    else:
        frame = pd.read_json(out, lines=True)
        assert pd.read_json(scores_out, lines=True)["tokens"].iloc[0] == [" she"]
    assert list(frame.columns) == columns
    assert list(frame["text"]) == ["She is kind.", 'Line one,\n"quoted"']
    assert list(frame["sample_index"]) == [0, 1]


def test_export_rejects_unknown_format(store: RunStore, tmp_path: Path) -> None:
    store.close()
    with pytest.raises(ConfigError, match=r"cannot export to out\.xlsx"):
        export(store.path, tmp_path / "out.xlsx")
    with pytest.raises(ConfigError, match="cannot export 'cells'"):
        export(store.path, tmp_path / "out.csv", table="cells")


def test_every_table_and_column_is_documented(store: RunStore) -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "store-schema.md").read_text()
    conn = sqlite3.connect(store.path)
    tables = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
        )
    ]
    assert sorted(tables) == [
        "batches", "gasp_meta", "item_states", "items", "manifest", "samples", "scores",
        "sessions",
    ]  # fmt: skip
    for table in tables:
        assert f"### `{table}`" in doc
        for column in conn.execute(f"PRAGMA table_info({table})"):
            assert f"`{column[1]}`" in doc, (table, column[1])
    conn.close()
    assert f"schema version {SCHEMA_VERSION}" in doc


def test_a_store_written_before_the_queue_columns_gets_them_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with RunStore.open(path, create=True) as s:
        s.write_manifest({"study": STUDY, "model": {"spec": "mock/x"}, "seed": 0})
        s.write_items([*ITEMS, SCORE_ITEM])
        s.write_samples([_record(0)])
    conn = sqlite3.connect(path)
    for table in ("samples", "scores"):
        conn.execute(f"ALTER TABLE {table} DROP COLUMN queue_s")
    conn.close()
    with RunStore.open(path) as s:
        assert s.meta("schema_version") == "2"
        s.write_samples([_record(1, queue_s=1.5)])
        s.write_scores([_score("she", -1.0, queue_s=0.25)])
        assert len(s.samples()) == 2 and "queue_s" not in s.samples().columns
    conn = sqlite3.connect(path)
    waits = conn.execute("SELECT queue_s FROM samples ORDER BY sample_index").fetchall()
    assert waits == [(None,), (1.5,)]
    assert conn.execute("SELECT queue_s FROM scores").fetchall() == [(0.25,)]
    conn.close()
