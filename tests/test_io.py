"""Reading and writing tables of generations: formats and clear errors."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from gasp.errors import DataError
from gasp.io import read_generations, read_table, write_table

TABLE = pd.DataFrame(
    {"text": ["She smiled.", "He left.", None], "gender": ["W", "M", "N"], "n": [1, 2, 3]}
)


@pytest.mark.parametrize("name", ["g.csv", "g.tsv", "g.parquet", "g.jsonl", "g.json", "g.csv.gz"])
def test_round_trip_every_format(tmp_path: Path, name: str) -> None:
    path = write_table(TABLE, tmp_path / name)
    back = read_table(path)
    assert back["gender"].tolist() == ["W", "M", "N"]
    assert back["n"].tolist() == [1, 2, 3]
    generations = read_generations(path, "text", ["gender"])
    assert generations["text"].tolist() == ["She smiled.", "He left.", ""]


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="file not found"):
        read_generations(tmp_path / "absent.csv")


def test_unknown_suffix(tmp_path: Path) -> None:
    path = tmp_path / "g.docx"
    path.write_text("x")
    with pytest.raises(DataError, match="cannot tell the format"):
        read_table(path)


def test_unreadable_content(tmp_path: Path) -> None:
    path = tmp_path / "g.parquet"
    path.write_text("this is not parquet")
    with pytest.raises(DataError, match=r"cannot read .* as parquet"):
        read_table(path)
    jsonl = tmp_path / "g.jsonl"
    jsonl.write_text("{not json\n")
    with pytest.raises(DataError, match=r"cannot read .* as jsonl"):
        read_table(jsonl)


def test_empty_tables(tmp_path: Path) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(DataError, match="is empty"):
        read_table(empty)
    header_only = tmp_path / "header.csv"
    header_only.write_text("text,gender\n")
    with pytest.raises(DataError, match="has no rows"):
        read_table(header_only)


def test_missing_column_and_empty_text_column(tmp_path: Path) -> None:
    path = write_table(TABLE, tmp_path / "g.csv")
    with pytest.raises(DataError, match="column 'story' not found"):
        read_generations(path, "story")
    with pytest.raises(DataError, match="column 'race' not found"):
        read_generations(path, "text", ["race"])
    blank = write_table(pd.DataFrame({"text": ["", "  ", None]}), tmp_path / "blank.csv")
    with pytest.raises(DataError, match="no text in any row"):
        read_generations(blank)
    numbers = write_table(pd.DataFrame({"text": [1, 2]}), tmp_path / "numbers.csv")
    with pytest.raises(DataError, match="does not hold text"):
        read_generations(numbers)


def test_write_into_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="folder not found"):
        write_table(TABLE, tmp_path / "nope" / "g.csv")
