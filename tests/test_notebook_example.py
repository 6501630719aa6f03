"""The notebook-style example of docs/api.md runs on the mock model and reads DataFrames."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "notebook_api.py"


def test_the_notebook_example_runs_two_studies_with_the_api_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", [str(EXAMPLE), str(tmp_path), "mock/personas"])
    names = runpy.run_path(str(EXAMPLE), run_name="__main__")
    metrics = names["metrics"]
    assert set(metrics["study"]) == {"pronoun-pairs", "narratives"}
    assert metrics["value"].notna().all() and len(metrics) >= 6
    assert (tmp_path / "pronoun-pairs" / "report" / "report.html").is_file()
    assert (tmp_path / "narratives-again" / "results.json").is_file()
    assert "pairs_answers" in capsys.readouterr().out
    source = EXAMPLE.read_text(encoding="utf-8")
    assert "gasp.cli" not in source and "subprocess" not in source
