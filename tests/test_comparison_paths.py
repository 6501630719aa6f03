"""``gasp compare`` never writes into one of the runs it compares, and never compares a
run with itself: both are refused in one line before anything is read or written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from _cli import gasp_exit_code
from gasp.errors import ConfigError
from gasp.io import check_comparison_paths


def _run(folder: Path) -> Path:
    (folder / "results").mkdir(parents=True)
    (folder / "results" / "results.json").write_text("{}")
    (folder / "run.sqlite").write_bytes(b"")
    return folder


def test_an_output_inside_a_run_or_a_run_named_twice_is_refused(tmp_path: Path) -> None:
    a, b = _run(tmp_path / "a"), _run(tmp_path / "b")
    for out in (a, a / "results", a / "report", a / "deep" / "er", b):
        with pytest.raises(ConfigError, match=r"inside run .*would overwrite it"):
            check_comparison_paths([a, b], out)
    with pytest.raises(ConfigError, match="are the same run"):
        check_comparison_paths([a, a / "results"], tmp_path / "cmp")
    with pytest.raises(ConfigError, match="are the same run"):
        check_comparison_paths([a, a / "results" / ".."], tmp_path / "cmp")
    # a run folder named by its store, with a trailing slash, or through a link
    link = tmp_path / "link"
    link.symlink_to(a)
    for spelling in (a / "run.sqlite", Path(f"{a}/"), link, link / "run.sqlite"):
        with pytest.raises(ConfigError, match="are the same run"):
            check_comparison_paths([a, spelling], tmp_path / "cmp")
    # an audit folder (no run of its own) named twice
    audit = tmp_path / "audit"
    (audit / "m" / "narratives").mkdir(parents=True)
    with pytest.raises(ConfigError, match="are the same run"):
        check_comparison_paths([audit, audit / "m" / ".."], tmp_path / "cmp")
    check_comparison_paths([a, b], tmp_path / "cmp")  # beside the runs: accepted
    check_comparison_paths([a, b], tmp_path)  # their parent: nothing of theirs is replaced


def test_gasp_compare_with_out_one_of_the_inputs_is_one_line_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _run(tmp_path / "a"), _run(tmp_path / "b")
    before = sorted(os.walk(tmp_path))
    assert gasp_exit_code(monkeypatch, "compare", str(a), str(b), "--out", str(a)) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gasp: error: --out ")
    assert sorted(os.walk(tmp_path)) == before
