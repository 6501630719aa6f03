"""Validation of the Gender Association Method (Table 1 of seed 000)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gasp.associate import validate_association
from gasp.errors import DataError


def test_rates_and_confusion_by_hand() -> None:
    texts = [
        "She said her work was done.",  # F, correct
        "She smiled.",  # F, correct
        "He waved at her and she left.",  # named F, associated F (2 > 1)
        "The engineer wrote code.",  # named F, unassigned
        "He and his dog.",  # M, correct
        "She ran home.",  # named M, associated F: incorrect
        "They are nonbinary and use their own words.",  # N, correct
        "They said he was late.",  # named N, no cue: M (1 > 0 + ... ) -> incorrect
    ]
    named = ["F", "F", "F", "F", "M", "M", "N", "N"]
    result = validate_association(texts, named)
    assert result.confusion.to_dict(orient="index") == {
        "F": {"F": 3, "M": 0, "N": 0, "unassigned": 1},
        "M": {"F": 1, "M": 1, "N": 0, "unassigned": 0},
        "N": {"F": 0, "M": 1, "N": 1, "unassigned": 0},
    }
    rates = result.rates
    assert rates.loc["F", "n"] == 4
    assert rates.loc["F", "correct"] == 0.75
    assert rates.loc["F", "incorrect"] == 0.0
    assert rates.loc["F", "unassigned"] == 0.25
    assert rates.loc["F", "correct_among_assigned"] == 1.0
    assert rates.loc["M", "correct"] == 0.5
    assert rates.loc["M", "incorrect"] == 0.5
    assert rates.loc["N", "correct_among_assigned"] == 0.5
    assert rates[["correct", "incorrect", "unassigned"]].to_dict(orient="index") == {
        "F": {"correct": 0.75, "incorrect": 0.0, "unassigned": 0.25},
        "M": {"correct": 0.5, "incorrect": 0.5, "unassigned": 0.0},
        "N": {"correct": 0.5, "incorrect": 0.5, "unassigned": 0.0},
    }
    assert result.accuracy == 5 / 8
    assert result.association.table["gender"].tolist()[:4] == ["F", "F", "F", None]


def test_genders_absent_from_the_input_have_no_row() -> None:
    result = validate_association(["nothing here"], ["M"])
    assert result.rates.index.tolist() == ["M"]
    assert result.rates.loc["M", "unassigned"] == 1.0
    assert np.isnan(result.rates.loc["M", "correct_among_assigned"])


def test_bad_input() -> None:
    with pytest.raises(DataError, match="one gender per text"):
        validate_association(["a", "b"], ["F"])
    with pytest.raises(DataError, match="no texts"):
        validate_association([], [])
    with pytest.raises(DataError, match="F, M or N"):
        validate_association(["she"], ["W"])


# Prompts that name the gender and ask for a third-person description (Table A9 of seed 004,
# the prompts 2, 5 and 6; and the two story prompts of Table A14). First-person prompts
# ("Imagine you are ...", "... from the first-person perspective") are left out.
THIRD_PERSON = (
    r"^(?:Describe (?:a|an) [\w-]+ (?:man|woman|nonbinary person)\.$|Imagine (?!you)|Write a story)"
)
NAMED = {"W": "F", "M": "M", "N": "N"}


def _third_person(path: Path) -> pd.DataFrame:
    table = pd.read_csv(path)
    return table[table["prompt"].str.contains(THIRD_PERSON, regex=True)]


@pytest.mark.shared_data
def test_on_marked_personas_third_person_texts(shared_data: Path) -> None:
    folder = shared_data / "marked_personas_gpt35"
    personas = _third_person(folder / "personas.csv")
    stories = _third_person(folder / "stories.csv")
    assert len(personas) == 675  # 3 of the 6 persona prompts x 15 groups x 15 samples
    assert len(stories) == 449  # every story prompt is third person
    both = pd.concat([personas, stories])
    result = validate_association(both["text"].tolist(), both["gender"].map(NAMED).tolist())
    rates = result.rates
    # Women and men: practically every assigned text gets the named gender, few are dropped.
    for gender in ("F", "M"):
        assert rates.loc[gender, "correct_among_assigned"] >= 0.99
        assert rates.loc[gender, "correct"] >= 0.95
        assert rates.loc[gender, "unassigned"] <= 0.05
    # Nonbinary people: texts often lack "nonbinary"/"they/them" or use few neutral pronouns
    # (a third of the personas is unassigned), and some stories switch to she/he.
    assert rates.loc["N", "correct_among_assigned"] >= 0.85
    assert rates.loc["N", "correct"] >= 0.6
    assert rates.loc["N", "unassigned"] <= 0.3
