"""A wrong API key, or a base URL with a query string, stops ``gasp run`` in one line
before the banner, before any completion request and before the run folder exists."""

from __future__ import annotations

from pathlib import Path

import pytest

from _cli import gasp_exit_code
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
