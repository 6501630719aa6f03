"""Migrating a run store of schema version 1 to version 2 (see docs/store-schema.md).

Version 1 stores were only ever written by the More of the Same study: their samples
and cell decisions are keyed by (template, subject, condition). Migration, when
:meth:`RunStore.open` meets such a file:

1. a backup copy ``<stem>.v1-backup.sqlite`` is written next to it with SQLite's
   backup API (an existing backup is reused only when it holds the same bytes);
2. in ONE transaction: the version 2 tables are created; one ``generate`` item is
   made per distinct (template, subject, condition) of the samples and cells, with
   ``item_id = json.dumps([template, subject, condition], ensure_ascii=False)``
   (:func:`v1_item_id`, the id the More of the Same study gives its items, so a
   migrated run resumes); samples and cells are copied (cells become
   ``item_states``, ``n_female``/``n_male`` become ``counts``); the manifest gets
   ``"study_kind": "more-of-the-same"``; ``schema_version`` becomes 2; the version 1
   tables are dropped.

A failure rolls the transaction back, leaving the version 1 file as it was.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gasp.errors import DataError
from gasp.store._peek import damaged_store
from gasp.store._records import ItemRecord, dumps, stored_json, utc_now
from gasp.store._schema import ADDED_COLUMNS, DDL, SCHEMA_VERSION

#: The study every version 1 store holds.
V1_STUDY_KIND = "more-of-the-same"

#: Attribute names of a migrated item, in column order.
V1_ATTRIBUTES: tuple[str, ...] = ("template", "subject", "condition", "named_gender")

_V1_SAMPLE_VALUES = (
    "id, gasp_v1_item_id(template, subject, condition), sample_index, seed, text, "
    "stop_reason, error, fault_kinds, model_id, prompt_tokens, completion_tokens, "
    "latency_s, attempts, created_at"
)
_V2_SAMPLE_TARGET = (
    "id, item_id, sample_index, seed, text, stop_reason, error, fault_kinds, model_id, "
    "prompt_tokens, completion_tokens, latency_s, attempts, created_at"
)


def v1_item_id(template: str, subject: str, condition: str) -> str:
    """The item id of a More of the Same cell: its JSON key ``["t", "s", "c"]``."""
    return json.dumps([template, subject, condition], ensure_ascii=False)


def backup_path(path: Path) -> Path:
    """Where the migration keeps the version 1 file: ``<stem>.v1-backup.sqlite``."""
    return path.with_name(f"{path.stem}.v1-backup.sqlite")


def schema_version(conn: sqlite3.Connection, path: Path) -> int:
    """The store's schema version; :class:`DataError` unless this gasp reads it."""
    row = conn.execute("SELECT value FROM gasp_meta WHERE key = 'schema_version'").fetchone()
    try:
        version = int(row[0]) if row is not None else None
    except (TypeError, ValueError):
        version = None
    if version is None or version < 1:
        raise DataError(f"{path} has no valid store schema version ({row and row[0]!r})")
    if version > SCHEMA_VERSION:
        raise DataError(
            f"{path} has store schema version {version}, written by a newer gasp; "
            f"this gasp reads versions 1 to {SCHEMA_VERSION}: upgrade gasp to open it"
        )
    return version


