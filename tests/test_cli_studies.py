"""Studies by name on the command line: ``gasp studies``, dispatch on the study a run
recorded, study files naming their type, ``--model-option``, ``python -m gasp``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from _cli import gasp_exit_code
from gasp.errors import ConfigError
from gasp.store import RunStore
from gasp.studies import get_study_type, study_names, study_type_for, study_type_of_manifest


def test_gasp_studies_lists_every_registered_study_with_a_description(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert gasp_exit_code(monkeypatch, "studies") == 0
    out = capsys.readouterr().out
    for name in study_names():
        assert name in out
        assert get_study_type(name).description.split()[0] in out


def test_unknown_study_is_one_error_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = gasp_exit_code(monkeypatch, "run", "no-such-study", "--out", str(tmp_path / "r"))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "no-such-study" in err[0]
    assert not (tmp_path / "r").exists()


def test_a_study_file_names_its_type(tmp_path: Path) -> None:
    good = tmp_path / "s.toml"
    good.write_text(
        'study = "more-of-the-same"\nname = "two"\nsubjects = ["nurse"]\n'
        '[templates]\np = "Describe [ARTICLE] [OCCUPATION]"\n',
        encoding="utf-8",
    )
    study_type = study_type_for(good)
    assert study_type.name == "more-of-the-same"
    assert study_type.build(good, {}).to_plan().name == "two"
    bad = tmp_path / "b.toml"
    bad.write_text('study = "astrology"\nname = "x"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown study 'astrology'"):
        study_type_for(bad)
    assert study_type_of_manifest({}).name == "more-of-the-same"  # runs of the first release


def test_an_option_another_study_uses_is_refused() -> None:
    with pytest.raises(ConfigError, match="--race does not apply"):
        get_study_type("more-of-the-same").build("more-of-the-same", {"race": "a Black"})


def test_model_option_reaches_the_backend_with_its_validation(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "r.sqlite"
    args = ["generate", "--model", "mock/personas", "--occupations", "nurse", "--n", "2",
            "--conditions", "woman", "--out", str(out), "--quiet"]  # fmt: skip
    assert gasp_exit_code(monkeypatch, *args, "--model-option", "female_share=0.9") == 0
    with RunStore.open(out) as store:
        assert store.count_samples() == 4
    other = tmp_path / "o.sqlite"
    args[args.index(str(out))] = str(other)
    code = gasp_exit_code(monkeypatch, *args, "--model-option", "no_such_option=1")
    err = capsys.readouterr().err
    assert code == 2 and "no_such_option" in err and not other.exists()
    code = gasp_exit_code(monkeypatch, *args, "--model-option", "novalue")
    assert code == 2 and "KEY=VALUE" in capsys.readouterr().err


def test_python_dash_m_gasp_runs_the_command_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "gasp", "studies"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "more-of-the-same" in result.stdout


def test_study_options_are_checked_against_the_study(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "r.sqlite"
    code = gasp_exit_code(
        monkeypatch, "generate", "--out", str(out), "--study-option", "colour=blue"
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "no option 'colour'" in err[0]
    assert not out.exists()


def test_a_table_of_generations_needs_its_study_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    table = tmp_path / "texts.csv"
    table.write_text("text\nShe is a nurse.\n", encoding="utf-8")
    assert gasp_exit_code(monkeypatch, "analyze", str(table)) == 2
    assert "--study" in capsys.readouterr().err
    assert gasp_exit_code(monkeypatch, "analyze", str(table), "--study", "occugender") == 2
    assert "cannot analyse a table" in capsys.readouterr().err


def test_a_failed_step_makes_gasp_run_exit_non_zero(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from gasp.errors import DataError
    from gasp.studies.more_of_the_same import MoreOfTheSame

    def failing_probe(self: object, results: Path, options: object) -> str:
        raise DataError("the embeddings file is unreadable")

    monkeypatch.setattr(MoreOfTheSame, "probe", failing_probe)
    out = tmp_path / "run"
    args = ["run", "-m", "mock/personas", "--quick", "--n", "4", "--out", str(out),
            "--bootstrap", "0", "--permutations", "0"]  # fmt: skip
    code = gasp_exit_code(monkeypatch, *args)
    captured = capsys.readouterr()
    assert code == 1 and "probe failed: the embeddings file is unreadable" in captured.err
    assert (out / "report" / "report.html").is_file()  # the later steps still ran


def test_gasp_run_passes_the_probes_k_rule_and_refuses_a_bad_one_before_any_step(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from gasp.results import AuditResults

    bad = tmp_path / "bad"
    code = gasp_exit_code(monkeypatch, "run", "-m", "mock/personas", "--quick", "--out",
                          str(bad), "--k-rule", "nonsense")  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "nonsense" in err[0]
    assert not bad.exists()
    out = tmp_path / "run"
    args = ["run", "-m", "mock/personas", "--quick", "--n", "4", "--out", str(out),
            "--bootstrap", "0", "--permutations", "0",
            "--k-rule", "paper", "--n-init", "2"]  # fmt: skip
    assert gasp_exit_code(monkeypatch, *args) == 0
    probe = AuditResults.load(out / "results").settings["probe"]
    assert probe["k_rule"] == "paper" and probe["n_init"] == 2
