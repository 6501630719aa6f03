"""``gasp export``: every table of every study (samples, scores, items), never an empty file."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from _cli import gasp_exit_code
from gasp.store import RunStore, default_table

ONLY_GENERATE = ("--skip", "analyze", "--skip", "probe", "--skip", "report")


def _run(monkeypatch: pytest.MonkeyPatch, study: str, model: str, out: Path) -> Path:
    args = ["run", study, "--quick", "-m", model, "--out", str(out), *ONLY_GENERATE]
    assert gasp_exit_code(monkeypatch, *args) == 0
    return out


def test_an_occugender_run_exports_its_scores_by_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _run(monkeypatch, "occugender", "mock/scoring", tmp_path / "og")
    with RunStore.open(run / "run.sqlite") as store:
        stored = store.scores(include_errors=True)
        items = store.items()
        assert default_table(store.manifest()) == "scores"
    assert len(stored) > 0
    capsys.readouterr()

    assert gasp_exit_code(monkeypatch, "export", str(run), str(tmp_path / "scores.csv")) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "scores.csv")
    scores = pd.read_csv(tmp_path / "scores.csv")
    # one row per item, sample and candidate, with its log-probability, tokens and flag
    assert len(scores) == len(stored)
    assert not scores.duplicated(["item_id", "sample_index", "candidate"]).any()
    assert {"logprob", "n_tokens", "tokens", "approximate", "candidate"} <= set(scores.columns)
    assert set(scores["study"]) == {"occugender"}
    assert scores["logprob"].tolist() == pytest.approx(stored["logprob"].tolist())
    assert json.loads(scores["tokens"].iloc[0]) == list(stored["tokens"].iloc[0])
    per_item = stored.groupby(["item_id", "sample_index"]).size()
    candidates = items.set_index("item_id")["candidates"].map(len)
    wanted = candidates.loc[per_item.index.get_level_values("item_id")].to_numpy()
    assert (per_item.to_numpy() == wanted).all()

    # the samples of a scoring study: a warning and no file, not a header-only file
    target = tmp_path / "samples.csv"
    args = ["export", str(run / "run.sqlite"), str(target), "--what", "samples"]
    assert gasp_exit_code(monkeypatch, *args) == 0
    captured = capsys.readouterr()
    assert not target.exists() and captured.out == ""
    assert captured.err.splitlines() == [
        f"gasp: warning: {run / 'run.sqlite'} has no samples to export, nothing written; "
        f"try --what scores ({len(stored):,} rows) or --what items ({len(items):,} rows)"
    ]

    target = tmp_path / "items.jsonl"
    assert gasp_exit_code(monkeypatch, "export", str(run), str(target), "--what", "items") == 0
    exported = pd.read_json(target, lines=True)
    assert exported["item_id"].tolist() == items["item_id"].tolist()
    assert set(exported["study"]) == {"occugender"} and "job" in exported.columns
    assert exported["candidates"].map(len).tolist() == items["candidates"].map(len).tolist()


@pytest.mark.parametrize("study", ["pronoun-pairs", "narratives"])
def test_generation_studies_export_samples_with_their_study_named(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, study: str
) -> None:
    run = _run(monkeypatch, study, "mock/personas", tmp_path / "run")
    with RunStore.open(run / "run.sqlite") as store:
        n = store.count_samples(include_errors=True)
    target = tmp_path / "samples.parquet"
    assert gasp_exit_code(monkeypatch, "export", str(run), str(target)) == 0
    frame = pd.read_parquet(target)
    assert len(frame) == n > 0
    assert set(frame["study"]) == {study}
    target = tmp_path / "items.csv"
    assert gasp_exit_code(monkeypatch, "export", str(run), str(target), "--what", "items") == 0
    items = pd.read_csv(target)
    assert set(items["study"]) == {study}
    assert [m[-1]["role"] for m in items["messages"].map(json.loads)] == ["user"] * len(items)


def test_export_refuses_what_is_not_a_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert gasp_exit_code(monkeypatch, "export", str(tmp_path / "none"), "x.csv") == 2
    assert capsys.readouterr().err.startswith("gasp: error: no run store at ")
