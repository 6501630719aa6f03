"""A run too small to show something says why in its report, with the option that fills it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from _cli import gasp_exit_code
from gasp.results import AuditResults
from gasp.studies.more_of_the_same.report import _sizing as sizing


def _results(
    words: list[tuple[str, str]], reasons: list[str], n: int, seconds: float
) -> AuditResults:
    word_tables = pd.DataFrame(
        {
            "subject": "nurse",
            "template": "all",
            "gender": "F",
            "word": [w for w, _ in words],
            "kind": [k for _, k in words],
        }
    )
    srb = pd.DataFrame({"subject": "nurse", "gender": "F", "score": 0.1, "reason": reasons})
    return AuditResults(
        tables={"word_tables": word_tables, "srb_scores": srb},
        meta={
            "manifest": {"study": {"n": n}},
            "generation_time": {"seconds": seconds, "samples": 256.0},
        },
    )


def test_pronouns_only_names_the_n_that_fills_the_section_and_its_time() -> None:
    results = _results([("her", "pronoun"), ("sarah", "name"), ("woman", "gender term")],
                       ["no word with a vector"], n=8, seconds=80.0)  # fmt: skip
    sentence = sizing.too_small_sentence(results)
    assert sentence is not None
    assert "n = 8" in sentence and "--n 60" in sentence
    assert "0 significant describing word(s)" in sentence and "0 SRB score(s)" in sentence
    assert "about 10 minutes" in sentence  # 80 s for n = 8, so 600 s for n = 60


def test_a_run_with_words_and_scores_needs_no_sentence() -> None:
    words = [(f"word{i}", "word") for i in range(12)]
    results = _results(words, [""] * 4, n=60, seconds=600.0)
    assert sizing.describing_words(results) == 12
    assert sizing.defined_scores(results) == 4
    assert sizing.too_small_sentence(results) is None


def test_without_generation_time_the_sentence_has_no_estimate() -> None:
    results = _results([], [], n=4, seconds=0.0)
    sentence = sizing.too_small_sentence(results)
    assert sentence is not None and "--n 60" in sentence and "minutes" not in sentence


def test_a_quick_run_with_nothing_to_cluster_says_why_in_the_report(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "run"
    args = ["run", "-m", "mock/constant", "--quick", "--n", "2", "--out", str(out),
            "--bootstrap", "0", "--permutations", "0"]  # fmt: skip
    assert gasp_exit_code(monkeypatch, *args) == 0
    captured = capsys.readouterr()
    assert "nothing to cluster" in captured.err
    page = (out / "report" / "report.html").read_text(encoding="utf-8")
    assert "What the differences mean" in page
    assert "The probe found nothing to cluster" in page
    assert "--n 60" in page
    results = AuditResults.load(out / "results")
    assert results.meta["probe_skipped"]
    assert results.meta["generation_time"]["samples"] > 0
