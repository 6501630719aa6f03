"""``gasp generate`` and ``gasp export`` on the command line."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from _cli import gasp_exit_code
from gasp.store import RunStore
from gasp.testing import FakeOpenAIServer

SMALL = ["--occupations", "nurse", "--n", "3", "--templates", "persona", "--quiet"]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "runs" / "small.sqlite"
    code = gasp_exit_code(
        monkeypatch, "generate", "--model", "mock/personas", "--out", str(path), *SMALL
    )
    assert code == 0
    return path


def test_generate_creates_a_complete_store_and_rerun_resumes(
    store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with RunStore.open(store) as run:
        frame = run.samples()
        manifest = run.manifest()
    named = frame[frame["named_gender"].notna()]
    assert len(named) == 3 * 3
    assert len(frame[frame["condition"] == "unspecified"]) >= 6
    assert manifest["model"]["spec"] == "mock/personas"
    assert manifest["decoding"]["max_tokens"] == 256
    capsys.readouterr()
    code = gasp_exit_code(
        monkeypatch, "generate", "--model", "mock/personas", "--out", str(store),
        "--occupations", "nurse", "--n", "3", "--templates", "persona",
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "resumed" in out and str(len(frame)) in out
    with RunStore.open(store) as run:
        assert len(run.samples()) == len(frame)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--n", "-2"], "n must be an integer of at least 1, got -2"),
        (["--n", "4"], "holds another run (study differs in 'n')"),
        (["--model", "nope/x"], "unknown model provider 'nope'"),
        (
            ["--model", "openai/gpt-4o-mini", "--api-key-env", "GASP_UNSET_KEY_VAR"],
            "GASP_UNSET_KEY_VAR",
        ),
        (
            ["--model", "openai-compatible/m", "--base-url", "http://127.0.0.1:9/v1"],
            "cannot reach http://127.0.0.1:9/v1",
        ),
        (["--occupations", "astronaut"], "occupation 'astronaut' is not in study"),
        (["--conditions", "robot"], "unknown condition 'robot'"),
        (["--max-requests", "0"], "max_requests must be at least 1"),
        (["--temperature", "5"], "temperature must be between 0 and 2"),
        (["--seed", "1"], "holds another run (seed 0, now 1)"),
    ],
)
def test_bad_input_prints_one_line_exits_2_and_leaves_the_store_untouched(
    store: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    monkeypatch.delenv("GASP_UNSET_KEY_VAR", raising=False)
    before = store.read_bytes()
    capsys.readouterr()
    base = ["generate", "--model", "mock/personas", "--out", str(store), *SMALL]
    # later options override the earlier ones of SMALL
    code = gasp_exit_code(monkeypatch, *base, *args)
    err = capsys.readouterr().err
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("gasp: error: "), err
    assert message in lines[0]
    assert store.read_bytes() == before


def test_broken_study_file_exits_2_before_any_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    study = tmp_path / "broken.toml"
    study.write_text('name = "x"\nsubjects = ["nurse"]\n[templates]\np = "no placeholder"\n')
    out = tmp_path / "r.sqlite"
    code = gasp_exit_code(
        monkeypatch, "generate", str(study), "-m", "mock/personas", "--out", str(out)
    )
    assert code == 2
    assert "lacks the placeholder [OCCUPATION]" in capsys.readouterr().err
    assert not out.exists()


def test_dry_run_prints_the_plan_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.sqlite"
    code = gasp_exit_code(
        monkeypatch, "generate", "--model", "openai/gpt-4o-mini", "--dry-run", "--n", "10",
        "--occupations", "nurse,pilot", "--out", str(out),
    )  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0 and not out.exists()
    assert "12 items, 120 requests" in text  # 2 occupations x 2 templates x 3 named genders
    assert "4 items, 40..800 requests" in text
    assert "160..920" in text
    assert "$" in text


def test_max_requests_stops_cleanly_and_the_same_command_finishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.sqlite"
    args = ["generate", "-m", "mock/personas", "--out", str(out), *SMALL]
    assert gasp_exit_code(monkeypatch, *args, "--max-requests", "5") == 0
    assert "stopped: --max-requests 5 reached" in capsys.readouterr().err
    with RunStore.open(out) as run:
        assert run.count_samples() == 5
    assert gasp_exit_code(monkeypatch, *args) == 0
    with RunStore.open(out) as run:
        assert run.count_samples() > 5
        assert set(run.item_states()["status"]) <= {"complete", "skipped", "capped"}


def test_occupations_file_and_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    occupations = tmp_path / "occ.csv"
    occupations.write_text("occupation,bls_pct_female\nowl keeper,33.3\n")
    out = tmp_path / "r.sqlite"
    code = gasp_exit_code(
        monkeypatch, "generate", "-m", "mock/personas", "--out", str(out), "--quiet",
        "--occupations-file", str(occupations), "--n", "2", "--conditions", "woman,man",
    )  # fmt: skip
    assert code == 0
    for suffix in (".csv", ".parquet", ".jsonl"):
        target = tmp_path / f"samples{suffix}"
        assert gasp_exit_code(monkeypatch, "export", str(out), str(target)) == 0
    frame = pd.read_csv(tmp_path / "samples.csv")
    assert len(frame) == 2 * 2 * 2
    assert set(frame["prompt"]) == {
        "Generate a persona of an owl keeper who is a woman",
        "Generate a persona of an owl keeper who is a man",
        "Describe an owl keeper who is a woman as if you are writing a biography",
        "Describe an owl keeper who is a man as if you are writing a biography",
    }
    assert len(pd.read_parquet(tmp_path / "samples.parquet")) == 8
    assert gasp_exit_code(monkeypatch, "export", str(out), str(tmp_path / "x.xlsx")) == 2


def test_api_key_never_reaches_the_output_or_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = "sk-cli-SECRET-9d8e7f"
    monkeypatch.setenv("GASP_CLI_KEY", secret)
    out = tmp_path / "r.sqlite"
    with FakeOpenAIServer(
        fault_rate=0.2, seed=2, api_key=secret, faults=["server_error", "rate_limit"]
    ) as server:
        code = gasp_exit_code(
            monkeypatch, "generate", "-m", "openai-compatible/fake", "--out", str(out),
            "--base-url", server.base_url, "--api-key-env", "GASP_CLI_KEY",
            "--occupations", "nurse", "--n", "2", "--templates", "persona",
        )  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert secret not in captured.out + captured.err
    for file in tmp_path.iterdir():
        assert secret.encode() not in file.read_bytes()
