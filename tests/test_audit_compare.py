"""``gasp compare`` across studies: the audit scorecard rebuilt from saved folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _cli import gasp_exit_code

ARGS = ("--quick", "-m", "a=mock/personas", "-m", "b=mock/echo")


def _core(path: Path) -> tuple[list, list]:
    card = json.loads(path.read_text(encoding="utf-8"))
    return card["metrics"], card["comparisons"]


def test_compare_rebuilds_the_audit_scorecard_from_folders(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    audit = tmp_path / "audit"
    code = gasp_exit_code(
        monkeypatch, "audit", *ARGS, "--studies", "pronoun-pairs,narratives", "--out", str(audit)
    )
    assert code == 0
    # from the audit folder: the same scorecard
    again = tmp_path / "again"
    assert gasp_exit_code(monkeypatch, "compare", str(audit), "--out", str(again)) == 0
    assert capsys.readouterr().out.strip().endswith("index.html")
    metrics, comparisons = _core(audit / "scorecard.json")
    assert _core(again / "scorecard.json") == (
        [m | {"report": f"../audit/{m['report']}"} for m in metrics],
        comparisons,
    )
    # from run folders of two studies, named by --label
    runs = [audit / m / s for s in ("pronoun-pairs", "narratives") for m in ("a", "b")]
    labels = [a for _ in range(2) for m in ("a", "b") for a in ("--label", m)]
    folders = tmp_path / "folders"
    code = gasp_exit_code(monkeypatch, "compare", *map(str, runs), *labels, "--out", str(folders))
    assert code == 0
    card = json.loads((folders / "scorecard.json").read_text(encoding="utf-8"))
    assert {(c["study"], c["metric"]) for c in card["comparisons"]} == {
        (c["study"], c["metric"]) for c in comparisons
    }
    assert [c["p_value"] for c in card["comparisons"]] == [c["p_value"] for c in comparisons]
    # one model only: one error line
    code = gasp_exit_code(
        monkeypatch, "compare", str(runs[0]), str(runs[2]), "--out", str(tmp_path / "x")
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "at least two models" in err[0]
