"""``gasp run`` end to end on a scripted model, ``gasp report`` re-rendering, skipped steps."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from gasp.cli import app
from gasp.io import locate_run
from gasp.results import AuditResults


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cli") / "run"
    result = CliRunner().invoke(
        app,
        [
            "run",
            "--model",
            "mock/personas",
            "--quick",
            "--n",
            "6",
            "--out",
            str(out),
            "--skip",
            "probe",
            "--examples-per-word",
            "7",
            "--bootstrap",
            "0",
            "--permutations",
            "0",
        ],
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().endswith("report.html")
    return out


def test_run_writes_store_results_and_report(run_dir: Path) -> None:
    assert (run_dir / "run.sqlite").is_file()
    results = AuditResults.load(run_dir / "results")
    assert results.get("representation") is not None
    page = (run_dir / "report" / "report.html").read_text(encoding="utf-8")
    assert "Who is represented" in page and "Run manifest" in page
    # The quick preset's occupations and model are in the page (from the store manifest).
    for occupation in ("nurse", "engineer", "software engineer"):
        assert occupation in page
    assert "mock/personas" in page
    blob = page.split('id="gasp-examples">', 1)[1].split("</script>", 1)[0]
    data = json.loads(blob)
    assert data["cap"] == 7
    assert data["words"], "the significant words should have example generations"
    assert all(sum(len(v) for v in e["g"].values()) <= 7 for e in data["words"].values())
    assert (run_dir / "report" / "tables" / "representation.csv").is_file()


def test_report_rerenders_without_a_model(run_dir: Path, tmp_path: Path) -> None:
    before = (run_dir / "results" / "results.json").read_text(encoding="utf-8")
    runner = CliRunner()
    res = runner.invoke(app, ["report", str(run_dir), "--out", str(tmp_path / "again")])
    assert res.exit_code == 0, res.output
    assert Path(res.stdout.strip()) == tmp_path / "again" / "report.html"
    assert (tmp_path / "again" / "figures" / "share_of_women.svg").is_file()
    # The store and the results folder locate the same run.
    assert locate_run(run_dir / "run.sqlite").store == run_dir / "run.sqlite"
    assert locate_run(run_dir / "results").results == run_dir / "results"
    # Only the report step: no generation, no analysis (results unchanged).
    res = runner.invoke(
        app,
        [
            "run",
            "--model",
            "mock/personas",
            "--out",
            str(run_dir),
            "--skip",
            "generate",
            "--skip",
            "analyze",
            "--skip",
            "probe",
        ],
    )
    assert res.exit_code == 0, res.output
    assert (run_dir / "results" / "results.json").read_text(encoding="utf-8") == before


def test_report_of_a_missing_run_is_a_one_line_error(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["report", str(tmp_path / "nothing")])
    assert res.exit_code != 0
    assert "no run at" in str(res.exception)


def test_analyze_without_a_store_fails_cleanly(tmp_path: Path) -> None:
    res = CliRunner().invoke(
        app, ["run", "--out", str(tmp_path / "empty"), "--skip", "generate", "--skip", "probe"]
    )
    assert res.exit_code != 0
    assert "no run store" in str(res.exception)


def test_report_renders_with_the_store_deleted(run_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    (copy / "run.sqlite").unlink()
    shutil.rmtree(copy / "report")
    res = CliRunner().invoke(app, ["report", str(copy)])
    assert res.exit_code == 0, res.output
    page = (copy / "report" / "report.html").read_text(encoding="utf-8")
    data = json.loads(page.split('id="gasp-examples">', 1)[1].split("</script>", 1)[0])
    assert data["words"], "the saved examples make words clickable without the store"
    assert "mock/personas" in page  # the manifest saved with the results
    for occupation in ("nurse", "engineer", "software engineer"):
        assert occupation in page
    results = AuditResults.load(copy / "results")
    settings = results.settings
    assert settings["significance"]["rule"] == "threshold"
    assert settings["sampling"]["min_samples"] == 6
    assert {"associated_gender", "cue_female", "sample_index"} <= set(
        results["sample_associations"].columns
    )


def test_analyze_reproduces_the_run_defaults(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "again"
    res = CliRunner().invoke(
        app,
        [
            "analyze",
            str(run_dir / "run.sqlite"),
            "--out",
            str(out),
            "--bootstrap",
            "0",
            "--permutations",
            "0",
        ],
    )
    assert res.exit_code == 0, res.output
    run = AuditResults.load(run_dir / "results")
    again = AuditResults.load(out)
    assert again.settings["sampling"] == run.settings["sampling"]
    assert again.settings["seed"] == run.settings["seed"]
    for name in ("representation", "marked_words", "srb_scores", "excluded_subjects"):
        pd.testing.assert_frame_equal(again[name], run[name], check_dtype=False)
