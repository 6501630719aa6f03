"""The "how" analysis in detail, word tables, model comparison, and the CLI on a real store."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from typer.testing import CliRunner

from _analysis_helpers import PLANTED, random_embeddings
from gasp.errors import DataError
from gasp.studies.more_of_the_same.analysis import (
    AnalysisConfig,
    AuditResults,
    analyze_samples,
    compare_results,
    compare_runs,
    prepare_run,
    word_tables,
)
from gasp.studies.more_of_the_same.analysis._resampled import Pair, group_totals, marked_sets
from gasp.studies.more_of_the_same.analysis._synthetic import synthetic_samples
from gasp.studies.more_of_the_same.analysis._units import UnitAnalysis, build_units


@pytest.fixture(scope="module")
def planted() -> pd.DataFrame:
    return synthetic_samples(
        3, n_unspecified=200, n_named=80, seed=11, planted=PLANTED, planted_rate=0.3
    )


@pytest.mark.parametrize("calibrated", [True, False])
def test_resampling_sets_match_the_public_marked_words(
    planted: pd.DataFrame, calibrated: bool
) -> None:
    config = AnalysisConfig(calibrated=calibrated, threshold=1.0)
    units, _ = build_units(prepare_run(planted), config)
    unit = units[0]
    observed = UnitAnalysis(unit, config, random_embeddings())
    # Identity weights: each group's totals are the plain sums of its generations.
    names = list(unit.masks)
    weights = np.stack([unit.masks[g] for g in names] + [np.ones(unit.counts.n_documents)])
    totals = group_totals(unit.counts, weights.astype(float))
    row = {g: i for i, g in enumerate(names)}
    specs = [spec for spec, _ in observed.tables.values()]
    pairs = [
        Pair(k, row[spec.target], row[u], len(names))
        for k, spec in enumerate(specs)
        for u in spec.unmarked
    ]
    sets = marked_sets(unit.counts.vocabulary, totals, pairs, len(specs), config)
    for spec, words in zip(specs, sets, strict=True):
        assert sorted(words) == sorted(observed.sets[(spec.source, spec.gender)])
    assert set(PLANTED["F"]) <= set(observed.sets[("associated", "F")])


def test_subjects_below_the_threshold_are_excluded_with_a_reason() -> None:
    samples = synthetic_samples(
        ["nurse", "pilot", "cook"], n_unspecified=150, n_named=40, share_female=[0.5, 0.04, 0.5]
    )
    config = AnalysisConfig(min_samples=60, threshold=1.0, n_bootstrap=0, n_permutations=0)
    results = analyze_samples(samples, None, config, embeddings=random_embeddings())
    excluded = results["excluded_subjects"]
    assert excluded["subject"].tolist() == ["pilot"]
    assert "fewer than n=60" in excluded["reason"].item()
    assert set(results["srb_scores"]["subject"]) == {"cook", "nurse"}
    lenient = dataclasses.replace(config, min_samples=5)
    excluded = analyze_samples(samples, None, lenient, embeddings=random_embeddings())[
        "excluded_subjects"
    ]
    assert "below 10%" in excluded["reason"].item()


def test_per_template_analysis(planted: pd.DataFrame) -> None:
    config = AnalysisConfig(
        pool_templates=False, threshold=1.0, n_bootstrap=0, n_permutations=0, min_samples=50
    )
    results = analyze_samples(planted, None, config, embeddings=random_embeddings())
    scores = results["srb_scores"]
    assert set(scores["template"]) == {"persona", "biography"}
    assert len(scores) == 3 * 2 * 2
    assert set(results["srb_test"]["template"]) == {"persona", "biography"}


def test_resampling_is_seeded(planted: pd.DataFrame) -> None:
    config = AnalysisConfig(threshold=1.0, n_bootstrap=4, n_permutations=9, seed=7)
    emb = random_embeddings()
    first = analyze_samples(planted, None, config, embeddings=emb)
    again = analyze_samples(planted, None, config, embeddings=emb)
    cols = ["ci_low", "ci_high", "boot_mean"]
    pd.testing.assert_frame_equal(first["srb_scores"][cols], again["srb_scores"][cols])
    pd.testing.assert_frame_equal(first["srb_test"], again["srb_test"])


def test_word_table_categories_by_hand() -> None:
    rows = [
        ("associated", "F", "yoga", 5.0),
        ("associated", "F", "tech", 4.0),
        ("associated", "F", "lonely", 3.0),
        ("named", "F", "yoga", 6.0),
        ("named", "F", "kind", 2.5),
        ("named", "M", "tech", 7.0),
        ("associated", "M", "tech", 2.0),
    ]
    marked = pd.DataFrame(
        [
            {"subject": "pilot", "template": "all", "source": s, "gender": g, "word": w,
             "z_sum": z, "is_pronoun": False}
            for s, g, w, z in rows
        ]
    )  # fmt: skip
    table = word_tables(marked)
    f = table[table["gender"] == "F"].set_index("word")
    assert f.loc["yoga", "category"] == "both"
    assert f.loc["tech", "category"] == "associated_and_other_named"
    assert f.loc["tech", "z_named"] == 7.0
    assert f.loc["lonely", "category"] == "associated_only"
    assert f.loc["kind", "category"] == "named_only"
    assert np.isnan(f.loc["kind", "z_associated"])
    assert list(f.index) == ["yoga", "tech", "kind", "lonely"]
    m = table[table["gender"] == "M"].set_index("word")
    assert m.loc["tech", "category"] == "both"


def _results(model: str, f: list[float], m: list[float]) -> AuditResults:
    subjects = [f"s{i}" for i in range(len(f))]
    srb = pd.DataFrame(
        {
            "subject": subjects * 2,
            "template": "all",
            "gender": ["F"] * len(f) + ["M"] * len(m),
            "score": f + m,
        }
    )
    return AuditResults(
        tables={"srb_scores": srb}, meta={"model_id": model, "study": "more-of-the-same"}
    )


def test_model_comparison_by_hand() -> None:
    old = _results("old", [-0.1, -0.2, -0.3], [0.1, 0.2, 0.4])
    new = _results("new", [-0.2, -0.3, -0.3], [0.2, 0.1, 0.5])
    tables = compare_results([old, new])
    tests = tables["model_comparison"].set_index("gender")
    expected = stats.ttest_ind([-0.1, -0.2, -0.3], [-0.2, -0.3, -0.3], equal_var=False)
    assert tests.loc["F", "statistic"] == pytest.approx(expected.statistic)
    assert tests.loc["F", "p_value"] == pytest.approx(expected.pvalue)
    assert tests.loc["F", "model_a"] == "old"
    change = tables["percent_change"].set_index(["gender", "subject"])["percent_change"]
    assert change[("F", "s0")] == pytest.approx(100.0)  # -0.1 -> -0.2: closer to women
    assert change[("M", "s1")] == pytest.approx(-50.0)  # 0.2 -> 0.1
    assert change[("F", "s2")] == pytest.approx(0.0)


def test_model_comparison_rejects_bad_input() -> None:
    with pytest.raises(DataError, match="at least two"):
        compare_runs([_results("a", [0.1, 0.2], [0.1, 0.2])])
    other = _results("b", [0.1, 0.2], [0.1, 0.2])
    other.meta["study"] = "another"
    with pytest.raises(DataError, match="different studies"):
        compare_results([_results("a", [0.1, 0.2], [0.1, 0.2]), other])


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two small runs generated through the mock backend and the runner into stores."""
    from gasp.runner import RunOptions, generate
    from gasp.studies.more_of_the_same import more_of_the_same

    study = more_of_the_same()
    small = dataclasses.replace(
        study, subjects=study.subjects[:3], n=30, templates=dict(list(study.templates.items())[:1])
    )
    folder = tmp_path_factory.mktemp("runs")
    paths = []
    for bias in (0.3, 0.6):
        path = folder / f"bias{bias}.sqlite"
        options = RunOptions(progress=False, seed=1, backend_options={"bias": bias})
        generate(small, "mock/personas", path, options)
        paths.append(path)
    return paths


