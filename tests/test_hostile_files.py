"""Hostile files and outputs: CSV exports neutralise formula cells (OWASP's rule, raw on
request), a pipe or device is refused as an output, temporary files are unique to their
writer, and an empty, deep or huge results index is refused in one line."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

from gasp.errors import ConfigError, DataError
from gasp.results import AuditResults, read_json_file, unique_temporary
from gasp.runner import FixedN, Item, RunOptions, StudyPlan, generate
from gasp.store import check_output_file, export, neutralise_formula

ANSWERS = ['=HYPERLINK("http://x")', "+1+2", "-cmd", "@SUM(A1)", "\tx", "plain text"]


def _store(tmp_path: Path) -> Path:
    items = tuple(Item(key=("p", str(i)), prompt=f"Say {i}.", n=1) for i in range(len(ANSWERS)))
    plan = StudyPlan(kind="cells", name="cells", items=items, spec={}, stopping=FixedN())
    store = tmp_path / "run.sqlite"
    options = RunOptions(progress=False, backend_options={"text": "placeholder"})
    generate(plan, "mock/constant", store, options)
    import sqlite3

    conn = sqlite3.connect(store)
    with conn:
        for i, text in enumerate(ANSWERS):
            conn.execute(
                "UPDATE samples SET text = ? WHERE item_id = (SELECT item_id FROM items "
                "WHERE ordinal = ?)",
                (text, i),
            )
    conn.close()
    return store


def test_csv_cells_that_a_spreadsheet_would_run_get_a_leading_quote(tmp_path: Path) -> None:
    store = _store(tmp_path)
    out = export(store, tmp_path / "samples.csv")
    assert out is not None
    texts = pd.read_csv(out, keep_default_na=False)["text"].tolist()
    assert texts == ["'" + t for t in ANSWERS[:-1]] + ["plain text"]
    raw = export(store, tmp_path / "raw.csv", raw_csv=True)
    assert raw is not None
    assert pd.read_csv(raw, keep_default_na=False)["text"].tolist() == ANSWERS
    # JSON Lines and Parquet keep the text as sent: no spreadsheet reads them as formulas
    lines = export(store, tmp_path / "samples.jsonl")
    assert lines is not None
    assert pd.read_json(lines, lines=True)["text"].tolist() == ANSWERS
    assert neutralise_formula(-3) == -3 and neutralise_formula("a=b") == "a=b"


def test_a_pipe_as_the_output_is_refused_without_blocking(tmp_path: Path) -> None:
    store = _store(tmp_path)
    pipe = tmp_path / "pipe.csv"
    os.mkfifo(pipe)
    with pytest.raises(ConfigError, match="not a regular file"):
        export(store, pipe)
    with pytest.raises(ConfigError, match="not a regular file"):
        check_output_file(Path("/dev/null"))  # a device
    check_output_file(tmp_path / "new.csv")  # absent: written as a new file


def test_temporary_files_are_unique_to_their_writer(tmp_path: Path) -> None:
    target = tmp_path / "table.csv"
    names = {unique_temporary(target) for _ in range(100)}
    assert len(names) == 100
    assert all(n.parent == tmp_path and str(os.getpid()) in n.name for n in names)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{}", "lists no table"),
        ('{"tables": []}', "lists no table"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("\udcff", "not UTF-8"),
    ],
)
def test_a_hollow_or_hostile_results_index_is_refused(
    tmp_path: Path, content: str, message: str
) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    index = folder / "results.json"
    if content == "\udcff":
        index.write_bytes(b"\xff\xfe{")
    else:
        index.write_text(content)
    with pytest.raises(DataError, match=message) as raised:
        AuditResults.load(folder)
    assert "\n" not in str(raised.value)


def test_a_huge_results_file_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gasp.results import _container

    monkeypatch.setattr(_container, "MAX_JSON_BYTES", 1000)
    path = tmp_path / "results.json"
    path.write_text('{"tables": ["' + "x" * 2000 + '"]}')
    with pytest.raises(DataError, match="more than results hold"):
        read_json_file(path, "missing")


def test_devices_and_alias_bombs_are_refused_before_they_are_read(tmp_path: Path) -> None:
    from gasp.files import check_input_file, read_text_file
    from gasp.studies import read_study_file

    with pytest.raises(DataError, match="not a regular file"):
        read_text_file("/dev/zero", "occupations file")
    with pytest.raises(DataError, match="is a folder"):
        check_input_file(tmp_path, "jobs file")
    big = tmp_path / "big.csv"
    big.write_text("x" * 2000)
    with pytest.raises(DataError, match="more than such a file holds"):
        read_text_file(big, "name table", max_bytes=1000)
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    for level in range(1, 9):
        lines.append(f"a{level}: &a{level} [" + ",".join([f"*a{level - 1}"] * 9) + "]")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\nstudy: more-of-the-same\n")
    with pytest.raises(ConfigError, match="more than 20 YAML aliases"):
        read_study_file(bomb)
    few = tmp_path / "few.yaml"
    few.write_text('x: &x ["nurse"]\nsubjects: *x\nstudy: more-of-the-same\n')
    assert read_study_file(few)["subjects"] == ["nurse"]


def test_a_names_file_is_checked_before_a_run_generates(tmp_path: Path) -> None:
    from gasp.studies import get_study_type

    study = get_study_type("narratives")
    wrong = tmp_path / "notes.csv"
    wrong.write_text("my,own\nnotes,here\n")
    with pytest.raises(DataError, match="needs a Name and a Gender column"):
        study.check_analysis_options({"names_file": str(wrong)})
    with pytest.raises(DataError, match="not a regular file"):
        study.check_analysis_options({"names_file": "/dev/urandom"})
    right = tmp_path / "names.csv"
    right.write_text("Name,Gender,Count\nMary,F,100\nJohn,M,100\n")
    study.check_analysis_options({"names_file": str(right)})


def test_concurrent_analyses_of_one_run_never_share_a_temporary_file(tmp_path: Path) -> None:
    import subprocess
    import sys

    run = tmp_path / "run"
    gasp = [sys.executable, "-m", "gasp"]
    skip = ["--skip", "analyze", "--skip", "probe", "--skip", "report", "--quiet"]
    made = subprocess.run(
        [*gasp, "run", "pronoun-pairs", "-m", "mock/personas", "--quick", "--out", str(run), *skip],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    procs = [
        subprocess.Popen(
            [*gasp, "analyze", str(run)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(4)
    ]
    results = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, [r[1][-300:] for r in results]
    assert not list(run.rglob("*.tmp"))
    assert AuditResults.load(run / "results").tables


def test_a_zip_bomb_named_eval_is_refused_before_it_is_decompressed(tmp_path: Path) -> None:
    import zipfile

    from gasp.files import MAX_INPUT_BYTES, check_archive

    bomb = tmp_path / "bomb.eval"
    with (
        zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive,
        archive.open("_journal/start.json", "w", force_zip64=True) as member,
    ):
        block = bytes(2**22)
        for _ in range(MAX_INPUT_BYTES // len(block) + 1):
            member.write(block)
    assert bomb.stat().st_size < 2**20  # about 270 MB of zeros in a small file
    with pytest.raises(DataError, match=r"holds a member \(_journal/start.json\) of 272,"):
        check_archive(bomb, "the Inspect AI log")
    pytest.importorskip("inspect_ai")
    import gasp

    with pytest.raises(DataError, match="more than such a file holds"):
        gasp.analyze(bomb, study="narratives", out=tmp_path / "out")
    assert not (tmp_path / "out").exists()
