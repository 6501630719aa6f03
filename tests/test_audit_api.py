"""The audit from Python: ``gasp.audit(...)`` is callable (the package and the top-level
name alike), returns a Scorecard with DataFrames, gives the CLI's scorecard, hashes
content only, and records its level for re-scoring."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import gasp
from _cli import gasp_exit_code

MODELS = ["a=mock/personas", "b=mock/personas"]
OPTIONS = {"model_options": ["b:female_share=0.9"], "quick": True}


def _content(path: Path) -> dict:
    card = json.loads((path / "scorecard.json").read_text(encoding="utf-8"))
    for run in card["runs"]:
        run.pop("manifest_sha256")  # the manifest records when each run started
    return card


def test_gasp_audit_stays_callable_after_importing_the_package() -> None:
    code = (
        "import gasp, inspect; f = gasp.audit; import gasp.auditing; "
        "from gasp import audit; "
        "assert inspect.isfunction(gasp.audit) and audit is f is gasp.audit; print('ok')"
    )
    src = str(Path(gasp.__file__).resolve().parents[1])
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": src, "PATH": ""},
        check=False,
    )
    assert done.stdout.strip() == "ok", done.stderr
    assert inspect.isfunction(gasp.audit)


def test_the_api_gives_the_cli_scorecard_as_dataframes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    api, cli = tmp_path / "api", tmp_path / "cli"
    card = gasp.audit(MODELS, studies="narratives", baseline="a", out=api, level=0.1, **OPTIONS)
    code = gasp_exit_code(
        monkeypatch, "audit", "-m", MODELS[0], "-m", MODELS[1], "--studies", "narratives",
        "--baseline", "a", "--level", "0.1", "--quick", "--model-option", "b:female_share=0.9",
        "--out", str(cli),
    )  # fmt: skip
    capsys.readouterr()
    assert code == 0 and card.exit_status == 0
    assert _content(api) == _content(cli)
    # two identical audits: one content hash; it is the one the file holds
    saved = json.loads((api / "scorecard.json").read_text(encoding="utf-8"))
    assert saved["content_sha256"] == card.content_hash()
    assert saved["content_sha256"] == _content(cli)["content_sha256"]
    assert isinstance(card.metrics, pd.DataFrame) and isinstance(card.comparisons, pd.DataFrame)
    assert set(card.metrics["model"]) == {"a", "b"}
    share = card.comparisons.set_index("metric").loc["named_female_share"]
    assert share["model"] == "b" and share["baseline"] == "a"
    assert share["difference"] == pytest.approx(
        next(c["difference"] for c in saved["comparisons"] if c["metric"] == "named_female_share")
    )
    assert card.to_json()["comparisons"] == saved["comparisons"]
    page = card._repr_html_()
    assert "<table" in page and "named_female_share" in page and "baseline a" in page
    # the content hash moves with the content
    card.comparison_rows[0]["difference"] = 9.0
    assert card.content_hash() != saved["content_sha256"]


def test_the_level_is_recorded_and_used_when_rescoring(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "audit"
    gasp.audit(MODELS, studies=["pronoun-pairs"], baseline="a", out=out, level=0.2, **OPTIONS)
    capsys.readouterr()
    assert json.loads((out / "audit.json").read_text(encoding="utf-8"))["level"] == 0.2
    again, other = tmp_path / "again", tmp_path / "other"
    assert gasp_exit_code(monkeypatch, "compare", str(out), "--out", str(again)) == 0
    assert _content(again)["level"] == 0.2
    code = gasp_exit_code(monkeypatch, "compare", str(out), "--level", "0.01", "--out", str(other))
    assert code == 0 and _content(other)["level"] == 0.01
    code = gasp_exit_code(monkeypatch, "compare", str(out), "--level", "2", "--out", str(other))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--level" in err[0]


def test_an_unknown_keyword_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    with pytest.raises(gasp.GaspError, match="unknown audit option 'sead'"):
        gasp.audit(MODELS, out=tmp_path / "x", sead=3)
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("models", ["mock/echo", ["a=mock/echo"]])
def test_a_gate_on_one_model_is_refused_before_anything_is_written(
    tmp_path: Path, models: str | list[str]
) -> None:
    from gasp.auditing import run_audit
    from gasp.errors import ConfigError

    junit = tmp_path / "j.xml"
    baseline = "mock/echo" if isinstance(models, str) else "a"
    with pytest.raises(ConfigError, match="nothing to compare"):
        run_audit(models, "pronoun-pairs", baseline, tmp_path / "x", fail_on="worse", junit=junit)
    assert not (tmp_path / "x").exists() and not junit.exists()
