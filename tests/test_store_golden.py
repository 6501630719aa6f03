"""The run store's on-disk format matches the golden schema of its version.

Stores outlive the code that wrote them: any change to the tables must bump
``SCHEMA_VERSION`` and write a new golden file, so that old stores are recognised;
the exceptions are a new table or a new nullable column that older code ignores
(``batches``, ``queue_s``), added to the golden file of the current version and created
in older stores of it when needed.
The golden files of older versions stay: the migration tests build old stores from them.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from gasp.store import SCHEMA_VERSION, RunStore

GOLDEN = Path(__file__).parent / "golden" / f"store_schema_v{SCHEMA_VERSION}.sql"


def _statements(sql: str) -> list[str]:
    """The CREATE statements of a schema, comments dropped and white space folded."""
    without_comments = re.sub(r"--[^\n]*", "", sql)
    parts = (" ".join(p.split()) for p in without_comments.split(";"))
    return sorted(p for p in parts if p)


def test_new_store_matches_the_golden_schema(tmp_path: Path) -> None:
    RunStore.open(tmp_path / "run.sqlite", create=True).close()
    conn = sqlite3.connect(tmp_path / "run.sqlite")
    rows = conn.execute(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'"
    ).fetchall()
    conn.close()
    assert GOLDEN.is_file(), f"no golden schema for store version {SCHEMA_VERSION}"
    assert _statements(";".join(r[0] for r in rows)) == _statements(GOLDEN.read_text())


def test_every_older_version_keeps_its_golden_schema() -> None:
    for version in range(1, SCHEMA_VERSION):
        assert (GOLDEN.parent / f"store_schema_v{version}.sql").is_file(), version
