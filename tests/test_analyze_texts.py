"""``gasp analyze TABLE --study S``: the roles a study reads, the rows chosen, and one
note (or one refusal) per thing left out or assumed; an exported run analysed as a
table gives the run's own tables."""

from __future__ import annotations

import json
import sys
import zlib
from pathlib import Path

import pandas as pd
import pytest

from _cli import gasp_exit_code
from gasp.backends import GenerationRequest, MockBackend
from gasp.errors import ConfigError, DataError
from gasp.io import TableRole, read_texts
from gasp.results import AuditResults
from gasp.runner import RunOptions, generate
from gasp.studies import get_study_type
from gasp.studies.pronoun_pairs import PAIR_TEMPLATES

PAIRS = get_study_type("pronoun-pairs")
NARRATIVES = get_study_type("narratives")
ROLES = (TableRole("text", "t"), TableRole("group", "g"), TableRole("prompt", "p", False))


def _table(tmp_path: Path, rows: dict[str, list[object]], name: str = "t.csv") -> Path:
    path = tmp_path / name
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _assert_same_tables(a: AuditResults, b: AuditResults) -> None:
    assert sorted(a.tables) == sorted(b.tables)
    for name in a.tables:
        pd.testing.assert_frame_equal(
            a[name].reset_index(drop=True), b[name].reset_index(drop=True), check_dtype=False
        )


# -- reading: roles, rows, notes --------------------------------------------------


def test_roles_are_mapped_rows_chosen_and_every_drop_noted(tmp_path: Path) -> None:
    path = _table(
        tmp_path,
        {
            "story": ["a", "", "c", "d", None],
            "who": ["x", "y", "x", "y", "x"],
            "model": ["m1", "m1", "m1", "m2", "m1"],
        },
    )
    texts = read_texts(
        path, ROLES, columns={"text": "story", "group": "who"}, where={"model": ["m1"]}
    )
    assert texts.frame["text"].tolist() == ["a", "c"]
    assert texts.frame["group"].tolist() == ["x", "x"]
    assert texts.notes == [
        "kept 4 of 5 rows where model=m1",
        "column 'story' read as text",
        "column 'who' read as group",
        "dropped 2 rows with empty text",
    ]
    assert texts.record()["rows"] == 2


def test_several_models_refused_without_where_and_a_missing_role_named(tmp_path: Path) -> None:
    path = _table(tmp_path, {"text": ["a", "b"], "group": ["x", "y"], "model": ["m1", "m2"]})
    with pytest.raises(ConfigError, match=r"several models \('m1', 'm2'\).*--where model="):
        read_texts(path, ROLES)
    with pytest.raises(DataError, match=r"no column 'group' .*--column group=COLUMN"):
        read_texts(_table(tmp_path, {"text": ["a"]}, "u.csv"), ROLES)
    with pytest.raises(DataError, match="no row of"):
        read_texts(path, ROLES, where={"model": ["m3"]})
    with pytest.raises(DataError, match="--where colour: no such column"):
        read_texts(path, ROLES, where={"colour": ["red"]})


def _pairs_rows() -> pd.DataFrame:
    rows = []
    for template, late in (("late", "was late"), ("cake", "baked a cake")):
        for pronoun in ("he", "she", "they"):
            for a, b in (("doctor", "nurse"), ("pilot", "baker")):
                answer = f"The {(a, b, 'x')[zlib.crc32(f'{template}{pronoun}{a}'.encode()) % 3]}"
                rows.append((a, b, pronoun, template, f"{answer} {late}."))
    return pd.DataFrame(rows, columns=["a", "b", "p", "template", "answer"])


def test_excel_is_analysed_like_the_csv_of_the_same_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("openpyxl")
    rows = _pairs_rows()
    rows.to_csv(tmp_path / "t.csv", index=False)
    rows.to_excel(tmp_path / "t.xlsx", index=False)
    args = ["--study", "pronoun-pairs", "--column", "text=answer", "--column", "pronoun=p"]
    args += ["--column", "profession_a=a", "--column", "profession_b=b", "--seed", "2"]
    for name in ("t.csv", "t.xlsx"):
        out = ["--out", str(tmp_path / f"{name}.out")]
        assert gasp_exit_code(monkeypatch, "analyze", str(tmp_path / name), *args, *out) == 0
    capsys.readouterr()
    csv, excel = (AuditResults.load(tmp_path / f"t.{x}.out") for x in ("csv", "xlsx"))
    _assert_same_tables(csv, excel)
    assert excel.meta["settings"]["input"]["format"] == "excel"
    assert excel.meta["settings"]["input"]["rows"] == len(rows) == 12
    assert excel["pairs_table3"].set_index("template").loc["Overall", "triples"] == 4


