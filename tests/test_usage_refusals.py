"""Errors of the argument parser are one ``gasp: error:`` line and exit status 2, like
every other refusal (no box of text), and nothing is written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from _cli import gasp_exit_code

CASES = [
    (["audit", "--level", "abc"], "Invalid value for '--level'", "gasp audit --help"),
    (["run", "pronoun-pairs", "--n", "abc"], "Invalid value for '--n'", "gasp run --help"),
    (["run", "pronoun-pairs", "--bogus"], "No such option: --bogus", "gasp run --help"),
    (["compare", "a", "b"], "Missing option '--out'", "gasp compare --help"),
    (["run", "pronoun-pairs", "--skip", "bogus"], "'bogus' is not one of", "gasp run --help"),
    (["export", "--what", "bogus", "a", "b"], "'bogus' is not one of", "gasp export --help"),
    (["nosuch"], "No such command 'nosuch'", "gasp --help"),
]


@pytest.mark.parametrize(("args", "message", "help_"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_a_usage_error_is_one_line_and_exit_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
    help_: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert gasp_exit_code(monkeypatch, *args) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gasp: error: "), err
    assert message in lines[0] and f"(see '{help_}')" in lines[0]
    assert out == "" and os.listdir(tmp_path) == []


def test_a_file_name_that_starts_with_a_dash_gets_the_hint_about_double_dash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-data.csv").write_text("text\nhello\n")
    assert gasp_exit_code(monkeypatch, "analyze", "-data.csv") == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1
    assert "a file name that starts with '-' goes after '--'" in lines[0]
    assert "gasp analyze ... -- -data.csv" in lines[0]
    # read as a file after '--': the refusal is now about the table itself
    assert gasp_exit_code(monkeypatch, "analyze", "--", "-data.csv") == 2
    assert "name its study with --study" in capsys.readouterr().err


def test_an_exit_status_a_command_chooses_is_kept(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert gasp_exit_code(monkeypatch, "version") == 0
    assert capsys.readouterr().out.strip()


@pytest.mark.parametrize(
    ("name", "hub"), [("missing.csv", False), ("someuser/stories", True), ("hf://u/s", True)]
)
def test_a_missing_input_says_what_is_read_and_that_hub_names_are_not(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    hub: bool,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert gasp_exit_code(monkeypatch, "analyze", name, "--study", "narratives") == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gasp: error: ")
    assert " does not exist: " in lines[0]
    assert "a table of texts" in lines[0]
    assert ("read from a saved folder, not by its hub name" in lines[0]) is hub
    assert os.listdir(tmp_path) == []
