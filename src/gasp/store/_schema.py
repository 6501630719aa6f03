"""The run store's SQLite schema, version :data:`SCHEMA_VERSION` (see docs/store-schema.md).

One SQLite file (WAL mode) holds one run of one study:

``gasp_meta``
    key/value pairs: ``schema_version``, ``run_id`` (a UUID), ``created_at`` (UTC, ISO
    8601) and, for a store migrated from an older version, ``migrated_from`` and
    ``migrated_at``.
``manifest``
    exactly one row (``id = 1``): the run manifest as JSON (study spec, model, backend,
    decoding settings, seed, package versions, start time). Written once; a resumed
    run must match it. Never holds an API key.
``items``
    the study expanded into requests: one row per item (a prompt or chat messages plus
    named attributes), either free-text generation (``generate``) or the scoring of
    candidate continuations (``score``). Items are written once and never change.
``samples``
    one row per (item, sample index) generation. A sample that succeeded is written
    once and never replaced; a row with ``stop_reason = 'error'`` records a failure
    and is replaced when the sample is retried.
``scores``
    one row per (item, sample index, candidate): the log-probability of the candidate
    continuation. Replaced only when the stored row is an error, like ``samples``.
``item_states``
    the runner's latest decision per item (``complete``, ``skipped``, ``capped`` or
    ``incomplete``), with the reason and the counts behind it. Derived data: it can
    always be recomputed from ``samples`` and ``scores``.
``sessions``
    one row per invocation of the runner on this store (start, end, outcome and a
    JSON summary), so a resumed run shows its history.
``batches``
    one row per submission to a provider's batch API (``--batch``): the request keys
    it carries, the provider's batch and file ids and the last status seen, so a
    killed run resumes polling instead of submitting again. Added to version 2
    without a version bump: older code ignores the table, and a version 2 store
    written before it gets the table on its first batch run (:data:`BATCHES_DDL`).

``latency_s`` of a sample or score is the compute time of the call that answered it,
from when the call reached the model; ``queue_s`` the time it waited before (for the
concurrency bound, the model's loading or its lock; NULL where not measured). The
``queue_s`` columns were also added to version 2 without a version bump: older code
names its columns and ignores them, and a version 2 store written before gets them
when it is opened (:data:`ADDED_COLUMNS`).
"""

from __future__ import annotations

SCHEMA_VERSION = 2

ITEM_COLUMNS: tuple[str, ...] = (
    "item_id",
    "ordinal",
    "kind",
    "prompt",
    "messages",
    "candidates",
    "attributes",
)

SAMPLE_COLUMNS: tuple[str, ...] = (
    "item_id",
    "sample_index",
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
    "queue_s",
)

SCORE_COLUMNS: tuple[str, ...] = (
    "item_id",
    "sample_index",
    "candidate",
    "logprob",
    "n_tokens",
    "tokens",
    "token_ids",
    "approximate",
    "status",
    "error",
    "fault_kinds",
    "model_id",
    "prompt_tokens",
    "latency_s",
    "attempts",
    "created_at",
    "queue_s",
)

BATCH_COLUMNS: tuple[str, ...] = (
    "submission",
    "batch_id",
    "request_keys",
    "status",
    "input_file_id",
    "output_file_id",
    "error_file_id",
    "counts",
    "error",
    "created_at",
    "updated_at",
)

#: The status of a batch row is ``submitting`` (written before the provider is asked,
#: so a kill in between is found again), then the provider's own (``validating``,
#: ``in_progress``, ``finalizing``, ``completed``, ``failed``, ``expired``,
#: ``cancelling``, ``cancelled``; not checked, as a provider may add statuses), then
#: ``collected`` (every line committed) or ``abandoned`` (never created at the provider).
BATCH_DONE_STATUSES: tuple[str, ...] = ("collected", "abandoned")

BATCHES_DDL = """
    CREATE TABLE IF NOT EXISTS batches (
        id             INTEGER PRIMARY KEY AUTOINCREMENT,
        submission     TEXT    NOT NULL UNIQUE,
        batch_id       TEXT    UNIQUE,
        request_keys   TEXT    NOT NULL,
        status         TEXT    NOT NULL,
        input_file_id  TEXT,
        output_file_id TEXT,
        error_file_id  TEXT,
        counts         TEXT,
        error          TEXT,
        created_at     TEXT    NOT NULL,
        updated_at     TEXT    NOT NULL
    )
    """

