"""An audit reaches every backend ``gasp run`` reaches: models behind an
OpenAI-compatible server (its key from ``--api-key-env``), a fleet of servers, one
server per model, the provider's batch API; a model the server does not serve fails
the gate."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from _cli import gasp_exit_code
from gasp.testing import FakeOpenAIServer

STUDIES = ("--quick", "--studies", "pronoun-pairs,narratives")
KEY = "GASP_AUDIT_TEST_KEY"


def _runs(out: Path) -> dict[tuple[str, str], dict]:
    card = json.loads((out / "scorecard.json").read_text(encoding="utf-8"))
    return {(r["model"], r["study"]): r for r in card["runs"]}


def _models_asked(server: FakeOpenAIServer) -> Counter[str]:
    return Counter(str(body.get("model")) for body in server.bodies)


def test_two_models_behind_one_server_are_compared_and_an_unserved_one_fails_the_gate(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv(KEY, "sk-audit-test")
    with FakeOpenAIServer(models=["small", "chat"], api_key="sk-audit-test", seed=3) as server:
        served = (
            "-m", "s=openai-compatible/small", "-m", "c=openai-compatible/chat",
            "--base-url", server.base_url, "--api-key-env", KEY, "--baseline", "s",
        )  # fmt: skip
        out = tmp_path / "served"
        code = gasp_exit_code(
            monkeypatch, "audit", *STUDIES, *served, "--fail-on", "worse", "--out", str(out)
        )
        capsys.readouterr()
        assert code == 0
        assert {r["status"] for r in _runs(out).values()} == {"complete"}
        card = json.loads((out / "scorecard.json").read_text(encoding="utf-8"))
        assert any(c["p_value"] is not None for c in card["comparisons"])
        assert set(_models_asked(server)) == {"small", "chat"}
        # one model the server does not serve: listed, and the gate fails (exit 1)
        out, junit = tmp_path / "unserved", tmp_path / "j.xml"
        code = gasp_exit_code(
            monkeypatch, "audit", *STUDIES, *served, "-m", "x=openai-compatible/missing",
            "--fail-on", "worse", "--junit", str(junit), "--out", str(out),
        )  # fmt: skip
        err = capsys.readouterr().err
        assert code == 1
        runs = _runs(out)
        assert runs[("x", "narratives")]["status"] == "not served"
        assert "does not serve model 'missing'" in runs[("x", "narratives")]["reason"]
        assert "not judged: x / narratives: not served" in err
        assert len(ET.parse(junit).getroot().findall(".//testcase/error")) == 2


def test_a_fleet_and_a_server_per_model(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv(KEY, "sk-second")
    with (
        FakeOpenAIServer(models=["m"], seed=1) as one,
        FakeOpenAIServer(models=["m"], seed=2) as two,
        FakeOpenAIServer(models=["m"], seed=4, api_key="sk-second") as keyed,
    ):
        # a fleet: the requests of every openai-compatible model spread over both servers
        out = tmp_path / "fleet"
        code = gasp_exit_code(
            monkeypatch, "audit", "--quick", "--studies", "narratives",
            "-m", "a=openai-compatible/m", "--system-prompt-variant", "v=Write about men.",
            "--base-url", one.base_url, "--base-url", two.base_url, "--baseline", "a",
            "--out", str(out),
        )  # fmt: skip
        capsys.readouterr()
        assert code == 0
        assert one.successes > 0 and two.successes > 0
        asked = one.successes + two.successes
        # one server per model, each with its own key: nothing crosses over
        out = tmp_path / "per-model"
        code = gasp_exit_code(
            monkeypatch, "audit", "--quick", "--studies", "narratives",
            "-m", "a=openai-compatible/m", "-m", "b=openai-compatible/m", "--baseline", "a",
            "--model-option", f"a:base_url={one.base_url}",
            "--model-option", f"b:base_url={keyed.base_url}",
            "--model-option", f"b:api_key_env={KEY}",
            "--out", str(out),
        )  # fmt: skip
        capsys.readouterr()
        assert code == 0
        assert two.successes + one.successes - asked == keyed.successes > 0
        # a server option for a backend that does not read it: refused before anything runs
        code = gasp_exit_code(
            monkeypatch, "audit", "--quick", "--studies", "narratives",
            "-m", "a=openai-compatible/m", "-m", "b=mock/echo",
            "--model-option", f"b:base_url={one.base_url}", "--out", str(tmp_path / "no"),
        )  # fmt: skip
        err = capsys.readouterr().err
        assert code == 2 and "does not read base_url" in err
        assert not (tmp_path / "no").exists()


def test_the_batch_api_runs_an_audit(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("GASP_BATCH_POLL_S", "0")
    with FakeOpenAIServer(models=["m", "n"], seed=5) as server:
        out = tmp_path / "batch"
        code = gasp_exit_code(
            monkeypatch, "audit", "--quick", "--studies", "pronoun-pairs", "--batch",
            "-m", "a=openai-compatible/m", "-m", "b=openai-compatible/n", "--baseline", "a",
            "--base-url", server.base_url, "--out", str(out),
        )  # fmt: skip
        capsys.readouterr()
        assert code == 0
        assert {r["status"] for r in _runs(out).values()} == {"complete"}
        assert server.requests == 0  # every answer came through the batch endpoints
    # --batch for a backend without a batch API: refused before anything is written
    code = gasp_exit_code(
        monkeypatch, "audit", "--quick", "--studies", "pronoun-pairs", "--batch",
        "-m", "a=mock/echo", "--out", str(tmp_path / "mock"),
    )  # fmt: skip
    assert code == 2 and "batch" in capsys.readouterr().err
    assert not (tmp_path / "mock").exists()
