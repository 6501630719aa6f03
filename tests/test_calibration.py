"""The calibration of Calibrated Marked Words (seed 000 Appendix A.2) and ``gasp calibrate``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from gasp.cli import app
from gasp.errors import ConfigError, DataError
from gasp.stats import (
    DEFAULT_ALPHA,
    DEFAULT_C_ENGLISH,
    DEFAULT_C_TOPIC,
    IDENTITY_WORDS,
    CalibratedConfig,
    Comparison,
    calibrate,
    calibrated_marked_words_many,
    common_english_words,
)
from gasp.text import count_words


def _synthetic(seed: int = 0) -> tuple[pd.DataFrame, list[str]]:
    """Two groups; group "a" uses "the" and "very" more often, plus its own topic words."""
    rng = np.random.default_rng(seed)
    base = [
        "the",
        "of",
        "and",
        "to",
        "in",
        "is",
        "that",
        "for",
        "it",
        "with",
        "on",
        "was",
        "person",
        "works",
        "at",
        "office",
    ]
    own = {"a": ["garden", "violin", "poetry"], "b": ["hockey", "engine", "fishing"]}
    texts, groups = [], []
    for group in ("a", "b"):
        for _ in range(150):
            words = list(rng.choice(base, size=25))
            words += list(rng.choice(own[group], size=3))
            if group == "a":
                words += ["the"] * int(rng.integers(1, 5)) + ["very"] * int(rng.integers(0, 3))
            texts.append(" ".join(words))
            groups.append(group)
    return pd.DataFrame({"text": texts, "group": groups}), base


def _marked(table_list: list[pd.DataFrame]) -> set[str]:
    return {w for t in table_list for w in t.loc[t["significant"], "word"]}


def test_binary_search_finds_the_largest_c_without_common_words() -> None:
    df, _ = _synthetic()
    counts = count_words(df["text"])
    a = (df["group"] == "a").to_numpy()
    comparisons = [Comparison(target=a, unmarked={"b": ~a}), Comparison(~a, {"a": a})]
    report = calibrate(counts, comparisons, n_common=100, rtol=0.01)
    assert report.english_feasible and report.topic_feasible
    common = report.common_words
    assert "the" in common and "very" not in common  # "very" ranks below 100 in wordfreq
    assert not common & IDENTITY_WORDS
    for alpha, c in ((0.0, report.c_english), (1.0, report.c_topic)):
        at = CalibratedConfig(alpha=alpha, c_topic=c, c_english=c)
        above = CalibratedConfig(alpha=alpha, c_topic=c * 1.03, c_english=c * 1.03)
        assert not _marked(calibrated_marked_words_many(counts, comparisons, config=at)) & common
        assert _marked(calibrated_marked_words_many(counts, comparisons, config=above)) & common
    # each search step is recorded; the accepted value is the largest admissible step
    steps = report.english_search
    admissible = steps.loc[steps["n_common"] == 0, "c"]
    assert report.c_english == pytest.approx(admissible.max())
    assert steps.loc[steps["c"] > report.c_english, "n_common"].gt(0).all()


def test_alpha_sweep_has_21_steps_and_uses_the_mixed_constant() -> None:
    df, _ = _synthetic(1)
    counts = count_words(df["text"])
    a = (df["group"] == "a").to_numpy()
    report = calibrate(counts, [Comparison(target=a, unmarked={"b": ~a})])
    sweep = report.alpha_sweep
    np.testing.assert_allclose(sweep["alpha"], np.round(np.arange(21) * 0.05, 10))
    expected_c = sweep["alpha"] * report.c_topic + (1 - sweep["alpha"]) * report.c_english
    np.testing.assert_allclose(sweep["c"], expected_c)
    assert sweep["n_marked"].ge(sweep["n_distinct"]).all()
    assert report.config.c_english == report.c_english
    assert report.config.c_topic == report.c_topic
    # both searches accepted their constant, so the sweep's endpoints (alpha 0 with
    # C_English, alpha 1 with C_topic) mark no common word
    assert report.english_feasible and report.topic_feasible
    assert {0.0, 1.0} <= set(report.admissible_alphas())


def test_infeasible_and_unbounded_ranges_are_flagged() -> None:
    df, _ = _synthetic(2)
    counts = count_words(df["text"])
    a = (df["group"] == "a").to_numpy()
    comp = [Comparison(target=a, unmarked={"b": ~a})]
    # with no common words at all, the search stops at the top of the range
    none_common = calibrate(counts, comp, n_common=0, c_range=(0.01, 50.0))
    assert none_common.c_english == 50.0 and none_common.english_feasible
    # "the" is marked already at the smallest C of a range of strong effects
    tiny = calibrate(counts, comp, c_range=(100.0, 1000.0))
    assert not tiny.english_feasible and tiny.c_english == 100.0
    with pytest.raises(ConfigError):
        calibrate(counts, comp, c_range=(1.0, 0.5))
    with pytest.raises(ConfigError):
        calibrate(counts, [])


@pytest.mark.shared_data
def test_defaults_come_from_calibrating_the_marked_personas(shared_data: Path) -> None:
    df = pd.read_csv(shared_data / "marked_personas_gpt35" / "personas.csv")
    counts = count_words(df["text"])
    white = (df["race"] == "a White").to_numpy()
    men = (df["gender"] == "M").to_numpy()
    comparisons = [
        Comparison(target=((df["race"] == r) & (df["gender"] == g)).to_numpy(),
                   unmarked={"a White": white, "M": men})
        for r, g in sorted(set(zip(df["race"], df["gender"], strict=True)))
    ]  # fmt: skip
    report = calibrate(counts, comparisons)
    assert report.english_feasible and report.topic_feasible
    assert DEFAULT_C_ENGLISH <= report.c_english < 1.1 * DEFAULT_C_ENGLISH
    assert DEFAULT_C_TOPIC <= report.c_topic < 1.1 * DEFAULT_C_TOPIC
    assert DEFAULT_ALPHA in report.admissible_alphas()
    # the defaults mark no common word and many others; Marked Words' "the" is not marked
    tables = calibrated_marked_words_many(counts, comparisons)
    marked = _marked(tables)
    assert not marked & report.common_words
    assert len(marked) > 200
    assert common_english_words(100) - IDENTITY_WORDS == report.common_words


def test_cli_calibrate_prints_the_search_and_writes_tables(tmp_path: Path) -> None:
    df, _ = _synthetic(3)
    path = tmp_path / "gen.csv"
    df.to_csv(path, index=False)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["calibrate", str(path), "--target", "group=a", "--unmarked", "group=b",
         "--output", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "alpha sweep" in result.output and "C_English =" in result.output
    sweep = pd.read_csv(out / "alpha_sweep.csv")
    assert len(sweep) == 21
    constants = pd.read_csv(out / "constants.csv")
    assert set(constants["parameter"]) == {"c_english", "c_topic"}
    each = CliRunner().invoke(app, ["calibrate", str(path), "--each", "group",
                                    "--unmarked", "group=b"])  # fmt: skip
    assert each.exit_code == 0, each.output


def test_cli_calibrate_reports_user_errors(tmp_path: Path) -> None:
    df, _ = _synthetic(4)
    path = tmp_path / "gen.csv"
    df.to_csv(path, index=False)
    runner = CliRunner()
    bad_value = runner.invoke(app, ["calibrate", str(path), "--target", "group=zz",
                                    "--unmarked", "group=b"])  # fmt: skip
    assert isinstance(bad_value.exception, DataError)
    no_target = runner.invoke(app, ["calibrate", str(path), "--unmarked", "group=b"])
    assert isinstance(no_target.exception, DataError)
    missing = runner.invoke(app, ["calibrate", str(tmp_path / "nope.csv"),
                                  "--target", "group=a", "--unmarked", "group=b"])  # fmt: skip
    assert isinstance(missing.exception, DataError)
