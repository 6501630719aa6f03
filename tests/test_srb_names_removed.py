"""The name-free SRB variant end to end: ``gasp generate`` against a fake OpenAI-compatible
server, then ``gasp analyze`` (issue: SRB that separates stereotypes from names).

The fake server writes persona texts (:func:`gasp.backends.persona_text`). With
``bias=0`` its texts differ by gender only in pronouns and gendered first names: the
paper's SRB, which removes only pronouns, compares the names; the name-free variant
removes them and finds no difference. With ``bias=0.5`` half of the describing words
come from a gendered pool, and both variants find the difference.

With the default analysis, Calibrated Marked Words marks no describing word in the
gender-blind texts, so the name-free test is undefined and says why; a threshold of
z > 1.0 lets noise words through, which gives the name-free variant scores to test
(the same device as ``tests/test_null_model.py``). Both checks use that threshold.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _cli import gasp_exit_code
from gasp.backends import PersonaMix, persona_text
from gasp.results import AuditResults
from gasp.studies.more_of_the_same.analysis import AnalysisConfig, NameFilter
from gasp.testing import FakeOpenAIServer
from gasp.text import GENDER_TERMS, is_gender_term

OCCUPATIONS = (
    "nurse", "engineer", "software engineer", "teacher", "lawyer", "cashier", "pilot", "chef",
)  # fmt: skip
N = 60


def _generate(
    tmp: Path, monkeypatch: pytest.MonkeyPatch, text: Callable[[str, np.random.Generator], str]
) -> Path:
    store = tmp / "run.sqlite"
    with FakeOpenAIServer(seed=3, text=text) as server:
        code = gasp_exit_code(
            monkeypatch, "generate", "-m", "openai-compatible/fake", "--out", str(store),
            "--base-url", server.base_url, "--occupations", ",".join(OCCUPATIONS),
            "--n", str(N), "--templates", "persona", "--conditions", "unspecified,woman,man",
            "--seed", "7",
        )  # fmt: skip
    assert code == 0
    return store


def _analyze(store: Path, monkeypatch: pytest.MonkeyPatch, *options: str) -> AuditResults:
    results = store.parent / f"results{len(options)}"
    code = gasp_exit_code(
        monkeypatch, "analyze", str(store), "--out", str(results),
        "--bootstrap", "0", "--permutations", "0", *options,
    )  # fmt: skip
    assert code == 0
    return AuditResults.load(results)


def _welch(results: AuditResults) -> pd.DataFrame:
    tests = results["srb_test"]
    return tests[tests["test"] == "welch"].set_index("variant")


def _run(tmp: Path, bias: float) -> tuple[AuditResults, AuditResults]:
    """The results with the default analysis (folder ``results0``) and with a threshold of
    z > 1.0 (``results2``)."""
    mix = PersonaMix(bias=bias)
    with pytest.MonkeyPatch.context() as mp:
        store = _generate(tmp, mp, lambda p, rng: persona_text(p, rng, mix))
        return _analyze(store, mp), _analyze(store, mp, "--threshold", "1.0")


@pytest.fixture(scope="module")
def null_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("null")


@pytest.fixture(scope="module")
def null_runs(null_dir: Path) -> tuple[AuditResults, AuditResults]:
    return _run(null_dir, 0.0)


@pytest.fixture(scope="module")
def null_results(null_runs: tuple[AuditResults, AuditResults]) -> AuditResults:
    return null_runs[1]


@pytest.fixture(scope="module")
def planted_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[AuditResults, AuditResults]:
    return _run(tmp_path_factory.mktemp("planted"), 0.5)


@pytest.fixture(scope="module")
def planted_results(planted_runs: tuple[AuditResults, AuditResults]) -> AuditResults:
    return planted_runs[1]


def test_with_no_describing_word_left_the_name_free_test_says_why(
    null_runs: tuple[AuditResults, AuditResults],
) -> None:
    welch = _welch(null_runs[0])
    print("null, default analysis:", welch[["statistic", "p_value", "reason"]].to_dict("index"))
    assert welch.loc["paper", "p_value"] < 1e-3
    assert np.isnan(welch.loc["names_removed", "p_value"])
    assert "at least 2 subjects" in welch.loc["names_removed", "reason"]
    scores = null_runs[0]["srb_scores"]
    assert scores["reason_names_removed"].str.contains("person-name, gender-term").all()


def test_names_alone_make_no_name_free_difference(null_results: AuditResults) -> None:
    welch = _welch(null_results)
    print("null:", welch[["statistic", "p_value", "reason"]].to_dict("index"))
    assert set(welch.index) == {"paper", "names_removed"}
    assert welch.loc["names_removed", "p_value"] > 0.05
    assert welch.loc["paper", "p_value"] < 1e-3
    scores = null_results["srb_scores"]
    assert scores["subject"].nunique() == len(OCCUPATIONS)
    assert (scores["names_removed"] + scores["names_removed_specified"]).gt(0).all()


def test_a_planted_difference_in_describing_words_stays(
    planted_runs: tuple[AuditResults, AuditResults],
) -> None:
    for label, results in zip(("default", "z > 1.0"), planted_runs, strict=True):
        welch = _welch(results)
        print(f"planted, {label}:", welch[["statistic", "p_value", "reason"]].to_dict("index"))
        assert welch.loc["paper", "p_value"] < 0.05
        assert welch.loc["names_removed", "p_value"] < 0.05
        assert welch.loc["names_removed", "statistic"] < 0


def test_word_tables_mark_names_and_gender_terms(null_results: AuditResults) -> None:
    words = null_results["word_tables"]
    kind = dict(zip(words["word"], words["kind"], strict=False))
    assert kind.get("maria") == "name" and kind.get("james") == "name"
    assert kind.get("she") == "pronoun" and kind.get("woman") == "gender term"
    assert set(words["kind"]) <= {"name", "gender term", "pronoun", "word"}


def test_the_report_shows_both_variants_and_why_a_test_is_undefined(
    null_runs: tuple[AuditResults, AuditResults],
    null_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = null_dir / "report0"
    assert gasp_exit_code(monkeypatch, "report", str(null_dir / "results0"), "--out", str(out)) == 0
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "the paper&#x27;s SRB and SRB without names" in page or "SRB without names" in page
    assert "comes from names and gender words, not from describing words" in page
    assert "at least 2 subjects per group" in page
    both = pd.read_csv(out / "tables" / "srb_test_side_by_side.csv")
    welch = both.set_index("test").loc["welch"]
    assert float(welch["paper's SRB: p-value"]) < 1e-3
    assert "at least 2 subjects" in welch["names and gender terms removed: p-value"]


def test_gender_terms_are_one_extendable_list() -> None:
    assert {"woman", "women", "mrs", "mr", "ms", "gentlemen", "husbands"} <= GENDER_TERMS
    assert not is_gender_term(["nurturing", "nurse"]).any()
    assert is_gender_term(["Chap", "Mrs"], extra=["chap"]).all()
    names = NameFilter(extra_gender_terms=("chap",))
    assert names.split(["chap", "woman", "emily", "careful", "careful"]) == (["careful"], 1, 2)
    settings = AnalysisConfig(extra_gender_terms=("chap",)).settings()
    assert settings["srb"]["names_removed"]["extra_gender_terms"] == ["chap"]
