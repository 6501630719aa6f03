"""Reading tables of generations (CSV, TSV, Parquet, JSON Lines, Excel) that users already
have."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

import pandas as pd

from gasp.errors import DataError

#: File suffixes understood by :func:`read_table`, with the format they name.
TABLE_FORMATS: dict[str, str] = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".xlsx": "excel",
    ".xlsm": "excel",
}

#: The command that installs Excel support (pandas reads .xlsx through openpyxl).
EXCEL_INSTALL = "pip install 'gasp[excel]'"


def _format_of(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in {".gz", ".bz2", ".xz", ".zst", ".zip"}:
        suffixes = suffixes[:-1]  # pandas decompresses text formats by their suffix
    fmt = TABLE_FORMATS.get(suffixes[-1]) if suffixes else None
    if fmt is None:
        known = ", ".join(sorted(TABLE_FORMATS))
        raise DataError(f"cannot tell the format of {path} from its name (use one of: {known})")
    return fmt


def _require_openpyxl(file: Path) -> None:
    import importlib.util

    if importlib.util.find_spec("openpyxl") is None:
        raise DataError(f"reading {file} (Excel) needs openpyxl: {EXCEL_INSTALL}")


_OPENERS: dict[str, Callable[..., IO[Any]]] = {
    ".gz": gzip.open,
    ".bz2": bz2.open,
    ".xz": lzma.open,
}


class _TwiceNamed(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_repeated_key(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _TwiceNamed(key)
        seen[key] = value
    return seen


def _json_repeated_key(file: Path, lines: bool) -> str | None:
    """A key that one JSON object of ``file`` holds twice (pandas keeps the last one
    silently), or None; compressed files are read by their suffix (.gz, .bz2, .xz;
    others are not checked)."""
    suffix = file.suffix.lower()
    if suffix in {".zip", ".zst"}:
        return None
    opener = _OPENERS.get(suffix, open)
    try:
        with opener(file, "rt", encoding="utf-8") as handle:
            if lines:
                for line in handle:
                    if line.strip():
                        json.loads(line, object_pairs_hook=_no_repeated_key)
            else:
                json.load(handle, object_pairs_hook=_no_repeated_key)
    except _TwiceNamed as twice:
        return twice.key
    except (ValueError, OSError, EOFError):  # pandas read it: its reading stands
        return None
    return None


def _header(file: Path, fmt: str) -> list[str]:
    """The column names of ``file`` as written (pandas renames a repeated name
    ``name.1``); empty for formats without a header row."""
    if fmt in {"csv", "tsv"}:
        row = pd.read_csv(file, sep="\t" if fmt == "tsv" else ",", header=None, nrows=1, dtype=str)
    elif fmt == "excel":
        row = pd.read_excel(file, engine="openpyxl", header=None, nrows=1, dtype=str)
    elif fmt == "parquet":
        import pyarrow.parquet as pq

        return [str(n) for n in pq.read_schema(file).names]
    else:
        key = _json_repeated_key(file, lines=fmt == "jsonl")
        return [key, key] if key is not None else []
    return ["" if v != v else str(v) for v in row.iloc[0].tolist()] if len(row) else []


def refuse_repeated_names(names: Iterable[object], source: str) -> None:
    """Refuse columns two of which have one name: which of them a study would read
    cannot be told (pandas renames the second ``name.1``; JSON keeps the last)."""
    written = [str(n) for n in names if str(n)]
    twice = [n for n in dict.fromkeys(written) if written.count(n) > 1]
    if twice:
        shown = ", ".join(repr(n) for n in twice)
        raise DataError(
            f"{source} has two columns named {shown}: which one to read cannot be told; "
            "give each column its own name"
        )


def check_distinct_columns(file: Path, fmt: str) -> None:
    """Refuse a table file two of whose columns have one name as written."""
    refuse_repeated_names(_header(file, fmt), str(file))


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a table of generations from CSV, TSV, Parquet, JSON Lines, a JSON array or
    the first sheet of an Excel workbook (with openpyxl installed).

    The format follows the file suffix (``.csv``, ``.tsv``, ``.parquet``, ``.jsonl``,
    ``.json``, ``.xlsx``; text formats may be compressed, e.g. ``.csv.gz``). Raises
    :class:`~gasp.errors.DataError` when the file is missing, unreadable, has no rows
    or has two columns of one name.
    """
    file = Path(path)
    if not file.exists():
        raise DataError(f"file not found: {file}")
    if not file.is_file():
        raise DataError(f"not a file: {file}")
    fmt = _format_of(file)
    if fmt == "excel":
        _require_openpyxl(file)
    try:
        if fmt == "csv":
            table = pd.read_csv(file)
        elif fmt == "excel":
            table = pd.read_excel(file, engine="openpyxl")
        elif fmt == "tsv":
            table = pd.read_csv(file, sep="\t")
        elif fmt == "parquet":
            table = pd.read_parquet(file)
        elif fmt == "jsonl":
            table = pd.read_json(file, lines=True)
        else:
            table = pd.read_json(file)
    except pd.errors.EmptyDataError:
        raise DataError(f"{file} is empty") from None
    except Exception as exc:  # parsers raise many types (ValueError, pyarrow's own errors)
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(f"cannot read {file} as {fmt}: {reason}") from None
    if len(table) == 0:
        raise DataError(f"{file} has no rows")
    check_distinct_columns(file, fmt)
    table.columns = [str(c) for c in table.columns]
    return table


def read_generations(
    path: str | Path, text_column: str = "text", columns: Iterable[str] = ()
) -> pd.DataFrame:
    """Read a table of generations and check its text column (and any other ``columns``).

    Missing texts become empty strings. Raises :class:`~gasp.errors.DataError` for a
    missing file, an unreadable format, an empty table, a missing column, or a text
    column without a single non-empty text.
    """
    table = read_table(path)
    for column in (text_column, *columns):
        if column not in table.columns:
            known = ", ".join(table.columns)
            raise DataError(f"column {column!r} not found in {path} (columns: {known})")
    texts = table[text_column]
    if texts.isna().all():
        raise DataError(f"column {text_column!r} of {path} has no text in any row")
    if not (pd.api.types.is_string_dtype(texts) or pd.api.types.is_object_dtype(texts)):
        raise DataError(f"column {text_column!r} of {path} does not hold text")
    texts = texts.where(texts.notna(), "").astype(str)
    if not texts.str.strip().astype(bool).any():
        raise DataError(f"column {text_column!r} of {path} has no text in any row")
    table = table.copy()
    table[text_column] = texts
    return table


def write_table(table: pd.DataFrame, path: str | Path) -> Path:
    """Write ``table`` as CSV, TSV, Parquet, JSON Lines or a JSON array (by the suffix of ``path``).

    The parent folder must exist. Returns the path written.
    """
    file = Path(path)
    fmt = _format_of(file)
    if fmt == "excel":
        _require_openpyxl(file)
    if not file.parent.is_dir():
        raise DataError(f"folder not found for the output file: {file.parent}")
    try:
        if fmt == "csv":
            table.to_csv(file, index=False)
        elif fmt == "tsv":
            table.to_csv(file, sep="\t", index=False)
        elif fmt == "parquet":
            table.to_parquet(file, index=False)
        elif fmt == "jsonl":
            table.to_json(file, orient="records", lines=True, force_ascii=False)
        elif fmt == "excel":
            table.to_excel(file, index=False, engine="openpyxl")
        else:
            table.to_json(file, orient="records", indent=1, force_ascii=False)
    except OSError as exc:
        raise DataError(f"cannot write {file}: {exc.strerror or exc}") from None
    return file
