"""The public functions behind ``gasp generate``, ``export``, ``probe``, ``studies``,
``report``, ``associate``, ``marked-words``, ``calibrate`` and ``tour``: a bad keyword
is one ``GaspError`` line naming the keyword, before anything is written, and the
command line's own message (in flags) stays on the error for ``gasp`` to print."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import gasp
from gasp.errors import ArgumentError, ArgumentTypeError, GaspError


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "texts.csv"
    rows = [("She loves yoga and her tea.", "W"), ("He loves football and his beer.", "M")]
    pd.DataFrame(rows * 20, columns=["text", "gender"]).to_csv(path, index=False)
    return path


def test_generate_without_a_store_names_out_in_each_words(tmp_path: Path) -> None:
    with pytest.raises(ArgumentError) as caught:
        gasp.generate("pronoun-pairs", "mock/personas", n=2)
    assert str(caught.value).startswith("gasp.generate(): out is required")
    assert caught.value.command_line_message.startswith("--out is required")
    with pytest.raises(ArgumentError, match="unknown keyword 'bogus'"):
        gasp.generate("pronoun-pairs", "mock/personas", out=tmp_path / "s.sqlite", bogus=1)
    assert not (tmp_path / "s.sqlite").exists()


def test_a_dry_run_plans_without_writing(tmp_path: Path) -> None:
    planned = gasp.generate("pronoun-pairs", "mock/personas", dry_run=True, n=2)
    assert planned.summary.dry_run and planned.summary.estimate is not None
    assert planned.max_tokens > 0 and list(tmp_path.iterdir()) == []


def test_export_refuses_an_unknown_table_before_reading(tmp_path: Path) -> None:
    with pytest.raises(ArgumentError, match=r"gasp.export\(\): what 'bogus' is not one of"):
        gasp.export(tmp_path / "run", tmp_path / "out.csv", what="bogus")
    with pytest.raises(ArgumentTypeError, match="overwrite must be True or False"):
        gasp.export(tmp_path / "run", tmp_path / "out.csv", overwrite="yes")  # type: ignore[arg-type]
    assert not (tmp_path / "out.csv").exists()


def test_marked_words_level_speaks_of_level_in_python_and_fdr_on_the_command_line(
    table: Path,
) -> None:
    with pytest.raises(ArgumentError) as caught:
        gasp.marked_words(table, "gender=W", "gender=M", level=2.0)
    assert str(caught.value).startswith("gasp.marked_words(): level must be a false discovery")
    assert caught.value.command_line_message.startswith("--level must be a false discovery")
    with pytest.raises(ArgumentError, match="method 'fancy' is not one of plain, calibrated"):
        gasp.marked_words(table, "gender=W", "gender=M", method="fancy")


def test_the_table_functions_write_what_they_are_asked_to(table: Path, tmp_path: Path) -> None:
    found = gasp.associate_genders(table, out=tmp_path / "genders.csv")
    assert found.written == tmp_path / "genders.csv" and found.written.is_file()
    assert int(found.counts["F"]) == 20 and int(found.counts["M"]) == 20
    words = gasp.marked_words(table, "gender=W", ["gender=M"], out=tmp_path / "w.csv")
    assert words.written is not None and "yoga" in set(pd.read_csv(words.written)["word"])
    assert words.unmarked_sizes == {"M": 20}
    report = gasp.calibrate(table, "gender=M", "gender=W", out=tmp_path / "calibration")
    assert (tmp_path / "calibration" / "constants.csv").is_file() and report.c_topic > 0


def test_a_probe_checks_its_keywords_before_reading(table: Path) -> None:
    with pytest.raises(ArgumentError, match="method 'fancy' is not one of"):
        gasp.probe_words(table, method="fancy")
    with pytest.raises(ArgumentTypeError, match="k must be an integer"):
        gasp.probe_words(table, k="three")  # type: ignore[arg-type]
    assert not table.with_name(table.name + ".probe").exists()


def test_studies_are_listed_and_described_as_data() -> None:
    listing = gasp.list_studies()
    names = [study.name for study in listing.studies]
    assert "narratives" in names and all(s.package and s.description for s in listing.studies)
    info = gasp.describe_study("more-of-the-same")
    assert info.options and all(option.kind for option in info.options)
    with pytest.raises(GaspError, match="no-such-study"):
        gasp.describe_study("no-such-study")


def test_tour_refuses_an_unknown_study_before_writing(tmp_path: Path) -> None:
    with pytest.raises(GaspError, match="astrology"):
        gasp.tour("mock/personas", out=tmp_path / "tour", studies=["astrology"])
    assert not (tmp_path / "tour").exists()
    with pytest.raises(ArgumentTypeError, match="seed must be an integer"):
        gasp.tour("mock/personas", out=tmp_path / "tour", seed="0")  # type: ignore[arg-type]
