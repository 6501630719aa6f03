"""Multiplicity across a study: the study-wide FDR option and the marked words expected
by chance, on null corpora (nothing planted) and planted ones."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from _analysis_helpers import PLANTED, random_embeddings
from gasp.errors import ConfigError
from gasp.results import AuditResults
from gasp.stats import (
    SignificanceRule,
    bh_reject,
    chance_count,
    marked_words_table,
    reselect,
    study_rule,
)
from gasp.studies.more_of_the_same._steps import analysis_overrides
from gasp.studies.more_of_the_same.analysis import AnalysisConfig, analyze_samples
from gasp.studies.more_of_the_same.analysis._synthetic import synthetic_samples
from gasp.text import PRONOUNS

STUDY = {"fdr_alpha": 0.05, "fdr_scope": "study"}
NOT_NOISE = PRONOUNS | {"nonbinary"}


def _table(z: np.ndarray, words: list[str], counts: int = 10) -> pd.DataFrame:
    """An all-words table of one comparison with z-scores ``z`` against one group."""
    n = len(words)
    return marked_words_table(
        np.array(words, dtype=object),
        np.full(n, counts),
        {"u": np.full(n, counts)},
        {"u": z},
        all_words=True,
    )


def _false_words(results: AuditResults) -> pd.DataFrame:
    marked = results["marked_words"]
    planted = set(PLANTED["F"]) | set(PLANTED["M"])
    return marked[~marked["word"].isin(NOT_NOISE | planted)]


@pytest.fixture(scope="module")
def null_runs() -> dict[str, AuditResults]:
    """63 occupations whose words do not depend on the gender (only pronouns do)."""
    samples = synthetic_samples(
        63,
        templates=("persona",),
        n_unspecified=90,
        n_named=30,
        words_per_text=25,
        vocabulary_size=600,
        seed=3,
    )
    base = {"min_samples": 20, "n_bootstrap": 0, "n_permutations": 0}
    emb = random_embeddings()
    return {
        name: analyze_samples(samples, None, AnalysisConfig(**base, **extra), embeddings=emb)  # type: ignore[arg-type]
        for name, extra in (("default", {}), ("study", STUDY))
    }


def test_null_corpus_reports_the_expected_count(null_runs: dict[str, AuditResults]) -> None:
    results = null_runs["default"]
    assert results.meta["n_analysed_subjects"] == 63
    chance = results["chance_marked_words"]
    total = chance.set_index(["source", "gender"]).loc[("all", "all")]
    # 63 occupations x 5 comparisons, each word with a finite z-score is one test
    assert total["n_comparisons"] == 63 * 5
    assert total["n_tests"] > 63 * 5 * 100
    assert total["z_cutoff_low"] == total["z_cutoff_high"] == 1.96
    assert total["expected_by_chance"] == pytest.approx(total["n_tests"] * norm.sf(1.96))
    per_comparison = chance[chance["source"] != "all"]
    assert per_comparison["n_tests"].sum() == total["n_tests"]
    assert (
        per_comparison["marked_words"].sum()
        == total["marked_words"]
        == len(results["marked_words"])
    )
    # The count assumes standard normal z-scores; the informative prior shrinks them, so
    # on a null corpus the noise words actually marked stay below it (an upper bound).
    assert len(_false_words(results)) <= total["expected_by_chance"]


def test_study_fdr_keeps_false_marked_words_near_zero(
    null_runs: dict[str, AuditResults],
) -> None:
    results = null_runs["study"]
    assert len(_false_words(results)) <= 2
    chance = results["chance_marked_words"].set_index(["source", "gender"])
    total = chance.loc[("all", "all")]
    assert total["z_cutoff_low"] == total["z_cutoff_high"] > 4.0
    assert total["expected_by_chance"] < 1.0
    assert "over every test of the study" in total["rule"]
    assert results.meta["settings"]["significance"]["fdr_scope"] == "study"


def test_standard_normal_null_matches_the_expected_count() -> None:
    """With z-scores that are standard normal under the null, realized ~ expected."""
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(400)]
    tables = [_table(rng.normal(size=400), words) for _ in range(63 * 5)]
    plain = chance_count(tables, SignificanceRule())
    assert plain.n_tests == 63 * 5 * 400
    assert plain.expected == pytest.approx(plain.n_tests * norm.sf(1.96))
    assert abs(plain.marked - plain.expected) < 5 * np.sqrt(plain.expected)
    rule = study_rule(SignificanceRule(fdr=0.05, fdr_scope="study"), tables)
    assert rule.threshold is not None and rule.threshold > 4.5
    decided = [reselect(t, rule, all_words=True) for t in tables]
    assert chance_count(decided, rule).marked <= 2
    assert chance_count(decided, rule).expected < 0.1


def test_study_cutoff_marks_what_pooled_benjamini_hochberg_rejects() -> None:
    rng = np.random.default_rng(1)
    words = [f"w{i}" for i in range(300)]
    z_rows = [rng.normal(size=300) + np.where(rng.random(300) < 0.05, 4.0, 0.0) for _ in range(12)]
    tables = [_table(z, words) for z in z_rows]
    rule = study_rule(SignificanceRule(fdr=0.1, fdr_scope="study"), tables)
    pooled = np.concatenate(z_rows)
    want = (bh_reject(pooled, 0.1) & (pooled > 0)).reshape(12, 300)
    for table, expected in zip(tables, want, strict=True):
        got = reselect(table, rule, all_words=True).set_index("word")["significant"]
        assert got.reindex(words).to_numpy().tolist() == expected.tolist()
    # the unresolved rule on one stack of rows treats it as one family: the same words
    stacked = SignificanceRule(fdr=0.1, fdr_scope="study").select(np.stack(z_rows), 10)
    assert stacked.tolist() == want.tolist()


def test_planted_words_are_found_with_the_study_fdr() -> None:
    samples = synthetic_samples(
        12, templates=("persona",), n_unspecified=250, seed=4, planted=PLANTED, planted_rate=0.5
    )
    config = AnalysisConfig(
        min_samples=20, n_bootstrap=2, n_simulations=0, n_permutations=3, **STUDY
    )  # type: ignore[arg-type]
    results = analyze_samples(samples, None, config, embeddings=random_embeddings())
    marked = results["marked_words"]
    found = 0
    for (_, _, gender), part in marked.groupby(["subject", "source", "gender"]):
        if gender in PLANTED:
            found += len(set(PLANTED[gender]) & set(part["word"]))
    total = 12 * 2 * 2 * len(PLANTED["F"])  # subjects x sources x genders x words
    assert found >= 0.95 * total
    assert len(_false_words(results)) <= 2
    assert results["srb_scores"]["n_bootstrap"].max() <= 2


def test_rule_scope_settings() -> None:
    with pytest.raises(ConfigError, match="study-wide"):
        SignificanceRule(fdr_scope="study")
    with pytest.raises(ConfigError, match="scope"):
        SignificanceRule(fdr=0.05, fdr_scope="everything")
    rule = SignificanceRule(fdr=0.05, fdr_scope="study", min_count=2)
    data = rule.to_dict()
    assert data["fdr_scope"] == "study"
    assert SignificanceRule.from_dict(json.loads(json.dumps(data))) == rule
    assert rule.describe().startswith("Benjamini-Hochberg FDR at 5% over every test of the study")
    with pytest.raises(ConfigError, match="needs fdr_alpha"):
        AnalysisConfig(fdr_scope="study")
    overrides = analysis_overrides({"fdr_scope": "study"})
    assert overrides["fdr_alpha"] == 0.05 and overrides["fdr_scope"] == "study"


def test_more_of_the_same_report_shows_the_chance_count(
    null_runs: dict[str, AuditResults], tmp_path: Path
) -> None:
    from gasp.studies.more_of_the_same.report import render_run_report

    results = null_runs["study"]
    results.meta["study_kind"] = "more-of-the-same"
    folder = results.save(tmp_path / "run.results")
    html = render_run_report(folder, tmp_path / "report").read_text()
    assert "How many marked words chance alone would give" in html
    assert "over every word, subject and comparison of the study at once" in html
    total = results["chance_marked_words"].iloc[-1]
    assert f"ran {int(total['n_tests']):,} tests" in html
    assert (tmp_path / "report" / "tables" / "chance_marked_words.csv").is_file()


def test_marked_personas_study_fdr_over_every_comparison(tmp_path: Path) -> None:
    from gasp.studies.marked_personas import analyze_frame
    from gasp.studies.marked_personas._model import load_study
    from gasp.studies.marked_personas.report import render_results

    study = load_study("marked-personas")
    rng = np.random.default_rng(2)
    vocab = np.array([f"word{i}" for i in range(300)], dtype=object)
    rows = []
    for race in ("a White", "a Black", "an Asian", "a Middle-Eastern", "a Latine"):
        for gender in ("M", "W", "N"):
            for _ in range(40):
                words = list(rng.choice(vocab, size=30))
                if race == "a Black":
                    words += ["planted"] * 2
                text = " ".join(words)
                rows.append({"text": text, "prompt": "Describe.", "race": race, "gender": gender})
    frame = pd.DataFrame(rows)
    study_run = analyze_frame(frame, study, {"fdr_scope": "study"})
    assert study_run.meta["settings"]["fdr"] == 0.05
    marked = study_run["persona_marked_words"]
    assert "planted" in set(marked.loc[marked["group"] == "Black", "word"])
    assert (marked["word"] != "planted").sum() <= 2  # noise words marked anywhere
    chance = study_run["persona_chance_marked_words"]
    total = chance.iloc[-1]
    assert total["group"] == "all" and total["marked_words"] == len(marked)
    assert total["z_cutoff_low"] == total["z_cutoff_high"] > 1.96
    default = analyze_frame(frame, study, {})["persona_chance_marked_words"].iloc[-1]
    assert default["expected_by_chance"] == pytest.approx(default["n_tests"] * norm.sf(1.96))
    page = render_results(study_run, tmp_path / "mp").read_text()
    assert "How many Marked Words chance alone would give" in page
    assert "over every test of the study at once" in page
