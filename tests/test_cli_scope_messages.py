"""Settings that name a model or a study say what they name: a study that exists but
is not run, a study given where a model is due, a model by its name as typed; two
models run alike are a warning; runs that share nothing say so."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

import gasp
from _cli import gasp_exit_code
from gasp.auditing import AuditConfig, prepare_audit
from gasp.errors import ConfigError

NARRATIVES = ("-m", "mock/personas", "--studies", "narratives", "--quick")
NOT_RUN = (
    "study 'pronoun-pairs' exists but is not run in this audit (its studies: narratives); "
    "add it to --studies"
)


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gasp: error: "), captured
    return lines[0].removeprefix("gasp: error: ")


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--study-option", "pronoun-pairs:n=3"], f"--study-option 'pronoun-pairs:n=3': {NOT_RUN}"),
        (
            ["--detect", "pronoun-pairs:incorrect=0.1"],
            f"--detect pronoun-pairs:incorrect: {NOT_RUN}",
        ),
        (
            ["--margin", "pronoun-pairs.incorrect=0.1"],
            f"--margin pronoun-pairs.incorrect: {NOT_RUN}",
        ),
        (["--redo", "pronoun-pairs"], f"--redo 'pronoun-pairs': {NOT_RUN} (or 'all')"),
        (
            ["--study-option", "pronoun-pair:n=3"],
            "--study-option 'pronoun-pair:n=3': no study called 'pronoun-pair' (the studies: ",
        ),
        (
            ["--model-option", "pronoun-pairs:bias=0.1"],
            "--model-option 'pronoun-pairs:bias=0.1': no model called 'pronoun-pairs' in this "
            "audit (its models: mock-personas); a study's options go in --study-option",
        ),
    ],
)
def test_a_setting_for_a_study_not_run_says_it_exists_and_what_is_run(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    args: list[str],
    line: str,
) -> None:
    out = tmp_path / "audit"
    assert gasp_exit_code(monkeypatch, "audit", *NARRATIVES, "--out", str(out), *args) == 2
    assert _one_line(capsys).startswith(line)
    assert not out.exists()


def test_gasp_run_names_the_study_an_option_is_for(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "run"
    args = ["run", "narratives", "-m", "mock/personas", "--quick", "--out", str(out)]
    assert gasp_exit_code(monkeypatch, *args, "--study-option", "pronoun-pairs:n=3") == 2
    assert _one_line(capsys).startswith(
        "option 'pronoun-pairs:n' is for study 'pronoun-pairs', which is not run here "
        "(this runs 'narratives'; its options: "
    )
    assert not out.exists()


def test_a_model_is_named_as_typed_or_by_its_folder(tmp_path: Path) -> None:
    typed = "<script>alert(1)</script>"
    models = [f"{typed}=mock/personas", "My Model=mock/personas"]
    config = AuditConfig(quick=True, model_options=["My Model:bias=0.2"])
    for baseline in (typed, "script-alert-1-script", "mock/personas"):
        audit = prepare_audit(models, ["narratives"], baseline, tmp_path / "a", 0.05, config)
        assert audit.baseline == "script-alert-1-script"
        assert [m.name for m in audit.models] == ["script-alert-1-script", "my-model"]
    # the option given to "My Model" is its run's, and the two models differ: no warning
    options = {spec.key: spec.settings() for spec in audit.specs}
    assert "0.2" in str(options["my-model/narratives"])
    assert "0.2" not in str(options["script-alert-1-script/narratives"])
    assert audit.warnings == []
    assert not (tmp_path / "a").exists()


def test_two_models_run_alike_are_a_one_line_warning(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "audit"
    models = ["-m", "a=mock/personas", "-m", "b=mock/personas", "-m", "c=mock/personas"]
    args = ["audit", *models, "--model-option", "c:bias=0.3", "--studies", "narratives"]
    assert gasp_exit_code(monkeypatch, *args, "--quick", "--plan", "--out", str(out)) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert warnings == [
        "gasp: warning: models 'a', 'b' are one model (mock/personas) with the same "
        "settings: their comparison can only find the model's own randomness"
    ]
    assert not out.exists()


def test_runs_that_share_no_triple_say_so_without_nan(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for name, template in (("late", "late"), ("cake", "cake")):
        args = ["run", "pronoun-pairs", "-m", "mock/personas", "--quick", "--quiet"]
        out = str(tmp_path / name)
        assert gasp_exit_code(monkeypatch, *args, "--templates", template, "--out", out) == 0
    capsys.readouterr()
    out = tmp_path / "cmp"
    args = ["compare", str(tmp_path / "late"), str(tmp_path / "cake"), "--out", str(out)]
    assert gasp_exit_code(monkeypatch, *args) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "no triple shared" in printed and "nothing is compared" in printed
    assert "nan" not in printed.lower() and "McNemar" not in printed
    tests = pd.read_csv(out / "pairs_mcnemar.csv")
    assert (tests["units"] == 0).all() and tests["p_value"].isna().all()
    page = (out / "report" / "report.html").read_text(encoding="utf-8")
    assert "not tested: no unit shared" in page and not re.search(r"\bnan\b", page, re.I)


@pytest.mark.parametrize("given", ["", " , "])
def test_studies_that_name_no_study_are_refused_not_read_as_every_study(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, given: str
) -> None:
    out = tmp_path / "audit"
    args = ["audit", "-m", "mock/personas", "--studies", given, "--out", str(out)]
    assert gasp_exit_code(monkeypatch, *args) == 2
    assert _one_line(capsys).startswith("--studies names no study; give one or more of: ")
    with pytest.raises(ConfigError, match="names no study"):
        gasp.audit("mock/personas", studies=given, out=out)
    assert not out.exists()
