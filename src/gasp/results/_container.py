"""The results of an analysis: named tables, settings and examples saved in one folder.

An analysis returns an :class:`AuditResults`: its tables (pandas DataFrames), its
``meta`` (run id, model, sample counts, ``settings`` — the exact settings that
produced the tables — and ``layouts`` — the column roles of each table) and, when
the analysis selected them, the ``examples`` of its word browser. :meth:`save`
writes one CSV per table, ``examples.json`` and the index ``results.json``;
:meth:`load` reads them back. The report renders a loaded :class:`AuditResults`
and nothing else.
"""

from __future__ import annotations

import functools
import json
import os
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.errors import DataError
from gasp.results._columns import RESULTS_SCHEMA, describe_columns

RESULTS_FORMAT_VERSION = 2
"""Version 2 added ``meta["settings"]``, ``meta["layouts"]`` and ``examples.json``."""

INDEX_FILE = "results.json"
EXAMPLES_FILE = "examples.json"


@dataclass(frozen=True)
class TableLayout:
    """The roles of a table's columns, saved with the table so no reader guesses them.

    ``word_columns`` hold a word or a comma-separated list of words; ``share_columns``
    hold shares (percentages when ``percent``); ``keys`` identify a row; ``order_by``
    is the column the rows are sorted by (descending).
    """

    word_columns: tuple[str, ...] = ()
    share_columns: tuple[str, ...] = ()
    percent: bool = False
    keys: tuple[str, ...] = ()
    order_by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The layout as JSON-friendly values."""
        return {
            "word_columns": list(self.word_columns),
            "share_columns": list(self.share_columns),
            "percent": self.percent,
            "keys": list(self.keys),
            "order_by": self.order_by,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> TableLayout:
        """A layout from :meth:`to_dict` output (an empty layout from None)."""
        if not data:
            return cls()
        order = data.get("order_by")
        return cls(
            word_columns=tuple(str(c) for c in data.get("word_columns", ())),
            share_columns=tuple(str(c) for c in data.get("share_columns", ())),
            percent=bool(data.get("percent", False)),
            keys=tuple(str(c) for c in data.get("keys", ())),
            order_by=str(order) if order else None,
        )


@dataclass
class AuditResults:
    """Named result tables of one run (or one comparison of runs) and their metadata.

    ``examples`` is the word browser's index (see :func:`gasp.results.build_example_index`)
    or None when the analysis selected none.
    """

    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    examples: dict[str, Any] | None = None

    def __getitem__(self, name: str) -> pd.DataFrame:
        return self.tables[name]

    def get(self, name: str) -> pd.DataFrame | None:
        """The table called ``name``, or None when the analysis did not produce it."""
        return self.tables.get(name)

    @property
    def settings(self) -> dict[str, Any]:
        """The saved settings (``meta["settings"]``; empty when none were saved)."""
        value = self.meta.get("settings")
        return dict(value) if isinstance(value, Mapping) else {}

    def layout(self, name: str) -> TableLayout:
        """The saved column layout of table ``name`` (empty when none was saved)."""
        layouts = self.meta.get("layouts")
        data = layouts.get(name) if isinstance(layouts, Mapping) else None
        return TableLayout.from_dict(data if isinstance(data, Mapping) else None)

    def set_layout(self, name: str, layout: TableLayout) -> None:
        """Record the column layout of table ``name`` in ``meta["layouts"]``."""
        layouts = self.meta.setdefault("layouts", {})
        layouts[name] = layout.to_dict()

    def save(self, folder: str | Path) -> Path:
        """Write each table as ``<name>.csv``, the examples and the index; return the folder."""
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        for name, table in self.tables.items():
            replace_with(out / f"{name}.csv", functools.partial(_write_csv, table))
        if self.examples is not None:
            _write_json(out / EXAMPLES_FILE, self.examples)
        elif (out / EXAMPLES_FILE).is_file():
            (out / EXAMPLES_FILE).unlink()
        index = {
            "schema": RESULTS_SCHEMA,
            "format_version": RESULTS_FORMAT_VERSION,
            "tables": sorted(self.tables),
            "columns": {
                name: describe_columns(self.tables[name], self.layout(name))
                for name in sorted(self.tables)
            },
            "examples": EXAMPLES_FILE if self.examples is not None else None,
            "meta": self.meta,
        }
        _write_json(out / INDEX_FILE, index, indent=2)
        return out

    @classmethod
    def load(cls, folder: str | Path) -> AuditResults:
        """Read results written by :meth:`save`."""
        path = Path(folder)
        index = _read_json(
            path / INDEX_FILE, f"no audit results in {path} (results.json is missing)"
        )
        names = index.get("tables")
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            raise DataError(
                f"{path / INDEX_FILE} lists no table: it is empty or not results of gasp; "
                "analyse the run again"
            )
        tables = {}
        for name in names:
            csv_path = path / f"{name}.csv"
            try:
                tables[name] = pd.read_csv(csv_path, keep_default_na=True)
            except pd.errors.EmptyDataError:
                tables[name] = pd.DataFrame()
        examples = None
        if index.get("examples"):
            examples = _read_json(path / str(index["examples"]), f"{path} lacks its examples file")
        return cls(tables=tables, meta=dict(index.get("meta", {})), examples=examples)


#: The key of ``meta`` saying the run was still being generated when it was analysed.
INCOMPLETE_KEY = "incomplete"


def mark_incomplete(folder: str | Path, sentence: str) -> None:
    """Record in the saved results of ``folder`` that they cover part of a run only
    (``meta["incomplete"]``: one sentence the report shows); the next analysis clears it."""
    path = Path(folder) / INDEX_FILE
    index = _read_json(path, f"no audit results in {folder} (results.json is missing)")
    meta = index.get("meta")
    index["meta"] = {**(meta if isinstance(meta, dict) else {}), INCOMPLETE_KEY: sentence}
    _write_json(path, index, indent=2)


#: The largest results index or examples file read (a results file of gasp holds a few
#: megabytes; a bigger one is not one, and reading it whole would take the memory).
MAX_JSON_BYTES = 512 * 1024**2


def _write_csv(table: pd.DataFrame, path: Path) -> None:
    table.to_csv(path, index=False)


def unique_temporary(path: Path) -> Path:
    """A temporary name beside ``path`` that no other process or thread uses (its process
    id and a random part): concurrent writers of one file never share a temporary file,
    and the last one to finish replaces ``path`` whole."""
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(6)}.tmp")


def replace_with(path: Path, write: Callable[[Path], object]) -> None:
    """Write ``path`` through a unique temporary file (``write(tmp)``), then move it into
    place; the temporary file never outlives a failure, and a write the operating system
    refused without naming its file (a full disk) names ``path``."""
    tmp = unique_temporary(path)
    try:
        write(tmp)
        tmp.replace(path)
    except OSError as exc:
        if exc.filename is not None or exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    finally:
        tmp.unlink(missing_ok=True)


def _write_json(path: Path, data: Any, indent: int | None = None) -> None:
    text = json.dumps(data, indent=indent, default=str)
    replace_with(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def read_json_file(path: Path, missing: str) -> dict[str, Any]:
    """A results file's JSON object, read within :data:`MAX_JSON_BYTES` and Python's
    nesting limit: a missing, huge, non-UTF-8, malformed, too deeply nested or non-object
    file is a :class:`DataError` in one line (``missing`` when it does not exist)."""
    return _read_json(path, missing)


def _read_json(path: Path, missing: str) -> dict[str, Any]:
    if not path.is_file():
        raise DataError(missing)
    size = path.stat().st_size
    if size > MAX_JSON_BYTES:
        raise DataError(
            f"{path} holds {size:,} bytes, more than results hold "
            f"({MAX_JSON_BYTES:,}); it is not a results file of gasp"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(f"{path} is not valid JSON: {exc.msg}") from exc
    except UnicodeDecodeError:
        raise DataError(f"{path} is not UTF-8 text") from None
    except RecursionError:
        raise DataError(f"{path} is nested too deeply to be results") from None
    if not isinstance(data, dict):
        raise DataError(f"{path} does not hold a JSON object")
    return data
