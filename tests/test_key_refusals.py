"""A wrong API key, or a base URL with a query string, stops ``gasp run`` in one line
before the banner, before any completion request and before the run folder exists."""

from __future__ import annotations

from pathlib import Path

import pytest

from _cli import gasp_exit_code
from gasp.store import RunStore
from gasp.testing import FakeOpenAIServer


@pytest.mark.parametrize(
    ("key", "suffix", "message"),
    [
        ("wrong", "", "refused the API key (HTTP 401)"),
        ("right", "?api-version=1", "carries a query string or fragment"),
        ("right", "#frag", "carries a query string or fragment"),
    ],
)
def test_a_wrong_key_or_a_query_in_the_base_url_stops_before_the_store(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    key: str,
    suffix: str,
    message: str,
) -> None:
    monkeypatch.setenv("GASP_TEST_KEY", key)
    out = tmp_path / "run"
    with FakeOpenAIServer(api_key="right", models=["fake"]) as server:
        args = ["run", "pronoun-pairs", "--quick", "-m", "openai-compatible/fake"]
        args += ["--base-url", server.base_url + suffix, "--api-key-env", "GASP_TEST_KEY"]
        assert gasp_exit_code(monkeypatch, *args, "--out", str(out)) == 2
        assert server.requests == 0
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gasp: error: ") and message in lines[0]
    assert "right" not in captured.err and captured.out == ""
    assert not out.exists()


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gasp: error: "), captured
    return lines[0]


@pytest.mark.parametrize("status", [404, 405])
def test_a_server_without_a_model_list_checks_the_key_with_a_request_that_generates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], status: int
) -> None:
    out = tmp_path / "run"
    with FakeOpenAIServer(api_key="right", models=["fake"], models_status=status) as server:
        args = ["run", "pronoun-pairs", "--quick", "-m", "openai-compatible/fake", "--quiet"]
        args += ["--base-url", server.base_url, "--api-key-env", "GASP_TEST_KEY"]
        monkeypatch.setenv("GASP_TEST_KEY", "wrong")
        assert gasp_exit_code(monkeypatch, *args, "--out", str(out)) == 2
        line = _one_line(capsys)
        assert "refused the API key (HTTP 401): check the key in the variable GASP_TEST_KEY" in line
        assert server.requests == 0 and not out.exists()
        # the right key: the check generated nothing, every request is one of the run's
        monkeypatch.setenv("GASP_TEST_KEY", "right")
        assert gasp_exit_code(monkeypatch, *args, "--skip", "probe", "--out", str(out)) == 0
        with RunStore.open(out / "run.sqlite") as store:
            assert server.requests == store.count_samples(include_errors=True) > 0


def test_an_openai_model_s_key_and_name_are_checked_where_the_client_sends_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    with FakeOpenAIServer(api_key="sk-right", models=["gpt-4o-mini"]) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        args = ["run", "pronoun-pairs", "--quick", "--quiet", "--out", str(out)]
        monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
        assert gasp_exit_code(monkeypatch, *args, "-m", "openai/gpt-4o-mini") == 2
        line = _one_line(capsys)
        assert (
            "refused the API key (HTTP 401): check the key in the variable OPENAI_API_KEY" in line
        )
        assert "sk-" not in line
        monkeypatch.setenv("OPENAI_API_KEY", "sk-right")
        assert gasp_exit_code(monkeypatch, *args, "-m", "openai/gpt-4o-mni") == 2
        assert "does not serve model 'gpt-4o-mni' (it serves: gpt-4o-mini)" in _one_line(capsys)
        assert server.requests == 0 and not out.exists()
        assert (
            gasp_exit_code(monkeypatch, *args, "-m", "openai/gpt-4o-mini", "--skip", "probe") == 0
        )
        with RunStore.open(out / "run.sqlite") as store:
            assert server.requests == store.count_samples(include_errors=True) > 0


def test_every_server_of_a_fleet_is_checked_before_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    monkeypatch.setenv("GASP_TEST_KEY", "right")
    with (
        FakeOpenAIServer(api_key="right", models=["fake"]) as good,
        FakeOpenAIServer(api_key="other", models=["fake"]) as refusing,
    ):
        args = ["run", "pronoun-pairs", "--quick", "-m", "openai-compatible/fake", "--quiet"]
        args += ["--base-url", good.base_url, "--base-url", refusing.base_url]
        args += ["--api-key-env", "GASP_TEST_KEY", "--out", str(out)]
        assert gasp_exit_code(monkeypatch, *args) == 2
        line = _one_line(capsys)
        assert "refused the API key (HTTP 401)" in line and refusing.base_url in line
        assert good.requests == refusing.requests == 0 and not out.exists()
