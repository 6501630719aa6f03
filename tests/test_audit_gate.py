"""The audit's gate cannot pass by accident: a study that did not run fails it, a typo
or a value ``gasp run`` refuses stops the audit before it writes anything, a changed
setting on an existing folder is refused (or redone), margins are checked, and model
names never leave the audit folder."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from _cli import gasp_exit_code
from gasp.auditing import AuditModel, Scorecard, judge

BASE = ("audit", "--quick", "--studies", "pronoun-pairs")
TWO = ("-m", "a=mock/personas", "-m", "b=mock/personas", "--baseline", "a")


def _one_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("gasp: error: ")
    return err[0]


def test_a_study_not_served_or_failed_fails_the_gate_as_a_junit_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out, junit = tmp_path / "audit", tmp_path / "ci" / "audit.xml"
    code = gasp_exit_code(
        monkeypatch, "audit", "--quick", "--studies", "pronoun-pairs,occugender", *TWO,
        "-m", "c=mock/echo", "--model-option", "c:failure_rate=1",
        "--fail-on", "worse", "--junit", str(junit), "--out", str(out),
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 1
    assert "not judged: b / occugender: not served" in err
    assert "not judged: c / pronoun-pairs: " in err
    errors = ET.parse(junit).getroot().findall(".//testcase/error")
    named = {e.get("message", "").split(":")[0] for e in errors}
    assert {"a / occugender", "b / occugender", "c / occugender", "c / pronoun-pairs"} <= named
    assert not ET.parse(junit).getroot().findall(".//testcase/skipped[@message='not served']")
    # without the gate, a study the backend cannot serve is listed only; a failure is not
    code = gasp_exit_code(
        monkeypatch, "audit", "--quick", "--studies", "occugender", *TWO,
        "--out", str(tmp_path / "plain"),
    )  # fmt: skip
    capsys.readouterr()
    assert code == 0


def test_a_comparison_that_could_not_be_tested_fails_the_gate(tmp_path: Path) -> None:
    models = [AuditModel("a", "mock/x"), AuditModel("b", "mock/x")]
    card = Scorecard(models, "a", 0.05)
    for model in ("a", "b"):
        card.runs.append({"model": model, "study": "s", "status": "complete", "reason": ""})
    card.comparison_rows.append(
        {"study": "s", "metric": "m", "model": "b", "baseline": "a", "p_value": None,
         "direction": "no difference", "difference": float("nan")}
    )  # fmt: skip
    gate = judge(card, "worse", {})
    assert gate.exit_status == 1
    assert [(e.model, e.status) for e in gate.errors] == [("b", "not tested")]
    card.comparison_rows[0]["p_value"] = 0.5
    assert judge(card, "worse", {}).exit_status == 0
    assert judge(card, None, {}).exit_status == 0


@pytest.mark.parametrize(
    "spec", ["mock/personaz", "hf/does-not-exist-xyz", "embedded/smollm3", "nosuch/model"]
)
def test_a_model_typo_is_one_usage_error_before_anything_is_written(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, spec: str
) -> None:
    out = tmp_path / "audit"
    code = gasp_exit_code(
        monkeypatch, *BASE, "-m", "a=mock/personas", "-m", f"b={spec}", "--baseline", "a",
        "--fail-on", "worse", "--out", str(out), "--junit", str(tmp_path / "j.xml"),
    )  # fmt: skip
    assert code == 2
    assert spec.split("/")[1] in _one_error(capsys)
    assert not out.exists() and not (tmp_path / "j.xml").exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--max-concurrency", "0"), "max_concurrency"),
        (("--model-option", "colour=red"), "colour"),
        (("--model-option", "b:colour=red"), "colour"),
        (("--seed", "-1"), "seed"),
        (("--study-option", "pronoun-pairs:pairs=0"), "pairs"),
        (("--study-option", "pronoun-pairs:nope=1"), "nope"),
        (("--level", "1.5"), "--level"),
        (("--fail-on", "better"), "--fail-on"),
        (("--redo", "narratives"), "--redo"),
        (("--base-url", "http://localhost:9/v1"), "--base-url"),
        (("--model-option", "b:base_url=http://localhost:9/v1"), "base_url"),
        (("--margin", "no_such_metric=0.1"), "no_such_metric"),
        (("--margin", "incorrect=-0.1"), "incorrect"),
        (("--margin", "incorrect=nan"), "incorrect"),
        (("--margin", "incorrect=inf"), "incorrect"),
        (("--margin", "pronoun-pairs.incorrect=x"), "incorrect"),
    ],
)
def test_every_value_gasp_run_refuses_is_refused_before_writing(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    args: tuple[str, ...],
    needle: str,
) -> None:
    out = tmp_path / "audit"
    code = gasp_exit_code(monkeypatch, *BASE, *TWO, *args, "--out", str(out))
    assert code == 2
    assert needle in _one_error(capsys)
    assert not out.exists()


def test_a_junit_path_that_cannot_be_written_is_refused_before_any_work(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    a_file = tmp_path / "file.txt"
    a_file.write_text("x", encoding="utf-8")
    for junit in (a_file / "j.xml", tmp_path):
        out = tmp_path / "audit"
        code = gasp_exit_code(monkeypatch, *BASE, *TWO, "--junit", str(junit), "--out", str(out))
        assert code == 2 and "--junit" in _one_error(capsys)
        assert not out.exists()


@pytest.mark.parametrize(("typed", "folder"), [("..", None), ("../up", "up"), (".hid/x", "hid-x")])
def test_model_names_never_leave_the_audit_folder(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    typed: str,
    folder: str | None,
) -> None:
    out = tmp_path / "in" / "audit"
    code = gasp_exit_code(
        monkeypatch, *BASE, "-m", f"{typed}=mock/echo", "--out", str(out)
    )  # fmt: skip
    if folder is None:
        assert code == 2 and "folder name" in _one_error(capsys)
        assert not out.exists()
        return
    capsys.readouterr()
    assert code == 0
    assert (out / folder / "pronoun-pairs" / "results").is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]
    assert sorted(p.name for p in (tmp_path / "in").iterdir()) == ["audit"]


def test_a_typo_never_locks_the_folder(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "audit"
    # a server that is down: the run is recorded, holds no answer, and is not served
    code = gasp_exit_code(
        monkeypatch, *BASE, "-m", "a=mock/personas", "-m", "b=openai-compatible/x",
        "--base-url", "http://127.0.0.1:9/v1", "--baseline", "a", "--out", str(out),
    )  # fmt: skip
    capsys.readouterr()
    assert code == 0
    record = json.loads((out / "audit.json").read_text(encoding="utf-8"))
    assert record["runs"]["b/pronoun-pairs"]["spec"] == "openai-compatible/x"
    # the corrected command under the same name runs
    code = gasp_exit_code(monkeypatch, *BASE, *TWO, "--fail-on", "worse", "--out", str(out))
    capsys.readouterr()
    assert code == 0
    record = json.loads((out / "audit.json").read_text(encoding="utf-8"))
    assert record["runs"]["b/pronoun-pairs"]["spec"] == "mock/personas"


#: The run without --quick keeps the quick run's two profession pairs (not the default
#: thousand): the quick setting still differs, and the run takes seconds.
QUICK_PAIRS = ("--study-option", "pronoun-pairs:pairs=2")


@pytest.mark.parametrize(
    ("quick", "args", "named"),
    [
        (True, ("--seed", "3"), "seed 0 -> 3"),
        (True, ("--study-option", "pronoun-pairs:pairs=3"), "study_options"),
        (True, ("--model-option", "b:female_share=0.9"), "model_options"),
        (False, QUICK_PAIRS, "quick True -> False"),
    ],
)
def test_a_changed_setting_is_refused_naming_it_or_redone(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    quick: bool,
    args: tuple[str, ...],
    named: str,
) -> None:
    out = tmp_path / "audit"
    assert gasp_exit_code(monkeypatch, *BASE, *TWO, "--out", str(out)) == 0
    capsys.readouterr()
    before = (out / "audit.json").read_text(encoding="utf-8")
    flag = ("--quick",) if quick else ()
    again = ("audit", *flag, "--studies", "pronoun-pairs", *TWO, *args, "--out", str(out))
    assert gasp_exit_code(monkeypatch, *again) == 2
    line = _one_error(capsys)
    assert named in line and "--redo pronoun-pairs" in line
    assert (out / "audit.json").read_text(encoding="utf-8") == before
    code = gasp_exit_code(monkeypatch, *again, "--redo", "pronoun-pairs")
    err = capsys.readouterr().err
    assert code == 0 and "finished before" not in err
    runs = json.loads((out / "audit.json").read_text(encoding="utf-8"))["runs"]
    settings = runs["b/pronoun-pairs"]
    assert set(settings) >= {"spec", "variant_prompt", "model_options", "seed", "quick"}
    assert set(settings) >= {"study_options", "decoding"}
    assert gasp_exit_code(monkeypatch, *again) == 0
    assert capsys.readouterr().err.count("finished before, not redone") == 2


def test_a_model_with_its_own_run_seed_is_no_twin_and_its_seed_is_recorded(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "audit"
    code = gasp_exit_code(
        monkeypatch, *BASE, *TWO, "--model-option", "b:run_seed=7", "--out", str(out)
    )
    err = capsys.readouterr().err
    assert code == 0 and "are one model" not in err
    runs = json.loads((out / "audit.json").read_text(encoding="utf-8"))["runs"]
    assert runs["a/pronoun-pairs"]["seed"] == 0 and runs["b/pronoun-pairs"]["seed"] == 7
    assert "run_seed" not in runs["b/pronoun-pairs"]["model_options"]
    # the same two models with one seed are twins, and the audit says so
    twins = tmp_path / "twins"
    assert gasp_exit_code(monkeypatch, *BASE, *TWO, "--out", str(twins)) == 0
    assert "are one model" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["-1", "x", "4294967296", "1.5"])
def test_a_bad_run_seed_is_one_line_before_anything_is_written(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    value: str,
) -> None:
    out = tmp_path / "audit"
    args = (*BASE, *TWO, "--model-option", f"b:run_seed={value}", "--out", str(out))
    assert gasp_exit_code(monkeypatch, *args) == 2
    assert "b:run_seed must be a whole number" in _one_error(capsys)
    assert not out.exists()
