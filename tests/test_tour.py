"""``gasp tour``: the quick audit of one model (every study's quick run in
``<out>/<model>/<study>/``), with the audit's scorecard page linking the reports; a
failing study is listed with its reason while the others run; resumable."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from _cli import gasp_exit_code
from gasp.auditing import SCHEMA_FILE
from gasp.report import IndexEntry, write_index
from gasp.store import RunStore
from gasp.studies import get_study_type

jsonschema = pytest.importorskip("jsonschema")


def _metrics(study: str) -> tuple:
    return tuple(get_study_type(study).headline_metrics())


def _links(index: Path) -> dict[str, Path]:
    """Every linked report of the scorecard page, by the study folder it lies in."""
    page = index.read_text(encoding="utf-8")
    reports = {(index.parent / href).resolve() for href in re.findall(r"<a href='([^']+)'>", page)}
    return {report.parents[1].name: report for report in reports}


def test_tour_is_the_quick_audit_of_one_model_and_shows_a_failed_study(
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
        assert report == (out / "mock-personas" / name / "report" / "report.html").resolve()
        assert report.is_file()
    page = index.read_text(encoding="utf-8")
    assert "cannot score continuations" in page and "not served" in page
    for name in studies:
        assert get_study_type(name).description.split()[0] in page
    # the audit's scorecard of one model: every metric with its interval, no comparison
    card = json.loads((out / "scorecard.json").read_text(encoding="utf-8"))
    jsonschema.validate(card, json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
    assert [m["name"] for m in card["models"]] == ["mock-personas"]
    assert card["baseline"] is None and card["comparisons"] == [] and card["n_comparisons"] == 0
    expected = {(s, m.name) for s in ("pronoun-pairs", "narratives") for m in _metrics(s)}
    assert {(r["study"], r["metric"]) for r in card["metrics"]} == expected
    incorrect = next(r for r in card["metrics"] if r["metric"] == "incorrect")
    assert incorrect["ci_low"] <= incorrect["value"] <= incorrect["ci_high"]
    assert {r["study"]: r["status"] for r in card["runs"]} == {
        "pronoun-pairs": "complete",
        "narratives": "complete",
        "occugender": "not served",
    }
    # the tour folder is an audit folder: gasp compare and gasp audit read it
    assert (out / "audit.json").is_file()


def test_a_second_tour_resumes_instead_of_generating_again(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "tour"
    args = ["tour", "-m", "mock/personas", "--out", str(out), "--study", "pronoun-pairs"]
    store_path = out / "mock-personas" / "pronoun-pairs" / "run.sqlite"
    assert gasp_exit_code(monkeypatch, *args) == 0
    with RunStore.open(store_path) as store:
        first = store.samples()
    card = (out / "scorecard.json").read_text(encoding="utf-8")
    capsys.readouterr()
    assert gasp_exit_code(monkeypatch, *args) == 0
    assert "finished before, not redone" in capsys.readouterr().err
    with RunStore.open(store_path) as store:
        second = store.samples()
        sessions = store.sessions()
    assert len(first) == len(second) > 0
    assert list(second["text"]) == list(first["text"])
    assert len(sessions) == 1  # nothing generated again
    assert (out / "scorecard.json").read_text(encoding="utf-8") == card


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
