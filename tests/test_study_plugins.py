"""Study plugins: a package declaring an entry point in the group ``gasp.studies`` is
listed by ``gasp studies`` with its package and version, runs, analyses and reports
like a built-in; a plugin that fails to import is one warning line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from _cli import gasp_exit_code
from gasp.results import AuditResults
from gasp.studies import BUILTIN_STUDY_MODULES, forget_plugins, study_names

PLUGIN_SOURCE = Path(__file__).parent / "plugin_study"


def _distribution(folder: Path, name: str, entry_points: str) -> None:
    """A dist-info folder (an installed distribution, as pip leaves it) under ``folder``."""
    info = folder / f"{name.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(f"[gasp.studies]\n{entry_points}\n", encoding="utf-8")


@pytest.fixture()
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The example plugin and a broken one, installed for this test only."""
    site = tmp_path / "site"
    _distribution(site, "gasp-lengths", "text-lengths = gasp_lengths")
    _distribution(site, "gasp-broken", "broken-study = gasp_broken_study")
    (site / "gasp_broken_study.py").write_text("raise RuntimeError('no such corpus')\n")
    monkeypatch.syspath_prepend(str(PLUGIN_SOURCE))
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("COLUMNS", "250")
    forget_plugins()
    yield tmp_path
    monkeypatch.undo()
    forget_plugins()


def test_gasp_studies_lists_the_plugin_and_warns_once_of_the_broken_one(
    installed: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert {"text-lengths", "broken-study"} <= set(study_names())
    assert gasp_exit_code(monkeypatch, "studies") == 0
    out, err = capsys.readouterr()
    for name in BUILTIN_STUDY_MODULES:
        assert name in out
    assert "text-lengths" in out and "gasp-lengths 0.1.0" in out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gasp: warning: study plugin 'broken-study'")
    assert "RuntimeError: no such corpus" in lines[0]
    assert gasp_exit_code(monkeypatch, "run", "broken-study", "-m", "mock/echo") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot be loaded" in err[0]


def test_the_plugin_runs_on_mock_echo_analyses_tables_and_reports(
    installed: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = installed / "run"
    code = gasp_exit_code(monkeypatch, "run", "text-lengths", "-m", "mock/echo", "--out", str(out))
    assert code == 0, capsys.readouterr()
    results = AuditResults.load(out / "results")
    table = results["lengths"].set_index("profession")
    assert table["texts"].to_dict() == {"nurse": 2, "pilot": 2, "teacher": 2}
    assert (out / "report" / "report.html").is_file()
    assert gasp_exit_code(monkeypatch, "report", str(out)) == 0
    mine = installed / "mine.csv"
    pd.DataFrame(
        {"job": ["nurse", "nurse", "pilot"], "description": ["one two", "one two three four", "x"]}
    ).to_csv(mine, index=False)
    args = ["analyze", str(mine), "--study", "text-lengths"]
    assert gasp_exit_code(monkeypatch, *args, "--column", "text=description") == 2
    assert "--column profession=COLUMN" in capsys.readouterr().err
    args += ["--column", "text=description", "--column", "profession=job"]
    assert gasp_exit_code(monkeypatch, *args) == 0
    lengths = AuditResults.load(installed / "mine.csv.results")["lengths"].set_index("profession")
    assert lengths["mean_words"].to_dict() == {"nurse": 3.0, "pilot": 1.0}
    assert gasp_exit_code(monkeypatch, "studies", "text-lengths") == 0
    assert "profession" in capsys.readouterr().out