#: Nullable columns added to version 2 tables after its first release, as
#: ``(table, column, declaration)``; a store that lacks one gets it when opened.
ADDED_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("samples", "queue_s", "REAL"),
    ("scores", "queue_s", "REAL"),
)

ITEM_STATE_COLUMNS: tuple[str, ...] = (
    "item_id",
    "status",
    "reason",
    "n_samples",
    "counts",
    "updated_at",
)

#: The tables of a store of this version, in creation order.
TABLES: tuple[str, ...] = (
    "gasp_meta",
    "manifest",
    "items",
    "samples",
    "scores",
    "item_states",
    "sessions",
    "batches",
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
    CREATE TABLE IF NOT EXISTS items (
        item_id    TEXT    PRIMARY KEY,
        ordinal    INTEGER NOT NULL,
        kind       TEXT    NOT NULL CHECK (kind IN ('generate', 'score')),
        prompt     TEXT    NOT NULL,
        messages   TEXT,
        candidates TEXT,
        attributes TEXT    NOT NULL,
        CHECK ((kind = 'score') = (candidates IS NOT NULL))
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS samples (
        id                INTEGER PRIMARY KEY,
        item_id           TEXT    NOT NULL REFERENCES items (item_id),
        sample_index      INTEGER NOT NULL CHECK (sample_index >= 0),
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
        queue_s           REAL,
        UNIQUE (item_id, sample_index)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS scores (
        id            INTEGER PRIMARY KEY,
        item_id       TEXT    NOT NULL REFERENCES items (item_id),
        sample_index  INTEGER NOT NULL CHECK (sample_index >= 0),
        candidate     TEXT    NOT NULL,
        logprob       REAL,
        n_tokens      INTEGER,
        tokens        TEXT    NOT NULL,
        token_ids     TEXT,
        approximate   INTEGER NOT NULL DEFAULT 0 CHECK (approximate IN (0, 1)),
        status        TEXT    NOT NULL CHECK (status IN ('ok', 'error')),
        error         TEXT,
        fault_kinds   TEXT,
        model_id      TEXT,
        prompt_tokens INTEGER,
        latency_s     REAL,
        attempts      INTEGER NOT NULL DEFAULT 1,
        created_at    TEXT    NOT NULL,
        queue_s       REAL,
        CHECK (status = 'ok' OR logprob IS NULL),
        UNIQUE (item_id, sample_index, candidate)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS item_states (
        item_id    TEXT    PRIMARY KEY REFERENCES items (item_id),
        status     TEXT    NOT NULL
                   CHECK (status IN ('complete', 'skipped', 'capped', 'incomplete')),
        reason     TEXT,
        n_samples  INTEGER NOT NULL,
        counts     TEXT,
        updated_at TEXT    NOT NULL
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
    BATCHES_DDL,
)

INSERT_ITEM = f"""
INSERT INTO items ({", ".join(ITEM_COLUMNS)})
VALUES ({", ".join("?" for _ in ITEM_COLUMNS)})
"""

#: Insert a sample; an existing row is replaced only when it records an error.
UPSERT_SAMPLE = f"""
INSERT INTO samples ({", ".join(SAMPLE_COLUMNS)})
VALUES ({", ".join("?" for _ in SAMPLE_COLUMNS)})
ON CONFLICT (item_id, sample_index) DO UPDATE SET
    {", ".join(f"{c} = excluded.{c}" for c in SAMPLE_COLUMNS[2:])}
WHERE samples.stop_reason = 'error'
"""

#: Insert a score; an existing row is replaced only when it records an error.
UPSERT_SCORE = f"""
INSERT INTO scores ({", ".join(SCORE_COLUMNS)})
VALUES ({", ".join("?" for _ in SCORE_COLUMNS)})
ON CONFLICT (item_id, sample_index, candidate) DO UPDATE SET
    {", ".join(f"{c} = excluded.{c}" for c in SCORE_COLUMNS[3:])}
WHERE scores.status = 'error'
"""

UPSERT_ITEM_STATE = f"""
INSERT INTO item_states ({", ".join(ITEM_STATE_COLUMNS)})
VALUES ({", ".join("?" for _ in ITEM_STATE_COLUMNS)})
ON CONFLICT (item_id) DO UPDATE SET
    {", ".join(f"{c} = excluded.{c}" for c in ITEM_STATE_COLUMNS[1:])}
"""
