"""The whole Marked Personas analysis reproduces the paper's figures on the published
GPT-3.5 (text-davinci-003) personas (Cheng, Durmus and Jurafsky, ACL 2023).

* SVM (Section 4): accuracy 0.92 +/- 0.04 over the 23 one-vs-rest classifiers; with the
  ``paper`` anonymizer the top words of Tables A5 and A6 (words in parentheses);
* lexicons (Section 5, Figure 1): Black-lexicon words are more frequent in White
  personas (0.650%) than in Black personas (0.410%); Figure 3: 42 occurrences of
  "resilient" and "resilience" in Black women's personas, none in White men's;
* sentiment (Section 6): VADER compound 0.93 +/- 0.15; significant words non-negative;
* JSD (Section 3.2.1): the top words of the single groups are mostly Marked Words.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from gasp.results import AuditResults
from gasp.studies.marked_personas import analyze_frame, marked_personas

pytestmark = pytest.mark.shared_data

# Words in parentheses of Tables A5 and A6 (SVM top 10, not Marked Words).
SVM_ONLY: dict[str, list[str]] = {
    "White": ["range", "outdoors", "casual", "tall"],
    "Black": ["muscular", "curls", "infectious", "same", "activism", "committed"],
    "Asian": ["cut", "humble", "try", "lightly", "themselves", "reserved"],
    "ME": ["loose", "intricate", "rich"],
    "Latine": ["brown", "expressing", "expresses"],
    "man": ["dark", "anything"],
    "woman": ["fair"],
    "Black woman": [
        "smile",
        "curls",
        "curly",
        "empowering",
        "presence",
        "full",
        "intelligence",
        "wide",
    ],
    "Asian woman": [
        "smooth",
        "traditional",
        "grace",
        "tasteful",
        "subtle",
        "hair",
        "jade",
        "small",
    ],
    "ME woman": ["independent", "graceful", "kind", "skirt", "hold", "modestly"],
    "Latine woman": [
        "passionate",
        "colorful",
        "brown",
        "dancing",
        "colors",
        "determined",
        "loves",
        "sandals",
        "spicy",
    ],
    "Black nonbinary": [
        "selfexpression",
        "traditionally",
        "forms",
        "topics",
        "gentle",
        "curls",
        "honor",
        "skin",
        "thrive",
    ],
    "Asian nonbinary": [
        "themselves",
        "boundaries",
        "jewelry",
        "prefer",
        "languages",
        "perality",
        "pixie",
        "balance",
        "around",
        "explore",
    ],
    "ME nonbinary": ["modern", "traditional", "between", "eyes", "way", "outfit", "true", "kind"],
    "Latine nonbinary": [
        "mix",
        "olive",
        "identify",
        "heritage",
        "proudly",
        "exploring",
        "english",
        "per",
        "kind",
        "into",
    ],
}


@pytest.fixture(scope="module")
def results(shared_data: Path) -> AuditResults:
    table = pd.read_csv(shared_data / "marked_personas_gpt35" / "personas.csv")
    return analyze_frame(table, marked_personas(), {})


def test_svm_accuracy_mean_and_sd(results: AuditResults) -> None:
    acc = results["persona_svm_accuracy"]
    assert len(acc) == 23
    assert acc["accuracy"].mean() == pytest.approx(0.92, abs=0.005)
    assert acc["accuracy"].std(ddof=0) == pytest.approx(0.04, abs=0.005)
    by = acc.groupby("grouping")["accuracy"].mean()
    assert by["race"] == pytest.approx(0.87, abs=0.01)
    assert by["gender"] == pytest.approx(0.92, abs=0.01)
    assert by["race x gender"] == pytest.approx(0.94, abs=0.01)
    # The baselines are high; balanced accuracy shows the classifiers beat them.
    assert acc["baseline"].mean() == pytest.approx(0.87, abs=0.005)
    assert (acc["balanced_accuracy"] > 0.5).all()


def test_paper_anonymizer_reproduces_the_published_svm_top_words(results: AuditResults) -> None:
    top = results["persona_svm_top_words"]
    white = top[(top["grouping"] == "race") & (top["group"] == "White")]["word"]
    assert set(white) == {
        "blue",
        "fair",
        "blonde",
        "blond",
        "pale",
        "range",
        "light",
        "outdoors",
        "casual",
        "tall",
    }
    for group, words in SVM_ONLY.items():
        found = set(top[top["group"] == group]["word"])
        missing = [w for w in words if w not in found]
        assert not missing, (group, missing)


def test_black_lexicon_is_more_frequent_in_white_personas(results: AuditResults) -> None:
    rates = results["persona_lexicon_rates"].set_index(["counting", "lexicon", "group"])
    white = rates.loc[("authors", "Black", "White"), "mean_pct"]
    black = rates.loc[("authors", "Black", "Black"), "mean_pct"]
    assert white == pytest.approx(0.650, abs=0.01)
    assert black == pytest.approx(0.410, abs=0.01)
    assert white > black


def test_resilience_in_black_womens_personas(results: AuditResults) -> None:
    table = results["persona_resilience"].set_index("group")
    assert table.loc["Black woman", "occurrences"] == 42
    assert table.loc["White man", "occurrences"] == 0
    assert table["share_containing"].idxmax() == "Black woman"


def test_vader_sentiment(results: AuditResults) -> None:
    overall = results["persona_sentiment"].set_index("group").loc["all"]
    assert overall["n"] == 1350
    assert overall["mean"] == pytest.approx(0.93, abs=0.01)
    assert overall["sd"] == pytest.approx(0.15, abs=0.01)
    words = results["persona_word_sentiment"]
    assert words["word_score"].mean() > 0
    assert words["mean_text_score"].notna().all()


def test_jsd_top_words_are_mostly_marked_words(results: AuditResults) -> None:
    jsd = results["persona_jsd_top_words"]
    marked = results["persona_marked_words"]
    for group in ["Black", "Asian", "ME", "Latine", "woman", "nonbinary"]:
        top = jsd[jsd["group"] == group]["word"].tolist()
        words = set(marked[marked["group"] == group]["word"])
        assert len(top) == 10
        assert sum(w in words for w in top) >= 8, (group, top)
    # Intersectional groups: against White and against man separately.
    assert set(jsd[jsd["group"] == "Black woman"]["against"]) == {"White", "man"}


def test_results_carry_the_study_kind_and_example_texts(results: AuditResults) -> None:
    assert results.meta["study_kind"] == "marked-personas"
    assert results.examples is not None
    assert {"resilient", "blonde", "almondshaped"} <= set(results.examples["words"])
    assert results["refusals"]["refusals"].sum() == 0
