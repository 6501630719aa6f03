"""What a notebook user relies on: plain functions with resolvable type hints, ``help()``
that starts with the signature, a runnable example in every docstring (run here as a
doctest), and ``mypy --strict`` seeing the result types of a user's script."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pydoc
import subprocess
import sys
import typing
from pathlib import Path

import pytest

import gasp

PUBLIC = (
    "run", "run_async", "analyze", "compare", "audit", "audit_async", "plan_audit", "view",
    "tour", "generate", "export", "probe_words", "list_studies", "describe_study",
    "render_report", "associate_genders", "marked_words", "calibrate", "inspect_tasks_path",
    "export_hf",
)  # fmt: skip
MODULES = (
    "_run", "_analyze", "_audit", "_view", "_tour", "_generate", "_studies",
    "_tables", "_tools",
)  # fmt: skip
ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", PUBLIC)
def test_each_function_is_plain_typed_and_its_help_starts_with_its_signature(name: str) -> None:
    function = getattr(gasp, name)
    assert inspect.isfunction(function)
    hints = typing.get_type_hints(function)
    assert "return" in hints
    text = pydoc.plaintext.document(function)
    assert text.startswith((f"{name}(", f"async {name}(")), text[:200]
    assert "Example:" in (function.__doc__ or "") and ">>> " in (function.__doc__ or "")


def test_the_result_types_are_the_public_classes() -> None:
    hints = {n: typing.get_type_hints(getattr(gasp, n))["return"] for n in PUBLIC}
    assert hints["run"] is gasp.RunResult and hints["compare"] is gasp.RunResult
    assert hints["audit"] is gasp.Scorecard and hints["plan_audit"] is gasp.AuditPlan
    assert hints["tour"] is gasp.Scorecard and hints["generate"] is gasp.Generation
    assert hints["export"] is gasp.ExportOutcome and hints["probe_words"] is gasp.ProbeOutcome
    assert hints["list_studies"] is gasp.StudyListing
    assert hints["describe_study"] is gasp.StudyInfo
    assert hints["associate_genders"] is gasp.GenderAssociation
    assert hints["marked_words"] is gasp.MarkedWords
    assert hints["calibrate"] is gasp.CalibrationReport


def test_every_public_function_is_listed_in_both_namespaces() -> None:
    import gasp._api

    functions = {n for n in gasp._api.__all__ if n[0].islower()}
    assert set(PUBLIC) == functions and set(gasp._api.__all__) == set(gasp._api._MODULES)
    assert {n for n in gasp._api.__all__ if n[0].isupper()} <= set(gasp.__all__)
    assert set(PUBLIC) <= set(gasp.__all__) and set(PUBLIC) <= set(dir(gasp))
    for name in PUBLIC:
        assert f":func:`gasp.{name}`" in (gasp.__doc__ or ""), name


@pytest.mark.parametrize("module", MODULES)
def test_the_docstring_examples_run(module: str, tmp_path: Path) -> None:
    found = doctest.DocTestFinder().find(importlib.import_module(f"gasp._api.{module}"))
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    examples = 0
    for test in found:
        test.globs["folder"] = tmp_path
        runner.run(test)
        examples += len(test.examples)
    results = runner.summarize(verbose=False)
    assert examples > 0 and results.failed == 0


def test_mypy_strict_sees_the_result_types_of_a_users_script(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    script = tmp_path / "user.py"
    script.write_text(
        "import gasp\n"
        "run = gasp.run('narratives', 'mock/personas', quick=True)\n"
        "card = gasp.audit(['a=mock/personas', 'b=mock/personas'], baseline='a')\n"
        "compared = gasp.compare([run.results_dir, run.results_dir], out='x')\n"
        "reveal_type(run)\nreveal_type(card)\nreveal_type(compared)\n",
        encoding="utf-8",
    )
    example = ROOT / "docs" / "examples" / "notebook_api.py"
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(script), str(example)],
        capture_output=True, text=True, cwd=ROOT, check=False, timeout=600,
    )  # fmt: skip
    revealed = [line for line in done.stdout.splitlines() if "Revealed type" in line]
    assert len(revealed) == 3, done.stdout[-2000:]
    assert "gasp.pipeline._result.RunResult" in revealed[0]
    assert "gasp.auditing._scorecard.Scorecard" in revealed[1]
    assert "gasp.pipeline._result.RunResult" in revealed[2]
    assert "Any" not in "".join(revealed)
    assert done.returncode == 0  # reveal_type is a note, not an error
    assert "error:" not in done.stdout.replace("Revealed type", ""), done.stdout[-2000:]
