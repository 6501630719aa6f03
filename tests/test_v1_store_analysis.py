"""A run store written by the previous release (schema version 1) opens, migrates, gives
the same analysis tables as the same samples in a version 2 store, and resumes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from gasp.runner import RunOptions, generate
from gasp.store import RunStore, backup_path, read_manifest
from gasp.studies.more_of_the_same import more_of_the_same
from gasp.studies.more_of_the_same.analysis import AnalysisConfig, analyze_run

GOLDEN_V1 = Path(__file__).parent / "golden" / "store_schema_v1.sql"
V1_SAMPLE_COLUMNS = (
    "template", "subject", "condition", "sample_index", "named_gender", "prompt", "seed",
    "text", "stop_reason", "error", "fault_kinds", "model_id", "prompt_tokens",
    "completion_tokens", "latency_s", "attempts", "created_at",
)  # fmt: skip


def _write_v1(v2_path: Path, v1_path: Path) -> None:
    """The run of ``v2_path`` as the previous release stored it (golden v1 schema)."""
    with RunStore.open(v2_path) as store:
        samples = store.samples(include_errors=True)
        manifest = store.manifest()
        states = store.item_states()
        run_id = store.run_id
    manifest.pop("study_kind")
    manifest.pop("request_kinds")
    conn = sqlite3.connect(v1_path)
    conn.execute("PRAGMA journal_mode = WAL")  # as the previous release opened its stores
    conn.executescript(GOLDEN_V1.read_text(encoding="utf-8"))
    conn.executemany(
        "INSERT INTO gasp_meta (key, value) VALUES (?, ?)",
        [("schema_version", "1"), ("run_id", run_id), ("created_at", "2026-01-01T00:00:00")],
    )
    conn.execute("INSERT INTO manifest (id, body) VALUES (1, ?)", (json.dumps(manifest),))
    rows = []
    for r in samples.itertuples(index=False):
        values = {c: getattr(r, c) for c in V1_SAMPLE_COLUMNS}
        rows.append(tuple(None if pd.isna(v) else v for v in values.values()))
    conn.executemany(
        f"INSERT INTO samples ({', '.join(V1_SAMPLE_COLUMNS)}) "
        f"VALUES ({', '.join('?' for _ in V1_SAMPLE_COLUMNS)})",
        [tuple(int(v) if hasattr(v, "item") and not isinstance(v, str) else v for v in row)
         for row in rows],
    )  # fmt: skip
    conn.executemany(
        "INSERT INTO cells (template, subject, condition, status, reason, n_samples, "
        "n_female, n_male, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                s.template, s.subject, s.condition, s.status, s.reason, int(s.n_samples),
                (s.counts or {}).get("F"), (s.counts or {}).get("M"), s.updated_at,
            )
            for s in states.itertuples(index=False)
        ],
    )  # fmt: skip
    conn.commit()
    conn.close()


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("v1")
    study = more_of_the_same().restrict(subjects=["nurse", "engineer", "pilot"], n=6)
    v2 = folder / "v2.sqlite"
    opts = RunOptions(seed=3, progress=False)
    summary = generate(study, "mock/personas", v2, opts)
    assert summary.complete
    v1 = folder / "v1.sqlite"
    _write_v1(v2, v1)
    return v1, v2


def test_a_v1_store_migrates_and_analyses_to_the_same_tables(stores: tuple[Path, Path]) -> None:
    v1, v2 = stores
    original = v1.read_bytes()
    assert read_manifest(v1)["study_kind"] == "more-of-the-same"  # type: ignore[index]
    assert v1.read_bytes() == original  # reading the manifest changes nothing
    config = AnalysisConfig(min_samples=6, n_bootstrap=3, n_permutations=5, seed=1)
    migrated = analyze_run(v1, config)
    assert backup_path(v1).read_bytes() == original
    with RunStore.open(v1) as store:
        assert store.meta("schema_version") == "2"
        assert store.integrity_check() == "ok"
    reference = analyze_run(v2, config)
    assert set(migrated.tables) == set(reference.tables)
    assert any(len(t) for t in reference.tables.values())
    for name, table in reference.tables.items():
        pd.testing.assert_frame_equal(
            migrated.tables[name].reset_index(drop=True),
            table.reset_index(drop=True),
            obj=name,
        )


def test_a_migrated_run_resumes_without_requesting_anything(stores: tuple[Path, Path]) -> None:
    v1, _ = stores
    study = more_of_the_same().restrict(subjects=["nurse", "engineer", "pilot"], n=6)
    with RunStore.open(v1) as store:
        before = store.count_samples()
    summary = generate(study, "mock/personas", v1, RunOptions(seed=3, progress=False))
    assert summary.complete and summary.generated == 0 and summary.requests == 0
    assert summary.resumed == before