def test_cli_analyze_and_compare(stores: list[Path], tmp_path: Path) -> None:
    from gasp.cli import app

    runner = CliRunner()
    options = ["--min-samples", "30", "--bootstrap", "2", "--permutations", "5"]
    for store in stores:
        result = runner.invoke(app, ["analyze", str(store), *options])
        assert result.exit_code == 0, result.output
        assert "results written to" in result.output
        assert "capture rate" in result.output
        loaded = AuditResults.load(store.with_name(store.name + ".results"))
        assert loaded.meta["model_id"] == "mock/personas"
        assert loaded.meta["study"] == "more-of-the-same"
        rep = loaded["representation"]
        assert rep["bls_pct_female"].notna().all()
        assert len(loaded["srb_scores"]) == 6
    folders = [str(s.with_name(s.name + ".results")) for s in stores]
    out = tmp_path / "cmp"
    result = runner.invoke(
        app, ["compare", *folders, "--out", str(out), "--label", "low", "--label", "high"]
    )
    assert result.exit_code == 0, result.output
    comparison = AuditResults.load(out)["model_comparison"]
    assert set(comparison["gender"]) == {"F", "M"}
    assert comparison["model_a"].eq("low").all()
    report = tmp_path / "cmp" / "report" / "report.html"
    assert report.is_file()
    assert "report written to" in result.output
    assert "Table 14" in report.read_text(encoding="utf-8")
    assert not (tmp_path / "cmp.report").exists()

    # run folders (the layout of gasp run) compare the same way
    runs = []
    for i, store in enumerate(stores):
        shutil.copytree(store.with_name(store.name + ".results"), tmp_path / f"run{i}" / "results")
        runs.append(str(tmp_path / f"run{i}"))
    again = tmp_path / "again"
    result = runner.invoke(
        app, ["compare", *runs, "--out", str(again), "--label", "low", "--label", "high"]
    )
    assert result.exit_code == 0, result.output
    pd.testing.assert_frame_equal(AuditResults.load(again)["model_comparison"], comparison)
    assert (again / "report" / "report.html").is_file()
    report.unlink()
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0
    assert report.is_file()  # re-rendered where compare put it


def test_cli_analyze_missing_store(tmp_path: Path) -> None:
    from gasp.cli import app

    result = CliRunner().invoke(app, ["analyze", str(tmp_path / "nope.sqlite")])
    assert result.exit_code != 0
    assert "does not exist" in str(result.exception) + result.output


def test_estimator_twin_matches_the_function(planted: pd.DataFrame) -> None:
    from gasp.studies.more_of_the_same.analysis import RunAudit

    config = AnalysisConfig(threshold=1.0, n_bootstrap=0, n_permutations=0)
    emb = random_embeddings()
    fitted = RunAudit(config, embeddings=emb).fit(planted)
    direct = analyze_samples(planted, None, config, embeddings=emb)
    pd.testing.assert_frame_equal(fitted.results_["srb_scores"], direct["srb_scores"])
    assert set(fitted.results_.tables) == set(direct.tables)
