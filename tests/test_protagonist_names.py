"""The protagonist's first name as a reader finds it, its gender, and why a gender is unknown."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from _narrative_openings import OPENINGS
from gasp.errors import ConfigError
from gasp.names import (
    DEFAULT_NAME_MIN_COUNT,
    first_name_gender,
    name_key,
    protagonist_name,
    protagonists,
    read_name_table,
)
from gasp.studies import get_study_type
from gasp.studies.pronoun_pairs import analyze_narrative_frame, narrative_prompt


def _openings() -> tuple[list[str], list[str]]:
    texts = [text for _, _, text, *_ in OPENINGS]
    prompts = [narrative_prompt(t, p) for t, p, *_ in OPENINGS]
    return texts, prompts


def _expected() -> list[tuple[str | None, str, str | None]]:
    return [(name, gender, reason) for *_, name, gender, reason in OPENINGS]


def _found(table: pd.DataFrame | None = None) -> list[tuple[str | None, str, str | None]]:
    texts, prompts = _openings()
    out = protagonists(texts, prompts, table=table)
    return [
        (name, gender or "U", reason)
        for name, gender, reason in zip(out["name"], out["gender"], out["reason"], strict=True)
    ]


def test_the_fixture_is_varied_enough() -> None:
    assert len(OPENINGS) >= 40
    reasons = Counter(reason for *_, reason in OPENINGS)
    assert reasons["no_name"] >= 2 and reasons["not_in_table"] >= 1 and reasons["ambiguous"] >= 1
    texts, _ = _openings()
    assert sum(t.lstrip().startswith(("#", "**", '"', "Sure", "Certainly")) for t in texts) >= 8
    assert any(any(ord(c) > 127 for c in str(name)) for *_, name, _, _ in OPENINGS)


def test_every_opening_of_the_fixture_as_a_reader_labels_it() -> None:
    found = _found()
    wrong = [
        (text[:60], got, want)
        for (_, _, text, *_), got, want in zip(OPENINGS, found, _expected(), strict=True)
        if got != want
    ]
    assert not wrong, wrong


@pytest.mark.shared_data
def test_the_uci_table_gives_the_same_answers_as_ssa(shared_data: Path) -> None:
    uci = read_name_table(shared_data / "name_gender_dataset.csv")
    names = [name for *_, name, _, _ in OPENINGS if name]
    ssa_genders = first_name_gender(names, min_count=DEFAULT_NAME_MIN_COUNT)
    uci_genders = first_name_gender(names, table=uci, min_count=DEFAULT_NAME_MIN_COUNT)
    assert uci_genders["gender"].tolist() == ssa_genders["gender"].tolist()
    assert uci_genders["reason"].tolist() == ssa_genders["reason"].tolist()
    assert _found(uci) == _expected()


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("# The Night Shift\n\nElena Vasquez had worked nights for years.", "Elena"),
        ("Her name was Isabel.", "Isabel"),
        ("She smiled. Story time was over. Morning came and Mateo woke.", "Mateo"),
        ("**Grace Under Pressure**\n\nThe ward was quiet.", None),
        ("Sure! Here's a story:\n\n**Elena's Light**\n\nElena had always...", "Elena"),
    ],
)
def test_titles_pronouns_and_common_words_are_not_names(text: str, name: str | None) -> None:
    assert protagonist_name(text) == name


def test_a_continued_opening_makes_its_first_word_the_name() -> None:
    opening = narrative_prompt("once", "nurse")
    assert protagonist_name(" Hope. She", opening) == "Hope"
    assert protagonist_name(" Will. Will was", opening) == "Will"
    assert protagonist_name(" The nurse had no name.", opening) is None
    # Without the opening, a sentence-initial common word is a word.
    assert protagonist_name("Hope was all she had left.") is None


def test_words_recorded_a_few_times_as_names_never_decide_a_gender() -> None:
    # SSA lists "The" (5 births) and "Her" (16) as names; they need the minimum count.
    assert first_name_gender(["The", "Her"], min_count=0)["gender"].tolist() == ["M", "M"]
    strict = first_name_gender(["The", "Her", "Taylor", "Elena"], min_count=100)
    assert strict["gender"].tolist() == [None, None, None, "F"]
    assert strict["reason"].tolist() == ["not_in_table", "not_in_table", "ambiguous", None]
    with pytest.raises(ConfigError):
        first_name_gender(["Elena"], min_count=-1)


def test_accents_are_folded_for_the_look_up_and_kept_in_the_tables(tmp_path: Path) -> None:
    assert [name_key(n) for n in ("Zoë", "José", "Chloé", "Søren", "Mary-Ann")] == [
        "zoe",
        "jose",
        "chloe",
        "soren",
        "maryann",
    ]
    out = first_name_gender(["Zoë", "José", "Chloé"])
    assert out["gender"].tolist() == ["F", "M", "F"]
    assert out["name"].tolist() == ["Zoë", "José", "Chloé"]
    file = tmp_path / "names.csv"
    file.write_text("Name,Gender,Count\nJosé,M,10\nJose,M,5\nZoë,F,7\n", encoding="utf-8")
    table = read_name_table(file)
    assert table.loc["jose", "total"] == 15 and table.loc["zoe", "female"] == 7


def test_the_analysis_saves_and_reports_the_unknown_share_by_reason(tmp_path: Path) -> None:
    texts, prompts = _openings()
    frame = pd.DataFrame(
        {
            "template": [t for t, *_ in OPENINGS],
            "profession": [p for _, p, *_ in OPENINGS],
            "text": texts,
            "prompt": prompts,
        }
    )
    res = analyze_narrative_frame(frame, threshold=0.9, draws=50)
    reasons = res["narrative_unknown_reasons"]
    overall = reasons[reasons["profession"] == "Overall"].set_index("reason")
    want = Counter(reason for *_, reason in OPENINGS if reason)
    for reason in ("no_name", "not_in_table", "ambiguous"):
        assert overall.loc[reason, "stories"] == want[reason]
        assert overall.loc[reason, "share"] == pytest.approx(want[reason] / len(OPENINGS))
    shares = res["narrative_shares"].set_index(["profession", "template"])
    u_share = shares.loc[("Overall", "Overall"), "unknown_share"]
    assert overall["share"].sum() == pytest.approx(u_share)
    stories = res["narrative_stories"]
    assert stories.loc[stories["name"] == "Zoë", "gender"].tolist() == ["F"]
    assert res.meta["settings"]["name_min_count"] == DEFAULT_NAME_MIN_COUNT
    assert res.examples is not None
    for reason in ("no_name", "not_in_table", "ambiguous"):
        assert res.examples["words"][f"overall · reason · {reason}"]["n"] == {"U": want[reason]}
    res.save(tmp_path / "results")
    page = get_study_type("narratives").report(tmp_path / "results", tmp_path / "report", {})
    html = page.read_text()
    assert "Unknown (U) by reason" in html and "Why a protagonist" in html
    assert "name not in the table 1.9%" in html  # 1 of 54 stories
