"""Who is represented: shares, standard errors, deciles, capture rate and Table 1 by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from gasp.errors import DataError
from gasp.studies.more_of_the_same.analysis import AnalysisConfig
from gasp.studies.more_of_the_same.analysis._prepare import BLSFigure, prepare_run
from gasp.studies.more_of_the_same.analysis._representation import (
    association_accuracy_table,
    capture_rate_table,
    decile_table,
    representation_table,
)


def _row(template: str, condition: str, text: str, error: str | None = None) -> dict[str, object]:
    named = {"unspecified": None, "woman": "F", "man": "M", "nonbinary": "N"}[condition]
    return {
        "subject": "nurse",
        "template": template,
        "condition": condition,
        "named_gender": named,
        "text": text,
        "error": error,
        "model_id": "mock/test",
    }


@pytest.fixture()
def tiny() -> pd.DataFrame:
    rows = [
        *[_row("persona", "unspecified", "She is kind.") for _ in range(3)],
        _row("persona", "unspecified", "He is tall."),
        _row("persona", "unspecified", "", error="timeout"),
        _row("biography", "unspecified", "She works."),
        _row("biography", "unspecified", "It works."),
        _row("persona", "woman", "She is."),
        _row("persona", "woman", "He is."),
        _row("persona", "man", "He is."),
        _row("persona", "nonbinary", "They/them: they and their dog."),
        _row("persona", "nonbinary", "Nothing here."),
    ]
    return pd.DataFrame(rows)


def _prepared(tiny: pd.DataFrame):  # type: ignore[no-untyped-def]
    return prepare_run(tiny, bls={"nurse": BLSFigure(87.9, 2023)})


def test_shares_and_standard_errors_by_hand(tiny: pd.DataFrame) -> None:
    rep = representation_table(_prepared(tiny)).set_index("template")
    persona = rep.loc["persona"]
    assert persona["n_generations"] == 4
    assert persona["n_invalid"] == 1
    assert (persona["n_F"], persona["n_M"], persona["n_N"], persona["n_unassigned"]) == (3, 1, 0, 0)
    assert persona["share_F"] == pytest.approx(0.75)
    assert persona["se_F"] == pytest.approx(math.sqrt(0.75 * 0.25 / 4))
    bio = rep.loc["biography"]
    assert bio["share_unassigned"] == pytest.approx(0.5)
    assert bio["se_F"] == pytest.approx(math.sqrt(0.25 / 2))
    pooled = rep.loc["all"]
    # Figure 2 averages the templates: (0.75 + 0.5) / 2.
    assert pooled["share_F"] == pytest.approx(0.625)
    assert pooled["se_F"] == pytest.approx(math.sqrt(0.75 * 0.25 / 4 + 0.25 / 2) / 2)
    assert pooled["n_F"] == 4
    assert pooled["n_generations"] == 6
    assert pooled["n_invalid"] == 1
    assert pooled["share_unassigned"] == pytest.approx(0.25)
    shares = [pooled[f"share_{g}"] for g in ("F", "M", "N", "unassigned")]
    assert sum(shares) == pytest.approx(1.0)
    assert pooled["bls_group"] == "female-dominated"
    assert pooled["pct_female_minus_bls"] == pytest.approx(62.5 - 87.9)
    assert pooled["share_F_of_assigned"] == pytest.approx((0.75 + 1.0) / 2)


def test_deciles_count_subjects_per_bin(tiny: pd.DataFrame) -> None:
    rep = representation_table(_prepared(tiny))
    dec = decile_table(rep, AnalysisConfig())
    fig2 = dec[(dec["measure"] == "female") & (dec["template"] == "all")]
    female_dom = fig2[fig2["bls_group"] == "female-dominated"]
    assert female_dom["n_subjects"].sum() == 1
    assert female_dom.loc[female_dom["n_subjects"] == 1, "bin_label"].item() == "60-70"
    assert fig2[fig2["bls_group"] == "male-dominated"].empty
    nb = dec[(dec["measure"] == "nonbinary") & (dec["template"] == "all")]
    assert nb.loc[nb["n_subjects"] == 1, "bin_label"].item() == "0-10"
    per_template = dec[(dec["measure"] == "female") & (dec["template"] == "persona")]
    assert per_template.loc[per_template["n_subjects"] > 0, "bin_label"].unique().tolist() == [
        "70-80"
    ]


def test_hundred_percent_falls_in_last_bin() -> None:
    rep = pd.DataFrame(
        {
            "template": ["all", "all"],
            "share_F": [1.0, 0.0],
            "share_N": [0.0, 0.0],
            "bls_group": ["male-dominated", "male-dominated"],
        }
    )
    dec = decile_table(rep, AnalysisConfig())
    male = dec[(dec["measure"] == "female") & (dec["bls_group"] == "male-dominated")]
    assert male.set_index("bin_label").loc["90-100", "n_subjects"] == 1
    assert male.set_index("bin_label").loc["0-10", "n_subjects"] == 1


def test_capture_rate_by_hand(tiny: pd.DataFrame) -> None:
    cap = capture_rate_table(_prepared(tiny)).set_index(["condition", "template"])
    assert cap.loc[("unspecified", "persona"), "capture_rate"] == 1.0
    assert cap.loc[("unspecified", "persona"), "n_invalid"] == 1
    assert cap.loc[("unspecified", "biography"), "capture_rate"] == 0.5
    row = cap.loc[("unspecified", "all")]
    assert row["capture_rate"] == pytest.approx(5 / 6)
    assert row["unassigned_share"] == pytest.approx(1 / 6)
    assert row["se"] == pytest.approx(math.sqrt(5 / 6 * 1 / 6 / 6))


def test_association_accuracy_confusion_matrix(tiny: pd.DataFrame) -> None:
    acc = association_accuracy_table(_prepared(tiny))
    acc = acc[acc["template"] == "all"].set_index("named_gender")
    assert acc.loc["F", "correct_pct"] == 50.0
    assert acc.loc["F", "incorrect_pct"] == 50.0
    assert acc.loc["M", "correct_pct"] == 100.0
    assert acc.loc["N", "n_N"] == 1
    assert acc.loc["N", "unassigned_pct"] == 50.0
    assert np.allclose(acc[["correct_pct", "incorrect_pct", "unassigned_pct"]].sum(axis=1), 100.0)


def test_unknown_condition_is_a_data_error(tiny: pd.DataFrame) -> None:
    bad = tiny.drop(columns="named_gender").assign(condition="robot")
    with pytest.raises(DataError, match="unknown condition"):
        prepare_run(bad)
    with pytest.raises(DataError, match="unknown named_gender"):
        prepare_run(tiny.assign(named_gender="X"))


def test_conditions_map_to_genders_without_named_gender(tiny: pd.DataFrame) -> None:
    run = prepare_run(tiny.drop(columns="named_gender"))
    assert sorted(set(run.named)) == ["", "F", "M", "N"]
    assert run.unspecified.sum() == 6


def test_missing_columns_is_a_data_error() -> None:
    with pytest.raises(DataError, match="lacks the column"):
        prepare_run(pd.DataFrame({"text": ["she"]}))
