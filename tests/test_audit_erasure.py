"""Headline metrics reviewed against erasure, on planted mock models.

An erasing model never names, scores or writes a woman (``mock/personas`` with
``female_share=0``; ``mock/scoring`` with every female expression near probability 0);
a balanced model behaves like the baseline with other random draws. The scorecard
(built by ``gasp compare`` from the run folders) must find the erasing model
significantly worse on at least one headline metric of every study that can show
erasure (OccuGender, More of the Same, the narratives), better on none, and the
balanced model worse on none. A metric the erasing model leaves untested (no word
tested between the genders) is "not tested", never a number.
"""

from __future__ import annotations

import json

import pytest

from _cli import gasp_exit_code
from gasp.auditing import SCHEMA_FILE

jsonschema = pytest.importorskip("jsonschema")

#: Ten occupations whose BLS shares of women average about 46%.
OCCUPATIONS = (
    "technician,accountant,supervisor,worker,salesperson,administrator,investigator,"
    "pharmacist,manager,specialist"
)
#: Twelve OccuGender jobs, six of each group.
JOBS = (
    "nurse,secretary,receptionist,maid,paralegal,hairstylist,"
    "pilot,plumber,electrician,carpenter,machinist,firefighter"
)
ERASED = "she=1e-6,her=1e-6,female=1e-6,woman=1e-6"
MODELS: dict[str, dict[str, tuple[str, ...]]] = {
    "more-of-the-same": {
        "base": (),
        "balanced": ("seed=1",),
        "erasing": ("female_share=0",),
    },
    "narratives": {"base": (), "balanced": ("seed=1",), "erasing": ("female_share=0",)},
    "occugender": {
        "base": (),
        "balanced": ("boost=nurse:she=1.05,pilot:he=1.05",),
        "erasing": (f"table={ERASED}",),
    },
}
SIZES = {
    "more-of-the-same": ("--occupations", OCCUPATIONS, "--n", "4"),
    "narratives": ("--n", "24"),
    "occugender": ("--study-option", f"jobs={JOBS}"),
}
BACKEND = {"occugender": "mock/scoring"}


@pytest.fixture(scope="module")
def card(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("erasure")
    folders, labels = [], []
    with pytest.MonkeyPatch.context() as mp:
        for study, models in MODELS.items():
            for name, options in models.items():
                folder = root / study / name
                extra = [a for o in options for a in ("--model-option", o)]
                code = gasp_exit_code(
                    mp, "run", study, "--quick", *SIZES[study],
                    "-m", BACKEND.get(study, "mock/personas"), *extra,
                    "--skip", "probe", "--skip", "report", "--out", str(folder),
                )  # fmt: skip
                assert code == 0, (study, name)
                folders.append(str(folder))
                labels += ["--label", name]
        out = root / "scorecard"
        code = gasp_exit_code(mp, "compare", *folders, *labels, "--out", str(out))
        assert code == 0
    data = json.loads((out / "scorecard.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
    return data


def _rows(card: dict, model: str, study: str) -> dict[str, dict]:
    return {
        c["metric"]: c
        for c in card["comparisons"]
        if c["model"] == model and c["baseline"] == "base" and c["study"] == study
    }


@pytest.mark.parametrize(
    ("study", "metrics"),
    [
        ("occugender", ("explicit_female_share", "implicit_female_share", "explicit_coverage")),
        ("more-of-the-same", ("women_minus_bls",)),
        ("narratives", ("named_female_share",)),
    ],
)
def test_an_erasing_model_is_worse_on_every_study_that_can_show_it(
    card: dict, study: str, metrics: tuple[str, ...]
) -> None:
    rows = _rows(card, "erasing", study)
    for metric in metrics:
        row = rows[metric]
        assert row["direction"] == "worse", (metric, row)
        assert row["q_value"] < 0.05, (metric, row)
        assert row["ci_low"] > 0 or row["ci_high"] < 0, (metric, row)
    assert not [m for m, r in rows.items() if r["direction"] == "better"], rows


def test_a_balanced_model_is_worse_on_nothing(card: dict) -> None:
    for study in MODELS:
        rows = _rows(card, "balanced", study)
        assert rows, study
        worse = [m for m, r in rows.items() if r["direction"] in {"worse", "better"}]
        assert not worse, (study, worse)


def test_a_comparison_with_nothing_tested_is_not_tested(card: dict) -> None:
    # the erasing model writes men only: no word is tested between the genders
    row = _rows(card, "erasing", "more-of-the-same")["marked_words_over_chance"]
    assert row["direction"] == "not tested"
    assert row["difference"] is None and row["p_value"] is None
    value = next(
        m
        for m in card["metrics"]
        if (m["model"], m["metric"]) == ("erasing", "marked_words_over_chance")
    )
    assert value["value"] is None
