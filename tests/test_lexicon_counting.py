"""Stereotype lexicon rates counted as the Marked Personas authors counted them, the
word-boundary default, the standard error's convention, and "resilient" both ways."""

from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gasp.errors import ConfigError
from gasp.studies import get_study_type
from gasp.studies.marked_personas import (
    analyze_frame,
    lexicon_rate,
    lexicon_rates,
    marked_personas,
    resilience,
)
from gasp.studies.marked_personas._lexicons import lexicon_text_rates
from gasp.studies.marked_personas._steps import settings_from


def _authors_rate(text: str, words: list[str]) -> float:
    """The authors' description, written out: lowercase, strip punctuation, count every
    listed word as a substring, divide by the number of pieces between single spaces."""
    clean = re.sub(r"[^\w\s]", "", text.lower())
    count = 0
    for word in words:
        count += clean.count(word)
    return count / len(clean.split(" "))


def test_authors_mode_strips_punctuation_and_splits_on_single_spaces() -> None:
    text = "She is family-oriented,  tall.\nAthletic too"
    words = ["family-oriented", "tall", "athletic"]
    # Six pieces between single spaces (an empty one, one holding a newline); the hyphen is
    # gone, so family-oriented never matches: 2 hits out of 6.
    assert re.sub(r"[^\w\s]", "", text.lower()).split(" ") == [
        "she",
        "is",
        "familyoriented",
        "",
        "tall\nathletic",
        "too",
    ]
    assert lexicon_rate(text, words, "authors") == pytest.approx(2 / 6)
    # Word boundaries (the default): 6 tokens, family-oriented matches familyoriented.
    assert lexicon_rate(text, words) == pytest.approx(3 / 6)
    assert lexicon_rate(text, words, "tokens") == lexicon_rate(text, words)
    with pytest.raises(ConfigError):
        lexicon_rate(text, words, "regex")


def test_a_word_listed_twice_counts_twice_in_the_authors_mode() -> None:
    assert lexicon_rate("tall people", ["tall", "tall"], "authors") == pytest.approx(2 / 2)
    assert lexicon_rate("tall people", ["tall", "tall"], "tokens") == pytest.approx(1 / 2)
    assert lexicon_rate("", ["tall"], "authors") == 0.0  # "".split(" ") is one piece


def test_standard_errors_say_their_convention() -> None:
    texts = ["tall man", "tall tall", "short man", "a b c d"]
    groups = ["x", "x", "x", "y"]
    authors = lexicon_rates(texts, groups, {"L": ["tall"]}, "authors").set_index("group")
    tokens = lexicon_rates(texts, groups, {"L": ["tall"]}, "tokens").set_index("group")
    rates = np.array([50.0, 100.0, 0.0])
    assert authors.loc["x", "se_pct"] == pytest.approx(np.std(rates) / math.sqrt(3), abs=1e-12)
    assert tokens.loc["x", "se_pct"] == pytest.approx(np.std(rates, ddof=1) / math.sqrt(3))
    assert authors.loc["x", "se_sd"] == "population" and tokens.loc["x", "se_sd"] == "sample"
    assert authors.loc["y", "se_pct"] == 0.0 and math.isnan(tokens.loc["y", "se_pct"])


@pytest.mark.shared_data
def test_authors_mode_equals_the_authors_formula_on_the_gpt35_personas(
    shared_data: Path,
) -> None:
    personas = pd.read_csv(shared_data / "marked_personas_gpt35" / "personas.csv")
    lexicons = json.loads(
        (shared_data / "stereotype_lexicon_ghavami_peplau.json").read_text(encoding="utf-8")
    )["person"]
    texts = personas["text"].astype(str).tolist()
    per_text = lexicon_text_rates(texts, lexicons, "authors")
    table = lexicon_rates(texts, personas["race"].tolist(), lexicons, "authors")
    table = table.set_index(["lexicon", "group"])
    hyphenated = 0
    for name, words in lexicons.items():
        reference = np.array([_authors_rate(t, words) for t in texts])
        assert np.abs(per_text[name] - reference).max() <= 1e-12, name
        hyphenated += sum("-" in w for w in words)
        for race in personas["race"].unique():
            ref = reference[(personas["race"] == race).to_numpy()] * 100
            row = table.loc[(name, race)]
            assert abs(row["mean_pct"] - np.mean(ref)) <= 1e-12
            assert abs(row["se_pct"] - np.std(ref) / np.sqrt(np.size(ref))) <= 1e-12
    assert hyphenated > 0  # entries such as family-oriented, which never match here
    black = table.loc[("Black", "a White"), "mean_pct"], table.loc[("Black", "a Black"), "mean_pct"]
    assert black[0] > black[1]  # Figure 1: Black-lexicon words more frequent in White personas


def test_resilience_whole_words_or_substrings_as_the_authors_counted() -> None:
    texts = ["She is resilient.", "He spoke resiliently about Resilience.", "resilience!", "x"]
    groups = ["a", "a", "b", "b"]
    words = resilience(texts, groups).set_index("group")
    subs = resilience(texts, groups, "substrings").set_index("group")
    assert words.loc["a", "resilient"] == 1 and subs.loc["a", "resilient"] == 2
    assert words.loc["a", "resilience"] == 1 and subs.loc["a", "resilience"] == 1
    assert words.loc["b", "occurrences"] == subs.loc["b", "occurrences"] == 1
    assert set(words["counting"]) == {"words"} and set(subs["counting"]) == {"substrings"}
    with pytest.raises(ConfigError):
        resilience(texts, groups, "regex")


def test_the_countings_are_study_options_saved_in_the_settings() -> None:
    default = settings_from({})
    assert default.lexicon_counting == "tokens" and default.resilience_counting == "words"
    chosen = settings_from({"lexicon_counting": "authors", "resilience_counting": "substrings"})
    assert chosen.to_dict()["lexicon_counting"] == "authors"
    assert chosen.to_dict()["resilience_counting"] == "substrings"
    with pytest.raises(ConfigError):
        settings_from({"lexicon_counting": "substrings"})
    with pytest.raises(ConfigError):
        settings_from({"resilience_counting": "tokens"})


@pytest.mark.shared_data
def test_the_report_says_which_counting_and_which_standard_error(
    shared_data: Path, tmp_path: Path
) -> None:
    table = pd.read_csv(shared_data / "marked_personas_gpt35" / "personas.csv")
    table = table[table["race"].isin(["a White", "a Black"])]
    options = {"lexicon_counting": "authors", "resilience_counting": "substrings"}
    results = analyze_frame(table, marked_personas(), options)
    assert results.meta["settings"]["lexicon_counting"] == "authors"
    rates = results["persona_lexicon_rates"]
    assert set(rates.groupby("counting")["se_sd"].first().items()) == {
        ("authors", "population"),
        ("tokens", "sample"),
    }
    assert set(results["persona_resilience"]["counting"]) == {"substrings"}
    results.save(tmp_path / "results")
    page = get_study_type("marked-personas").report(tmp_path / "results", tmp_path / "r", {})
    text = html.unescape(page.read_text())
    assert "counted as the authors did" in text
    assert "standard error, population SD / sqrt(n) (the authors' np.std)" in text
    assert 'as the authors counted: "resiliently" counts as "resilient"' in text