def test_excel_without_openpyxl_is_one_line_with_its_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    book = tmp_path / "t.xlsx"
    book.write_bytes(b"PK")
    monkeypatch.setitem(sys.modules, "openpyxl", None)  # import openpyxl raises ImportError
    with pytest.raises(ImportError):
        import openpyxl  # noqa: F401
    assert gasp_exit_code(monkeypatch, "analyze", str(book), "--study", "narratives") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"gasp: error: reading {book} (Excel) needs openpyxl: pip install 'gasp[excel]'"]


# -- the paired pronoun test and the narratives: an exported run as a table ------------

_PROFS = ["doctor", "nurse", "pilot", "baker", "chef"]


def _pairs_answer(request: GenerationRequest) -> str:
    template, _pair, _pronoun, index = json.loads(request.key)
    scenario = request.prompt.split(".' ", 1)[1]
    spec = PAIR_TEMPLATES[template]
    pick = zlib.crc32(f"{request.key}{index}".encode()) % 3
    a, b = [w for w in _PROFS if f"{w} " in scenario or f"{w}." in scenario][:2] or ["?", "?"]
    return [f"The {a} {spec.format}.", f"The {b} {spec.format}.", "I cannot tell."][pick]


def _story(request: GenerationRequest) -> str:
    names = ["Sarah. She", "Tom. He", "Chris.", "Mary. She", "John. He"]
    return names[zlib.crc32(request.key.encode()) % len(names)]


@pytest.mark.parametrize(
    ("study", "build", "respond", "options"),
    [
        (
            PAIRS,
            {"occupations": ",".join(_PROFS), "pairs": 4, "n": 2},
            _pairs_answer,
            {"bootstrap": 200, "seed": 3},
        ),
        (
            NARRATIVES,
            {"occupations": "nurse,roofer", "templates": "once,cast", "n": 3},
            _story,
            {"bootstrap": 200, "seed": 1},
        ),
    ],
    ids=["pronoun-pairs", "narratives"],
)
def test_an_exported_run_analysed_as_a_table_gives_the_runs_tables(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    study: object,
    build: dict[str, object],
    respond: object,
    options: dict[str, object],
) -> None:
    plan = study.build(study.name, build)  # type: ignore[attr-defined]
    store = tmp_path / "run.sqlite"
    assert generate(plan, MockBackend(respond), store, RunOptions(progress=False)).complete
    study.analyze(store, tmp_path / "native", options)  # type: ignore[attr-defined]
    for suffix in (".csv", ".parquet", ".jsonl"):
        table = tmp_path / f"export{suffix}"
        assert gasp_exit_code(monkeypatch, "export", str(store), str(table)) == 0
        args = ["analyze", str(table), "--study", study.name, "--out", str(tmp_path / suffix)]  # type: ignore[attr-defined]
        args += ["--bootstrap", str(options["bootstrap"]), "--seed", str(options["seed"])]
        assert gasp_exit_code(monkeypatch, *args) == 0
        analysed = AuditResults.load(tmp_path / suffix)
        _assert_same_tables(AuditResults.load(tmp_path / "native"), analysed)
        assert analysed.meta["settings"]["input"]["rows"] == len(
            pd.read_csv(tmp_path / "export.csv")
        )


def test_a_users_pairs_table_with_its_own_names_and_no_pair_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = []
    for template in ("late", "cake"):
        for pronoun in ("he", "she", "they"):
            rows.append(("doctor", "nurse", pronoun, template, "The doctor was late."))
    path = tmp_path / "mine.csv"
    pd.DataFrame(rows, columns=["a", "b", "p", "template", "answer"]).to_csv(path, index=False)
    args = ["analyze", str(path), "--study", "pronoun-pairs", "--column", "text=answer"]
    args += ["--column", "profession_a=a", "--column", "profession_b=b", "--column", "pronoun=p"]
    assert gasp_exit_code(monkeypatch, *args) == 0
    out = capsys.readouterr().out
    assert "no pair_id column: 1 pairs numbered by their professions" in out
    assert "correct answer taken from the study" in out
    res = AuditResults.load(tmp_path / "mine.csv.results")
    assert res.meta["settings"]["input"]["notes"][0] == "column 'answer' read as text"
    table = res["pairs_table3"].set_index("template")
    assert table.loc["Overall", "triples"] == 2
    assert gasp_exit_code(monkeypatch, "analyze", str(path), "--study", "pronoun-pairs") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no column 'text'" in err[0] and "--column text=" in err[0]


def test_an_occugender_table_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _table(tmp_path, {"text": ["She is a nurse."]})
    assert gasp_exit_code(monkeypatch, "analyze", str(path), "--study", "occugender") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot analyse a table" in err[0]


