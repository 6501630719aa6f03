"""``results.json`` of every study validates against the published JSON Schema
(``gasp.results/1``): settings, the table list, each column's type and unit."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from _cli import gasp_exit_code
from gasp.results import RESULTS_SCHEMA, AuditResults, TableLayout, describe_columns, results_schema

jsonschema = pytest.importorskip("jsonschema")

#: Small runs: More of the Same without resampling and with GloVe for its probe.
EXTRA = {
    "more-of-the-same": ["--n", "4", "--bootstrap", "0", "--permutations", "0",
                         "--probe-embeddings", "glove"],
}  # fmt: skip
MODELS = {
    "more-of-the-same": "mock/personas",
    "marked-personas": "mock/personas",
    "occugender": "mock/scoring",
    "pronoun-pairs": "mock/echo",
    "narratives": "mock/echo",
}


def _validate(folder: Path) -> dict[str, object]:
    index = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(index, results_schema())
    return index


def test_the_schema_is_a_valid_json_schema_and_can_fail() -> None:
    schema = results_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["schema"]["const"] == RESULTS_SCHEMA
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"schema": RESULTS_SCHEMA, "tables": []}, schema)


def test_column_types_and_units() -> None:
    table = pd.DataFrame(
        {
            "word": ["a"],
            "texts": [3],
            "share": [0.5],
            "female_share_low": [0.1],
            "p_value": [0.04],
            "z_sum": [2.5],
            "mean": [1.5],
            "flag": [True],
        }
    )
    columns = describe_columns(table, TableLayout(word_columns=("word",)))
    units = {c["name"]: (c["type"], c["unit"]) for c in columns}
    assert units == {
        "word": ("string", "word"),
        "texts": ("integer", "count"),
        "share": ("number", "share"),
        "female_share_low": ("number", "share"),
        "p_value": ("number", "probability"),
        "z_sum": ("number", "z-score"),
        "mean": ("number", None),
        "flag": ("boolean", "label"),
    }
    percent = describe_columns(
        table[["share"]], TableLayout(share_columns=("share",), percent=True)
    )
    assert percent[0]["unit"] == "percent"


@pytest.mark.parametrize("study", sorted(MODELS))
def test_results_of_every_study_validate(
    study: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    args = ["run", study, "-m", MODELS[study], "--quick", "--out", str(out), *EXTRA.get(study, [])]
    assert gasp_exit_code(monkeypatch, *args) == 0
    index = _validate(out / "results")
    assert index["meta"]["study_kind"] == study  # type: ignore[index]
    results = AuditResults.load(out / "results")
    for name, table in results.tables.items():
        assert [c["name"] for c in index["columns"][name]] == list(table.columns)  # type: ignore[index]


def test_results_of_a_users_table_carry_the_input_and_validate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "stories.csv"
    pd.DataFrame(
        {"text": ["Sarah. She", "", "Tom. He"], "profession": ["nurse", "nurse", "pilot"]}
    ).to_csv(path, index=False)
    assert gasp_exit_code(monkeypatch, "analyze", str(path), "--study", "narratives") == 0
    index = _validate(tmp_path / "stories.csv.results")
    record = index["meta"]["settings"]["input"]  # type: ignore[index]
    assert record["rows"] == 2 and "dropped 1 rows with empty text" in record["notes"]
