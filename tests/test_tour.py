"""``gasp tour``: every study's quick run in one folder, with an index page linking the
reports; a failing study is shown as failed while the others run; resumable."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from _cli import gasp_exit_code
from gasp.report import IndexEntry, write_index
from gasp.store import RunStore
from gasp.studies import get_study_type


def _links(index: Path) -> dict[str, Path]:
    page = index.read_text(encoding="utf-8")
    return {
        name: (index.parent / href).resolve()
        for href, name in re.findall(r"<a href='([^']+)'>([^<]+)</a>", page)
    }


def test_tour_links_every_report_and_shows_a_failed_study(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "tour"
    studies = ["pronoun-pairs", "narratives", "occugender"]
    args = ["tour", "-m", "mock/personas", "--out", str(out)]
    for name in studies:
        args += ["--study", name]
    code = gasp_exit_code(monkeypatch, *args)
    captured = capsys.readouterr()
    index = out / "index.html"
    # occugender needs scoring, which mock/personas cannot do: the tour says so and goes on.
    assert code == 1
    assert captured.out.strip() == str(index)
    links = _links(index)
    assert set(links) == {"pronoun-pairs", "narratives"}
    for name, report in links.items():
        assert report == (out / name / "report" / "report.html").resolve()
        assert report.is_file()
    page = index.read_text(encoding="utf-8")
    assert "cannot score continuations" in page
    assert page.count("complete") >= 2 and "failed" in page
    for name in studies:
        assert get_study_type(name).description.split()[0] in page


def test_a_second_tour_resumes_instead_of_generating_again(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "tour"
    args = ["tour", "-m", "mock/personas", "--out", str(out), "--study", "pronoun-pairs"]
    assert gasp_exit_code(monkeypatch, *args) == 0
    with RunStore.open(out / "pronoun-pairs" / "run.sqlite") as store:
        first = store.samples()
    assert gasp_exit_code(monkeypatch, *args) == 0
    with RunStore.open(out / "pronoun-pairs" / "run.sqlite") as store:
        second = store.samples()
        sessions = store.sessions()
    assert len(first) == len(second) > 0
    assert list(second["text"]) == list(first["text"])
    assert len(sessions) == 2
    capsys.readouterr()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--study", "no-such-study"], "no-such-study"),
        (["-m", "nosuch/model"], "nosuch"),
    ],
)
def test_a_bad_command_line_is_one_error_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    args: list[str],
    needle: str,
) -> None:
    out = tmp_path / "tour"
    code = gasp_exit_code(monkeypatch, "tour", "--out", str(out), *args)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and needle in err[0]
    assert not out.exists()


def test_the_index_escapes_text_and_links_relative_to_itself(tmp_path: Path) -> None:
    report = tmp_path / "tour" / "a" / "report" / "report.html"
    report.parent.mkdir(parents=True)
    report.write_text("<html></html>", encoding="utf-8")
    entries = [
        IndexEntry("a", "first <study>", report, "complete", 12.0, ("share <b>50%</b>",)),
        IndexEntry("b", "second", None, "failed", 1.0, (), "model said <script>"),
    ]
    index = write_index(entries, tmp_path / "tour", "tour", "2 studies")
    page = index.read_text(encoding="utf-8")
    assert "<b>50%</b>" not in page and "&lt;b&gt;50%&lt;/b&gt;" in page
    assert "model said <script>" not in page
    assert "model said &lt;script&gt;" in page
    assert _links(index) == {"a": report.resolve()}
    assert "href='a/report/report.html'" in page
