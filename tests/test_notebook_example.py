"""The notebook-style example of docs/api.md runs on the mock model and reads DataFrames;
the audit it runs with the API gives the scorecard ``gasp audit`` gives on the command
line for the same options, and another scorecard for another seed."""

from __future__ import annotations

import contextlib
import io
import json
import os
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import gasp

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "notebook_api.py"
#: The example's audit, as the command line spells it (``--out`` and ``--seed`` aside).
AUDIT_ARGS = [
    "audit",
    "-m", "a=mock/personas",
    "-m", "b=mock/personas",
    "--studies", "pronoun-pairs,narratives",
    "--baseline", "a",
    "--quick",
    "--model-option", "b:female_share=0.9",
]  # fmt: skip


@pytest.fixture(scope="module")
def notebook(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], str]:
    """The example run once in a fresh folder: the folder, its names and its stdout."""
    folder = tmp_path_factory.mktemp("notebook")
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(printed):
        mp.setattr(sys, "argv", [str(EXAMPLE), str(folder), "mock/personas"])
        names = runpy.run_path(str(EXAMPLE), run_name="__main__")
    return folder, names, printed.getvalue()


def _cli_audits(*runs: tuple[Path, tuple[str, ...]]) -> list[dict[str, Any]]:
    """``python -m gasp audit`` with the example's options, one new process per
    (``--out`` folder, extra options) run, all at once; their scorecard.json files."""
    src = str(Path(gasp.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    logs = [out.with_name(out.name + ".log").open("w+", encoding="utf-8") for out, _ in runs]
    started = [
        subprocess.Popen(
            [sys.executable, "-m", "gasp", *AUDIT_ARGS, "--out", str(out), *extra],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        for (out, extra), log in zip(runs, logs, strict=True)
    ]
    cards = []
    for process, log, (out, _) in zip(started, logs, runs, strict=True):
        with log:
            process.wait()
            log.seek(0)
            assert process.returncode == 0, log.read()[-2000:]
        cards.append(json.loads((out / "scorecard.json").read_text(encoding="utf-8")))
    return cards


def _content(card: dict[str, Any]) -> dict[str, Any]:
    """A scorecard without what differs between two identical audits: each run's
    manifest hash (a manifest records when its run started)."""
    runs = [
        {k: v for k, v in run.items() if k not in {"manifest_sha256", "seconds"}}
        for run in card["runs"]
    ]
    return {**card, "runs": runs}


def _comparisons(card: dict[str, Any], columns: pd.Index) -> pd.DataFrame:
    return pd.DataFrame(card["comparisons"], columns=columns)


def test_the_notebook_example_runs_two_studies_with_the_api_only(
    notebook: tuple[Path, dict[str, Any], str],
) -> None:
    folder, names, printed = notebook
    metrics = names["metrics"]
    assert set(metrics["study"]) == {"pronoun-pairs", "narratives"}
    assert metrics["value"].notna().all() and len(metrics) >= 6
    assert (folder / "pronoun-pairs" / "report" / "report.html").is_file()
    assert (folder / "narratives-again" / "results.json").is_file()
    assert "pairs_answers" in printed
    source = EXAMPLE.read_text(encoding="utf-8")
    assert "gasp.cli" not in source and "subprocess" not in source


def test_the_notebook_audit_reads_its_comparisons_as_a_dataframe(
    notebook: tuple[Path, dict[str, Any], str],
) -> None:
    folder, names, printed = notebook
    card, comparisons = names["card"], names["comparisons"]
    assert isinstance(comparisons, pd.DataFrame)
    assert set(comparisons["study"]) == {"pronoun-pairs", "narratives"}
    assert set(comparisons["model"]) == {"b"} and set(comparisons["baseline"]) == {"a"}
    assert "named_female_share" in set(comparisons["metric"])
    # b names women far more often than a: the two models' shares differ
    share = card.metrics.set_index(["model", "metric"])["value"]
    assert share[("b", "named_female_share")] > share[("a", "named_female_share")]
    saved = json.loads((folder / "audit" / "scorecard.json").read_text(encoding="utf-8"))
    assert saved["content_sha256"] == card.content_hash()
    assert card.content_hash() in printed


def test_the_cli_gives_the_notebook_audits_scorecard_and_another_seed_another(
    notebook: tuple[Path, dict[str, Any], str], tmp_path: Path
) -> None:
    folder, names, _ = notebook
    card = names["card"]
    api = json.loads((folder / "audit" / "scorecard.json").read_text(encoding="utf-8"))
    # the same audit on the command line, and one with another seed (run side by side)
    cli, other = _cli_audits((tmp_path / "cli", ()), (tmp_path / "seed-1", ("--seed", "1")))
    assert cli["content_sha256"] == api["content_sha256"] == card.content_hash()
    assert _content(cli) == _content(api)
    columns = card.comparisons.columns
    pd.testing.assert_frame_equal(_comparisons(cli, columns), card.comparisons)
    # the comparison sees a change of option: another seed, other answers, other rows
    assert other["content_sha256"] != api["content_sha256"]
    moved = _comparisons(other, columns)["difference"] != card.comparisons["difference"]
    assert moved.any()
