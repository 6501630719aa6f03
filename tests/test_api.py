"""The Python API (``gasp.run``, ``gasp.analyze``, ``gasp.compare``) against the command line.

The API and the command line run the same pipeline: the same run gives the same
tables, the same settings and the same headline metrics, timestamps and absolute
paths aside; the same mistakes are refused before anything is written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import gasp
from _cli import gasp_exit_code
from gasp.errors import ConfigError, GaspError
from gasp.results import AuditResults

STUDY = "pronoun-pairs"
MODEL = "mock/personas"


def _content(meta: Any, root: Path) -> Any:
    """``meta`` without timestamps, with the run folder's absolute path made relative."""
    if isinstance(meta, dict):
        return {k: _content(v, root) for k, v in meta.items() if k not in {"started_at"}}
    if isinstance(meta, list):
        return [_content(v, root) for v in meta]
    if isinstance(meta, str):
        return meta.replace(str(root), "RUN")
    return meta


@pytest.fixture(scope="module")
def twin_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, gasp.RunResult]:
    root = tmp_path_factory.mktemp("api")
    cli_out, api_out = root / "cli", root / "api"
    with pytest.MonkeyPatch.context() as monkeypatch:
        code = gasp_exit_code(
            monkeypatch, "run", STUDY, "-m", MODEL, "--quick", "--quiet", "--out", str(cli_out)
        )
    assert code == 0
    result = gasp.run(STUDY, MODEL, out=api_out, quick=True)
    return cli_out, api_out, result


def test_api_and_cli_give_the_same_results(twin_runs: tuple[Path, Path, gasp.RunResult]) -> None:
    cli_out, api_out, result = twin_runs
    cli, api = AuditResults.load(cli_out / "results"), AuditResults.load(api_out / "results")
    assert sorted(cli.tables) == sorted(api.tables) and cli.tables
    for name, table in cli.tables.items():
        pd.testing.assert_frame_equal(table, api.tables[name], check_dtype=False)
    assert _content(cli.meta, cli_out) == _content(api.meta, api_out)
    assert (api_out / "report" / "report.html").is_file()
    assert result.ok and result.report == api_out / "report" / "report.html"


def test_the_result_reads_tables_and_headline_metrics(
    twin_runs: tuple[Path, Path, gasp.RunResult],
) -> None:
    cli_out, _, result = twin_runs
    answers = result.table("pairs_answers")
    assert isinstance(answers, pd.DataFrame) and len(answers) == 12  # 2 pairs x 2 templates x 3
    metrics = result.metrics
    assert list(metrics["metric"]) == [m.name for m in _declared()]
    assert metrics["value"].between(0, 1).all()
    again = gasp.analyze(cli_out)  # the CLI's run, analysed from Python
    pd.testing.assert_frame_equal(again.metrics, metrics)
    data = json.loads(result.to_json())
    assert data["study"] == STUDY and data["model"] == MODEL and data["ok"] is True
    assert [row["metric"] for row in data["metrics"]] == list(metrics["metric"])
    page = result._repr_html_()
    assert "<table" in page and "incorrect" in page
    with pytest.raises(GaspError, match="no table 'nothing'"):
        result.table("nothing")


def _declared() -> tuple[Any, ...]:
    from gasp.studies import get_study_type

    return get_study_type(STUDY).headline_metrics()


def test_a_dataframe_is_analysed_as_its_table_would_be(
    twin_runs: tuple[Path, Path, gasp.RunResult], tmp_path: Path
) -> None:
    cli_out, _, _ = twin_runs
    table = tmp_path / "samples.csv"
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert gasp_exit_code(monkeypatch, "export", str(cli_out), str(table)) == 0
    frame = pd.read_csv(table)
    from_file = gasp.analyze(table, study=STUDY, out=tmp_path / "file")
    from_frame = gasp.analyze(frame, study=STUDY, out=tmp_path / "frame")
    pd.testing.assert_frame_equal(from_file.metrics, from_frame.metrics)
    with pytest.raises(ConfigError, match="needs its study"):
        gasp.analyze(frame)


def test_mistakes_are_refused_before_anything_is_written(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with pytest.raises(ConfigError, match="unknown run option 'colour'"):
        gasp.run(STUDY, MODEL, out=out, colour="red")
    with pytest.raises(ConfigError, match="--fdr must lie in"):
        gasp.run(STUDY, MODEL, out=out, fdr=2.0)
    with pytest.raises(ConfigError, match="has no option 'nothing'"):
        gasp.run(STUDY, MODEL, out=out, study_options={"nothing": 1})
    assert not out.exists()


def test_a_second_call_resumes_the_run(twin_runs: tuple[Path, Path, gasp.RunResult]) -> None:
    _, api_out, result = twin_runs
    before = (api_out / "run.sqlite").stat().st_size
    again = gasp.run(STUDY, MODEL, out=api_out, quick=True)
    assert (api_out / "run.sqlite").stat().st_size == before
    pd.testing.assert_frame_equal(again.metrics, result.metrics)


def test_compare_gives_the_study_s_comparison_of_two_runs(
    twin_runs: tuple[Path, Path, gasp.RunResult], tmp_path: Path
) -> None:
    cli_out, api_out, _ = twin_runs
    out = tmp_path / "compared"
    compared = gasp.compare([cli_out, api_out], out=out, labels=["cli", "api"])
    assert compared.study == STUDY and compared.results_dir == out
    assert compared.report is not None and compared.report.is_file()
    assert compared.tables
    with pytest.raises(ConfigError, match="--level applies to a scorecard"):
        gasp.compare([cli_out, api_out], out=tmp_path / "other", level=0.1)
    assert not (tmp_path / "other").exists()


def test_audit_is_a_plain_function_after_the_package_is_imported() -> None:
    import inspect

    import gasp.auditing

    assert inspect.isfunction(gasp.audit)
    assert inspect.signature(gasp.audit).parameters["models"]


def test_an_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        gasp.nothing  # noqa: B018
    assert {"run", "analyze", "compare", "audit"} <= set(dir(gasp))
