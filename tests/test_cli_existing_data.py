"""``gasp associate`` and ``gasp marked-words`` on a table of generations."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gasp.cli import main
from gasp.errors import USER_ERROR_EXIT_CODE
from gasp.stats import calibrated_marked_words, group_mask, marked_words
from gasp.text import count_words


def _run(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[str | int | None, str, str]:
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(sys, "argv", ["gasp", *args])
    with pytest.raises(SystemExit) as stop:
        main()
    out = capsys.readouterr()
    return stop.value.code, out.out, out.err


@pytest.fixture()
def generations(tmp_path: Path) -> Path:
    rows = []
    for i in range(30):
        rows.append(("She walked to the sunny market with her sister.", "W", "x"))
        rows.append(("He drove to the rainy harbour with his brother.", "M", "x" if i % 2 else "y"))
        rows.append(("They wrote a poem about the market.", "N", "y"))
    path = tmp_path / "gens.csv"
    pd.DataFrame(rows, columns=["story", "gender", "place"]).to_csv(path, index=False)
    return path


def test_associate_prints_shares_and_writes_columns(
    generations: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out_file = tmp_path / "assoc.parquet"
    code, out, _ = _run(
        ["associate", str(generations), "--text-column", "story", "--output", str(out_file)],
        monkeypatch,
        capsys,
    )
    assert code == 0
    assert "unassigned" in out and "33.3%" in out
    table = pd.read_parquet(out_file)
    assert table["associated_gender"].fillna("unassigned").tolist()[:3] == ["F", "M", "unassigned"]
    assert table["female_count"].tolist()[:3] == [2, 0, 0]
    assert table["male_count"].tolist()[:3] == [0, 2, 0]
    assert table["neutral_count"].tolist()[:3] == [0, 0, 1]
    assert not table["nonbinary_cue"].any()


def test_marked_words_matches_the_library(
    generations: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out_file = tmp_path / "words.csv"
    code, out, _ = _run(
        [
            "marked-words",
            str(generations),
            "--text-column",
            "story",
            "--target",
            "gender=W",
            "--unmarked",
            "gender=M",
            "--unmarked",
            "gender=N",
            "--output",
            str(out_file),
            "--top",
            "3",
        ],
        monkeypatch,
        capsys,
    )
    assert code == 0
    written = pd.read_csv(out_file)
    table = pd.read_csv(generations)
    expected = marked_words(
        count_words(table["story"].tolist()),
        group_mask(table, {"gender": "W"}),
        {"M": group_mask(table, {"gender": "M"}), "N": group_mask(table, {"gender": "N"})},
    )
    assert written["word"].tolist() == expected["word"].tolist()
    np.testing.assert_allclose(written["z_M"], expected["z_M"])
    assert {"she", "her", "sunny"} <= set(written["word"])
    assert f"{len(expected)} marked words of gender=W (30 texts)" in out
    printed = [w for w in expected["word"] if f"│ {w} " in out]
    assert printed == expected["word"].tolist()[:3]


def test_marked_words_calibrated_json_and_fdr(
    generations: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out_file = tmp_path / "words.json"
    code, _, _ = _run(
        [
            "marked-words",
            str(generations),
            "--text-column",
            "story",
            "--target",
            "gender=W,place=x",
            "--unmarked",
            "gender=M",
            "--method",
            "calibrated",
            "--fdr",
            "0.05",
            "--min-count",
            "2",
            "--output",
            str(out_file),
        ],
        monkeypatch,
        capsys,
    )
    assert code == 0
    records = json.loads(out_file.read_text())
    table = pd.read_csv(generations)
    expected = calibrated_marked_words(
        count_words(table["story"].tolist()),
        group_mask(table, {"gender": "W", "place": "x"}),
        {"M": group_mask(table, {"gender": "M"})},
        fdr_alpha=0.05,
        min_count=2,
    )
    assert [r["word"] for r in records] == expected["word"].tolist()
    assert records  # the comparison above is not vacuous


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["marked-words", "{missing}", "--target", "gender=W", "--unmarked", "gender=M"],
            "file not found",
        ),
        (
            [
                "marked-words",
                "{file}",
                "--text-column",
                "story",
                "--target",
                "gender",
                "--unmarked",
                "gender=M",
            ],
            "bad group selector",
        ),
        (
            [
                "marked-words",
                "{file}",
                "--text-column",
                "story",
                "--target",
                "gender=X",
                "--unmarked",
                "gender=M",
            ],
            "value 'X' never occurs",
        ),
        (
            [
                "marked-words",
                "{file}",
                "--text-column",
                "story",
                "--target",
                "race=a",
                "--unmarked",
                "gender=M",
            ],
            "column 'race' not found",
        ),
        (
            ["marked-words", "{empty}", "--target", "gender=W", "--unmarked", "gender=M"],
            "no text in any row",
        ),
        (["associate", "{file}"], "column 'text' not found"),
        (
            [
                "marked-words",
                "{file}",
                "--text-column",
                "story",
                "--target",
                "gender=W",
                "--unmarked",
                "gender=M",
                "--fdr",
                "2",
            ],
            "false discovery rate",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    generations: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    empty = tmp_path / "empty.csv"
    pd.DataFrame({"text": [None, None], "gender": ["W", "M"]}).to_csv(empty, index=False)
    paths = {"file": generations, "missing": tmp_path / "absent.csv", "empty": empty}
    code, _, err = _run([a.format(**paths) for a in args], monkeypatch, capsys)
    assert code == USER_ERROR_EXIT_CODE
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("gasp: error: ")
    assert message in lines[0]
