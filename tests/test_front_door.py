"""The command line is a view of the public API: the same call gives the same files.

``gasp analyze`` and ``gasp.analyze``, ``gasp compare`` and ``gasp.compare`` write the
same results and scorecards for the same inputs; comparing runs of one study always
tests their headline metrics (two OccuGender runs of a planted 20% and 70% female
share: a significant ``explicit_female_share``); an audit's plan needs no API key and
sends nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gasp
from _cli import gasp_exit_code

SHARES = {  # the mock scoring model's table for a 20% and a 70% female share
    20: "he=0.8,she=0.2,male=0.8,female=0.2,man=0.8,woman=0.2,him=0.8,her=0.2",
    70: "he=0.3,she=0.7,male=0.3,female=0.7,man=0.3,woman=0.7,him=0.3,her=0.7",
}


def _without_time(value: Any, root: Path) -> Any:
    """``value`` with timestamps dropped and ``root`` made relative."""
    if isinstance(value, dict):
        dropped = {"started_at", "created_at", "written_at", "content_sha256"}
        return {k: _without_time(v, root) for k, v in value.items() if k not in dropped}
    if isinstance(value, list):
        return [_without_time(v, root) for v in value]
    if isinstance(value, str):
        return value.replace(str(root), "ROOT")
    return value


@pytest.fixture(scope="module")
def occugender_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("shares")
    for share, table in SHARES.items():
        gasp.run("occugender", "mock/scoring", out=root / f"og{share}", quick=True,
                 model_options={"table": table})  # fmt: skip
    return root / "og20", root / "og70"


def test_comparing_two_occugender_runs_tests_the_female_share(
    occugender_runs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    low, high = occugender_runs
    code = gasp_exit_code(
        monkeypatch, "compare", str(low), str(high), "--out", str(tmp_path / "cli")
    )
    assert code == 0
    card = json.loads((tmp_path / "cli" / "scorecard.json").read_text(encoding="utf-8"))
    share = next(c for c in card["comparisons"] if c["metric"] == "explicit_female_share")
    assert share["significant"] and share["q_value"] < 0.05
    shifted = next(c for c in card["comparisons"] if c["metric"] == "explicit_female_minus_bls")
    assert abs(abs(shifted["difference"]) - 50.0) < 1e-6  # 70% against 20% of the mass
    assert (tmp_path / "cli" / "report" / "report.html").is_file()  # the study's own tables
    api = gasp.compare([low, high], out=tmp_path / "api")
    again = json.loads((tmp_path / "api" / "scorecard.json").read_text(encoding="utf-8"))
    assert _without_time(again, tmp_path / "api") == _without_time(card, tmp_path / "cli")
    assert "explicit_female_share" in set(api.comparisons["metric"])


def test_analyze_from_the_command_line_and_from_python_write_the_same_results(
    occugender_runs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, _ = occugender_runs
    cli, api = tmp_path / "cli", tmp_path / "api"
    assert (
        gasp_exit_code(monkeypatch, "analyze", str(run), "--out", str(cli), "--bootstrap", "50")
        == 0
    )
    gasp.analyze(run, out=api, bootstrap=50)
    saved = [json.loads((f / "results.json").read_text(encoding="utf-8")) for f in (cli, api)]
    assert _without_time(saved[0], cli) == _without_time(saved[1], api)


def test_an_audit_plan_needs_no_api_key_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "audit"
    models = ["-m", "a=openai/gpt-4o-mini", "-m", "b=openai/gpt-4.1-mini", "--baseline", "a"]
    args = ["audit", *models, "--studies", "narratives,pronoun-pairs", "--plan", "--out", str(out)]
    assert gasp_exit_code(monkeypatch, *args) == 0
    printed = capsys.readouterr().out
    assert "requests" in printed and "USD" in printed and "min" in printed
    assert "needs an API key" in printed and "not served" not in printed
    assert not out.exists()
    # the audit itself still needs the key, refused in one line before anything is written
    assert gasp_exit_code(monkeypatch, *[a for a in args if a != "--plan"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "OPENAI_API_KEY" in err[0] and not out.exists()
