-- Schema of a new gasp run store, version 2 (golden file: tests/test_store_golden.py).
-- A change to the store's schema must bump SCHEMA_VERSION and add a new golden file,
-- except a new table that older code ignores (batches): it is added to this version,
-- and RunStore creates it in a store written before it (docs/store-schema.md).
-- store_schema_v1.sql stays: it is the schema the migration tests start from.

-- table batches
CREATE TABLE batches (
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
    );

-- table gasp_meta
CREATE TABLE gasp_meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );

-- table item_states
CREATE TABLE item_states (
        item_id    TEXT    PRIMARY KEY REFERENCES items (item_id),
        status     TEXT    NOT NULL
                   CHECK (status IN ('complete', 'skipped', 'capped', 'incomplete')),
        reason     TEXT,
        n_samples  INTEGER NOT NULL,
        counts     TEXT,
        updated_at TEXT    NOT NULL
    );

-- table items
CREATE TABLE items (
        item_id    TEXT    PRIMARY KEY,
        ordinal    INTEGER NOT NULL,
        kind       TEXT    NOT NULL CHECK (kind IN ('generate', 'score')),
        prompt     TEXT    NOT NULL,
        messages   TEXT,
        candidates TEXT,
        attributes TEXT    NOT NULL,
        CHECK ((kind = 'score') = (candidates IS NOT NULL))
    );

-- table manifest
CREATE TABLE manifest (
        id   INTEGER PRIMARY KEY CHECK (id = 1),
        body TEXT NOT NULL
    );

-- table samples
CREATE TABLE samples (
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
    );

-- table scores
CREATE TABLE scores (
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
    );

-- table sessions
CREATE TABLE sessions (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        started_at  TEXT NOT NULL,
        finished_at TEXT,
        outcome     TEXT,
        summary     TEXT
    );