def upgrade_manifest(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """A version 1 manifest as migration rewrites it (``study_kind`` added at the end)."""
    upgraded = dict(manifest)
    upgraded.setdefault("study_kind", V1_STUDY_KIND)
    return upgraded


def read_manifest(path: str | Path) -> dict[str, Any] | None:
    """The manifest of an existing store, opened read-only (the file is not modified).

    Works on stores of schema version 1 and 2; the manifest of a version 1 store gets
    the ``study_kind`` its migration would add. Returns None when the file has no
    manifest yet; raises :class:`DataError` when the file is not a gasp run store or
    was written by a newer gasp.
    """
    file = Path(path)
    from gasp.store._peek import connect_read_only

    conn = connect_read_only(file, check=False)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            return None
        if "manifest" not in tables or "gasp_meta" not in tables:
            raise DataError(f"{file} is not a gasp run store")
        version = schema_version(conn, file)
        row = conn.execute("SELECT body FROM manifest WHERE id = 1").fetchone()
    except sqlite3.DatabaseError as exc:
        raise damaged_store(file, exc) from None
    finally:
        conn.close()
    if row is None:
        return None
    manifest = dict(stored_json(row[0], f"the manifest of {file}", dict))
    return upgrade_manifest(manifest) if version == 1 else manifest


def migrate_v1(conn: sqlite3.Connection, path: Path) -> None:
    """Back up the version 1 store open on ``conn`` and migrate it in place to version 2."""
    _backup(conn, path)
    conn.create_function("gasp_v1_item_id", 3, v1_item_id, deterministic=True)
    conn.create_function("gasp_v1_counts", 2, _counts, deterministic=True)
    try:
        conn.execute("BEGIN IMMEDIATE")
        if schema_version(conn, path) == 1:  # another process may have migrated it
            _migrate(conn)
    except BaseException as exc:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        if isinstance(exc, DataError | KeyboardInterrupt | SystemExit):
            raise
        raise DataError(
            f"could not migrate run store {path} to schema version {SCHEMA_VERSION} ({exc}); "
            "the file is unchanged"
        ) from exc
    conn.execute("COMMIT")


def add_missing_columns(conn: sqlite3.Connection) -> None:
    """Add the nullable columns of :data:`ADDED_COLUMNS` a version 2 store lacks."""
    for table, column, declaration in ADDED_COLUMNS:
        present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        if column not in present:
            with contextlib.suppress(sqlite3.OperationalError):  # added by another process
                conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")


def _backup(conn: sqlite3.Connection, path: Path) -> None:
    """Copy the store to :func:`backup_path` (kept if an identical copy is there)."""
    target = backup_path(path)
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    try:
        dest = sqlite3.connect(str(tmp), isolation_level=None)
        try:
            # A WAL destination keeps the file change counter; the backup API bumps the
            # schema cookie, which is set back to the source's: the copy of a
            # checkpointed store is byte-identical to it.
            cookie = int(conn.execute("PRAGMA schema_version").fetchone()[0])
            dest.execute("PRAGMA journal_mode = WAL")
            conn.backup(dest)
            dest.execute(f"PRAGMA schema_version = {cookie}")
        finally:
            dest.close()
        if target.exists():
            if target.read_bytes() != tmp.read_bytes():
                raise DataError(
                    f"cannot migrate run store {path}: {target} exists and differs from it; "
                    "move it away and try again"
                )
        else:
            os.replace(tmp, target)
    except (sqlite3.Error, OSError) as exc:
        raise DataError(f"cannot back up run store {path} to {target}: {exc}") from None
    finally:
        for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            leftover.unlink(missing_ok=True)


def _counts(n_female: int | None, n_male: int | None) -> str | None:
    """A cell's ``n_female``/``n_male`` as the ``counts`` JSON of its item state."""
    counts = {k: v for k, v in (("F", n_female), ("M", n_male)) if v is not None}
    return dumps(counts) if counts else None


def _migrate(conn: sqlite3.Connection) -> None:
    """The migration proper, inside the caller's transaction."""
    conn.execute("ALTER TABLE samples RENAME TO gasp_v1_samples")
    conn.execute("ALTER TABLE cells RENAME TO gasp_v1_cells")
    for statement in DDL:
        conn.execute(statement)
    row = conn.execute("SELECT body FROM manifest WHERE id = 1").fetchone()
    manifest = None if row is None else dict(stored_json(row[0], "the manifest", dict))
    study = manifest.get("study") if manifest is not None else None
    conn.executemany(
        "INSERT INTO items (item_id, ordinal, kind, prompt, messages, candidates, attributes) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [r.as_row() for r in _items(conn, study if isinstance(study, Mapping) else {})],
    )
    conn.execute(
        f"INSERT INTO samples ({_V2_SAMPLE_TARGET}) "
        f"SELECT {_V1_SAMPLE_VALUES} FROM gasp_v1_samples ORDER BY id"
    )
    conn.execute(
        "INSERT INTO item_states (item_id, status, reason, n_samples, counts, updated_at) "
        "SELECT gasp_v1_item_id(template, subject, condition), status, reason, n_samples, "
        "gasp_v1_counts(n_female, n_male), updated_at FROM gasp_v1_cells ORDER BY rowid"
    )
    if manifest is not None:
        conn.execute(
            "UPDATE manifest SET body = ? WHERE id = 1", (dumps(upgrade_manifest(manifest)),)
        )
    conn.executemany(
        "INSERT OR REPLACE INTO gasp_meta (key, value) VALUES (?, ?)",
        [
            ("schema_version", str(SCHEMA_VERSION)),
            ("migrated_from", "1"),
            ("migrated_at", utc_now()),
        ],
    )
    conn.execute("DROP TABLE gasp_v1_samples")
    conn.execute("DROP TABLE gasp_v1_cells")


def _items(conn: sqlite3.Connection, study: Mapping[str, Any]) -> list[ItemRecord]:
    """One item per distinct (template, subject, condition) of the samples and cells."""
    found: dict[tuple[str, str, str], tuple[int, str | None, str]] = {}
    for template, subject, condition, first, gender, prompt in conn.execute(
        "SELECT template, subject, condition, MIN(id), named_gender, prompt "
        "FROM gasp_v1_samples GROUP BY template, subject, condition"
    ):
        found[(template, subject, condition)] = (int(first), gender, prompt)
    conditions = {
        str(c.get("name")): c for c in study.get("conditions", []) if isinstance(c, Mapping)
    }
    offset = 1 + max((v[0] for v in found.values()), default=0)
    for i, (template, subject, condition) in enumerate(
        conn.execute("SELECT template, subject, condition FROM gasp_v1_cells ORDER BY rowid")
    ):
        key = (template, subject, condition)
        if key not in found:
            named = conditions.get(condition, {}).get("named_gender")
            found[key] = (offset + i, named, _render(study, key))
    system = study.get("system_prompt") or None
    ordinals = _ordinals(study, {key: v[0] for key, v in found.items()})
    return [
        ItemRecord(
            item_id=v1_item_id(*key),
            ordinal=ordinals[key],
            kind="generate",
            prompt=prompt,
            attributes=dict(zip(V1_ATTRIBUTES, (*key, gender), strict=True)),
            messages=((("system", str(system)),) if system else ()) + (("user", prompt),),
        )
        for key, (_, gender, prompt) in found.items()
    ]


def _ordinals(
    study: Mapping[str, Any], first_seen: Mapping[tuple[str, str, str], int]
) -> dict[tuple[str, str, str], int]:
    """Each cell's position in the study: subjects outermost, then templates, then
    conditions, ``(s * n_templates + t) * n_conditions + c``; cells the study does not
    list come after all of its cells, in the order version 1 sorted them."""
    subjects = _rank(s.get("name") for s in study.get("subjects", []) if isinstance(s, Mapping))
    templates = _rank(study.get("templates", {}) or {})
    conditions = _rank(c.get("name") for c in study.get("conditions", []) if isinstance(c, Mapping))
    n_t, n_c = len(templates), len(conditions)
    ordinals: dict[tuple[str, str, str], int] = {}
    unknown: list[tuple[tuple[int, int, int, int], tuple[str, str, str]]] = []
    for key, first in first_seen.items():
        t, s, c = templates.get(key[0]), subjects.get(key[1]), conditions.get(key[2])
        if t is not None and s is not None and c is not None:
            ordinals[key] = (s * n_t + t) * n_c + c
        else:
            rank = (
                len(subjects) if s is None else s,
                n_t if t is None else t,
                n_c if c is None else c,
                first,
            )
            unknown.append((rank, key))
    base = len(subjects) * n_t * n_c
    for i, (_, key) in enumerate(sorted(unknown)):
        ordinals[key] = base + i
    return ordinals


def _rank(names: Any) -> dict[str, int]:
    rank: dict[str, int] = {}
    for name in names:
        rank.setdefault(str(name), len(rank))
    return rank


def _render(study: Mapping[str, Any], key: tuple[str, str, str]) -> str:
    """The version 1 prompt of a cell that has no sample, rendered from the study spec
    as version 1 rendered it (empty when the study does not list the cell)."""
    template, subject, condition = key
    text = (study.get("templates") or {}).get(template)
    subjects = {s.get("name"): s for s in study.get("subjects", []) if isinstance(s, Mapping)}
    conds = {c.get("name"): c for c in study.get("conditions", []) if isinstance(c, Mapping)}
    if not isinstance(text, str) or subject not in subjects or condition not in conds:
        return ""
    clause = conds[condition].get("clause") or ""
    clause = f" {clause}" if clause else ""
    if "[GROUP]" in text:
        text = text.replace(" [GROUP]", clause).replace("[GROUP]", clause)
    else:
        text = text.replace("[OCCUPATION]", "[OCCUPATION]" + clause, 1)
    article = str(subjects[subject].get("article") or "")
    return text.replace("[ARTICLE]", article).replace("[OCCUPATION]", str(subject))
