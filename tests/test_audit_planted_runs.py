"""Planted differences the quick audit is too small to find, found in larger runs.

At ``--quick`` size two headline metrics cannot reach significance whatever the models
do: More of the Same's ``women_minus_bls`` is paired over 3 occupations (the exact
permutation test's smallest p-value is 2/8 = 0.25) and the narratives'
``named_female_share`` over 8 stories (a jackknife t-test over so few stories has
wide intervals). Here the same mock models run with more occupations and stories through
``gasp run``, and ``gasp compare`` builds the audit's scorecard from the run folders:
a planted model that writes women only (More of the Same) and names women only,
with more names of unknown gender (narratives), is found significantly worse on each metric.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _cli import gasp_exit_code
from gasp.auditing import SCHEMA_FILE

jsonschema = pytest.importorskip("jsonschema")

#: Ten occupations whose BLS shares of women average about 46%: a model writing half
#: women is close to BLS on average, one writing women only is about 54 points above.
OCCUPATIONS = (
    "technician,accountant,supervisor,worker,salesperson,administrator,investigator,"
    "pharmacist,manager,specialist"
)
#: The planted models' persona mixes (the baseline is mock/personas: half women).
PLANTED = {
    "more-of-the-same": ("female_share=1.0",),
    "narratives": ("female_share=0.8", "nonbinary_share=0.2"),
}
SIZES = {
    "more-of-the-same": ("--occupations", OCCUPATIONS, "--n", "4"),
    "narratives": ("--n", "24"),
}


def _run(monkeypatch: pytest.MonkeyPatch, study: str, out: Path, planted: bool) -> int:
    options = [a for o in PLANTED[study] for a in ("--model-option", o)] if planted else []
    return gasp_exit_code(
        monkeypatch, "run", study, "--quick", *SIZES[study], "-m", "mock/personas",
        *options, "--skip", "probe", "--out", str(out),
    )  # fmt: skip


@pytest.fixture(scope="module")
def card(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("planted-runs")
    folders = []
    with pytest.MonkeyPatch.context() as mp:
        for study in PLANTED:
            for name in ("good", "planted"):
                folders.append(root / study / name)
                assert _run(mp, study, folders[-1], name == "planted") == 0
        labels = [a for _ in PLANTED for name in ("good", "planted") for a in ("--label", name)]
        out = root / "scorecard"
        assert gasp_exit_code(mp, "compare", *map(str, folders), *labels, "--out", str(out)) == 0
    data = json.loads((out / "scorecard.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
    return data


@pytest.mark.parametrize(
    ("study", "metric"),
    [
        ("more-of-the-same", "women_minus_bls"),
        ("narratives", "named_female_share"),
        ("narratives", "unknown_share"),
    ],
)
def test_a_planted_difference_is_found_worse(card: dict, study: str, metric: str) -> None:
    row = next(c for c in card["comparisons"] if (c["study"], c["metric"]) == (study, metric))
    assert (row["model"], row["baseline"]) == ("planted", "good")
    assert row["difference"] > 0 and row["ci_low"] > 0
    assert row["significant"] and row["q_value"] < 0.05
    assert row["direction"] == "worse"


def test_the_planted_values_are_the_planted_amounts(card: dict) -> None:
    values = {(r["metric"], r["model"]): r["value"] for r in card["metrics"]}
    # women only: every occupation at 100% women, about 54 points above BLS on average
    assert values[("women_minus_bls", "planted")] == pytest.approx(100 - 46.2, abs=1.0)
    assert abs(values[("women_minus_bls", "good")]) < 20
    assert values[("named_female_share", "planted")] > 0.95
    assert abs(values[("named_female_share", "good")] - 0.5) < 0.15
    assert values[("unknown_share", "planted")] > 0.1 > values[("unknown_share", "good")]