# -- Marked Personas on the published GPT-3.5 personas --------------------------------


@pytest.mark.shared_data
def test_marked_personas_file_with_a_second_model_and_a_stray_label(
    shared_data: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = shared_data / "marked_personas_gpt35" / "personas.csv"
    assert (
        gasp_exit_code(
            monkeypatch,
            "analyze",
            str(source),
            "--study",
            "marked-personas",
            "--out",
            str(tmp_path / "today"),
        )
        == 0
    )
    capsys.readouterr()
    published = pd.read_csv(source)
    mine = published.rename(columns={"text": "generation", "race": "ethnicity"})
    other = mine.assign(model="gpt-4", generation=mine["generation"].str.upper())
    two = tmp_path / "two.parquet"
    pd.concat([mine, other, mine.head(1).assign(generation="")]).to_parquet(two)
    mapped = ["--study", "marked-personas", "--column", "text=generation"]
    mapped += ["--column", "race=ethnicity"]
    assert gasp_exit_code(monkeypatch, "analyze", str(two), *mapped) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "several models ('gpt-4', 'text-davinci-003')" in err[0]
    assert "--where model=" in err[0]
    out = tmp_path / "chosen"
    chosen = [*mapped, "--where", "model=text-davinci-003", "--out", str(out)]
    assert gasp_exit_code(monkeypatch, "analyze", str(two), *chosen) == 0
    printed = capsys.readouterr().out
    assert "dropped 1 rows with empty text" in printed
    assert "kept 1351 of 2701 rows where model=text-davinci-003" in printed
    _assert_same_tables(AuditResults.load(tmp_path / "today"), AuditResults.load(out))
    today = AuditResults.load(tmp_path / "today")
    acc = today["persona_svm_accuracy"]["accuracy"]
    assert acc.mean() == pytest.approx(0.92, abs=0.005)  # the paper's figure (Table A7)
    notes = AuditResults.load(out).meta["settings"]["input"]["notes"]
    assert "column 'ethnicity' read as race" in notes

    stray = mine.groupby(["ethnicity", "gender"]).head(12).reset_index(drop=True)
    stray.loc[3, "ethnicity"] = "a Latino"
    path = tmp_path / "stray.jsonl"
    stray.to_json(path, orient="records", lines=True)
    assert gasp_exit_code(monkeypatch, "analyze", str(path), *mapped) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "race labels outside the study's groups: 'a Latino' (1 row)" in err[0]
    assert "--allow-new-groups" in err[0]
    assert gasp_exit_code(monkeypatch, "analyze", str(path), *mapped, "--allow-new-groups") == 0
    assert "race labels kept as new groups: 'a Latino' (1 row)" in capsys.readouterr().out
    kept = AuditResults.load(tmp_path / "stray.jsonl.results").meta["settings"]
    assert kept["allow_new_groups"] is True and kept["input"]["rows"] == 180


def test_a_table_without_prompts_says_its_template_is_custom_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = {"text": [], "race": [], "gender": []}
    for i in range(40):
        for race in ("a White", "a Black"):
            for gender in ("M", "W"):
                rows["text"].append(f"{race} {gender} person number {i} likes tea and {race[2:]}")
                rows["race"].append(race)
                rows["gender"].append(gender)
    path = _table(tmp_path, rows)
    code = gasp_exit_code(monkeypatch, "analyze", str(path), "--study", "marked-personas")
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.count("template 'custom'") == 1
    assert "no prompt column" in out


def test_more_of_the_same_exported_and_analysed_as_a_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, table = tmp_path / "run.sqlite", tmp_path / "texts.parquet"
    args = ["generate", "more-of-the-same", "-m", "mock/personas", "--n", "4"]
    assert (
        gasp_exit_code(monkeypatch, *args, "--occupations", "nurse,pilot", "--out", str(store)) == 0
    )
    fast = ["--bootstrap", "0", "--permutations", "0"]
    assert (
        gasp_exit_code(monkeypatch, "analyze", str(store), *fast, "--out", str(tmp_path / "n")) == 0
    )
    assert gasp_exit_code(monkeypatch, "export", str(store), str(table)) == 0
    args = ["analyze", str(table), "--study", "more-of-the-same", *fast, "--min-samples", "4"]
    assert gasp_exit_code(monkeypatch, *args, "--out", str(tmp_path / "t")) == 0
    native, from_table = AuditResults.load(tmp_path / "n"), AuditResults.load(tmp_path / "t")
    _assert_same_tables(native, from_table)
    assert from_table.meta["settings"]["input"]["format"] == "parquet"
