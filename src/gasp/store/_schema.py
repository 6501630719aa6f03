"""The run store's SQLite schema, version :data:`SCHEMA_VERSION` (see docs/store-schema.md).

One SQLite file (WAL mode) holds one run:

``gasp_meta``
    key/value pairs: ``schema_version``, ``run_id`` (a UUID), ``created_at`` (UTC, ISO 8601).
``manifest``
    exactly one row (``id = 1``): the run manifest as JSON (study spec, model, backend,
    decoding settings, seed, package versions, start time). Written once; a resumed
    run must match it. Never holds an API key.
``samples``
    one row per requested sample, unique on (template, subject, condition,
    sample_index). A sample that succeeded is written once and never replaced; a
    row with ``stop_reason = 'error'`` records a failure and is replaced when the
    sample is retried.
``cells``
    the runner's latest decision per cell: ``complete``, ``skipped``, ``capped`` or
    ``incomplete``, with the reason and the associated-gender counts behind it. The
    decisions can always be recomputed from ``samples``.
``sessions``
    one row per invocation of the runner on this store (start, end, outcome and a
    JSON summary), so a resumed run shows its history.
"""

from __future__ import annotations

SCHEMA_VERSION = 1

SAMPLE_COLUMNS: tuple[str, ...] = (
    "template",
    "subject",
    "condition",
    "sample_index",
    "named_gender",
    "prompt",
    "seed",
    "text",
    "stop_reason",
    "error",
    "fault_kinds",
    "model_id",
    "prompt_tokens",
    "completion_tokens",
    "latency_s",
    "attempts",
    "created_at",
)

CELL_COLUMNS: tuple[str, ...] = (
    "template",
    "subject",
    "condition",
    "status",
    "reason",
    "n_samples",
    "n_female",
    "n_male",
    "updated_at",
)

DDL: tuple[str, ...] = (
    """
    CREATE TABLE IF NOT EXISTS gasp_meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS manifest (
        id   INTEGER PRIMARY KEY CHECK (id = 1),
        body TEXT NOT NULL
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS samples (
        id                INTEGER PRIMARY KEY,
        template          TEXT    NOT NULL,
        subject           TEXT    NOT NULL,
        condition         TEXT    NOT NULL,
        sample_index      INTEGER NOT NULL CHECK (sample_index >= 0),
        named_gender      TEXT    CHECK (named_gender IN ('F', 'M', 'N')),
        prompt            TEXT    NOT NULL,
        seed              INTEGER,
        text              TEXT,
        stop_reason       TEXT    NOT NULL CHECK (stop_reason IN
                          ('stop', 'length', 'content_filter', 'refusal', 'error')),
        error             TEXT,
        fault_kinds       TEXT,
        model_id          TEXT,
        prompt_tokens     INTEGER,
        completion_tokens INTEGER,
        latency_s         REAL,
        attempts          INTEGER NOT NULL DEFAULT 1,
        created_at        TEXT    NOT NULL,
        UNIQUE (template, subject, condition, sample_index)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS cells (
        template   TEXT    NOT NULL,
        subject    TEXT    NOT NULL,
        condition  TEXT    NOT NULL,
        status     TEXT    NOT NULL
                   CHECK (status IN ('complete', 'skipped', 'capped', 'incomplete')),
        reason     TEXT,
        n_samples  INTEGER NOT NULL,
        n_female   INTEGER,
        n_male     INTEGER,
        updated_at TEXT    NOT NULL,
        PRIMARY KEY (template, subject, condition)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS sessions (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        started_at  TEXT NOT NULL,
        finished_at TEXT,
        outcome     TEXT,
        summary     TEXT
    )
    """,
)

#: Insert a sample; an existing row is replaced only when it records an error.
UPSERT_SAMPLE = f"""
INSERT INTO samples ({", ".join(SAMPLE_COLUMNS)})
VALUES ({", ".join("?" for _ in SAMPLE_COLUMNS)})
ON CONFLICT (template, subject, condition, sample_index) DO UPDATE SET
    {", ".join(f"{c} = excluded.{c}" for c in SAMPLE_COLUMNS[4:])}
WHERE samples.stop_reason = 'error'
"""

UPSERT_CELL = f"""
INSERT INTO cells ({", ".join(CELL_COLUMNS)})
VALUES ({", ".join("?" for _ in CELL_COLUMNS)})
ON CONFLICT (template, subject, condition) DO UPDATE SET
    {", ".join(f"{c} = excluded.{c}" for c in CELL_COLUMNS[3:])}
"""
