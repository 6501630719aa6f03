-- Schema of a new gasp run store, version 1 (golden file: tests/test_store_golden.py).
-- A change to the store's schema must bump SCHEMA_VERSION and update this file.

-- table cells
CREATE TABLE cells (
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
    );

-- table gasp_meta
CREATE TABLE gasp_meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );

-- table manifest
CREATE TABLE manifest (
        id   INTEGER PRIMARY KEY CHECK (id = 1),
        body TEXT NOT NULL
    );

-- table samples
CREATE TABLE samples (
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
    );

-- table sessions
CREATE TABLE sessions (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        started_at  TEXT NOT NULL,
        finished_at TEXT,
        outcome     TEXT,
        summary     TEXT
    );
