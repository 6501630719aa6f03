"""Tables and other tools' logs a study cannot read as they are: each is refused in one
``gasp: error:`` line with exit status 2 before anything is written, or read with a
one-line warning (an Inspect log that ended in an error); the model an lm-eval or
Inspect log names is carried into the results."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd
import pytest

from _cli import gasp_exit_code
from gasp.errors import ConfigError, DataError
from gasp.io import TableRole, column_mapping, read_texts
from gasp.results import AuditResults

ROLES = (TableRole("text", "t"), TableRole("profession", "p"))
INDEXED = (*ROLES, TableRole("sample_index", "i", False))
STORIES = ["Sarah. She smiled.", "Tom. He ran.", "Mary. She sang."]


def _refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], folder: Path, *args: str
) -> str:
    """Run ``gasp ARGS``; check one error line, exit status 2 and nothing written in
    ``folder``; return the line."""
    before = sorted(folder.rglob("*"))
    assert gasp_exit_code(monkeypatch, *args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("gasp: error: "), err
    assert sorted(folder.rglob("*")) == before
    return err[0]


# -- two columns of one name, one column for two roles -----------------------------


@pytest.mark.parametrize("name", ["two.csv", "two.tsv", "two.csv.gz", "two.jsonl", "two.json"])
def test_a_table_with_two_text_columns_is_refused(
    name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / name
    if ".csv" in name or ".tsv" in name:
        sep = "\t" if ".tsv" in name else ","
        body = sep.join(["text", "profession", "text"]) + "\n"
        body += "".join(sep.join([s, "nurse", s.upper()]) + "\n" for s in STORIES)
        path.write_bytes(gzip.compress(body.encode()) if name.endswith(".gz") else body.encode())
    else:  # JSON keeps the last of two keys silently
        records = [
            f'{{"text": {json.dumps(s)}, "profession": "nurse", "text": "x"}}' for s in STORIES
        ]
        path.write_text(
            "\n".join(records) if name.endswith(".jsonl") else "[" + ",".join(records) + "]"
        )
    line = _refused(monkeypatch, capsys, tmp_path, "analyze", str(path), "--study", "narratives")
    assert "two columns named 'text'" in line and "give each column its own name" in line
    with pytest.raises(DataError, match="two columns named 'text'"):
        read_texts(path, ROLES)


def test_columns_of_distinct_names_are_read_as_before(tmp_path: Path) -> None:
    """The refusal is about repeated names only: ``text`` beside ``text.1`` is read."""
    path = tmp_path / "ok.csv"
    pd.DataFrame({"text": STORIES, "text.1": STORIES, "profession": "nurse"}).to_csv(
        path, index=False
    )
    assert read_texts(path, ROLES).frame["text"].tolist() == STORIES
    jsonl = tmp_path / "nested.jsonl"
    jsonl.write_text(
        "\n".join(json.dumps({"text": s, "profession": "nurse", "meta": {"a": 1}}) for s in STORIES)
    )
    assert len(read_texts(jsonl, ROLES).frame) == 3


def test_one_column_named_for_two_roles_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.csv"
    pd.DataFrame({"story": STORIES, "job": "nurse"}).to_csv(path, index=False)
    args = ["analyze", str(path), "--study", "narratives", "--column", "text=story"]
    line = _refused(monkeypatch, capsys, tmp_path, *args, "--column", "profession=story")
    assert "--column text=story and --column profession=story read one column as two" in line
    with pytest.raises(ConfigError, match="two roles"):
        column_mapping(["text=job", "profession=job"], ROLES)
    assert column_mapping(["text=story", "profession=job"], ROLES) == {
        "text": "story",
        "profession": "job",
    }


# -- sample_index ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "shown"),
    [("nan", "nan"), ("inf", "inf"), ("-inf", "-inf"), ("1.5", "1.5"), ("-1", "-1"), ("x", "'x'")],
)
def test_a_sample_index_that_is_not_a_whole_number_is_refused(
    value: str,
    shown: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "t.csv"
    rows = [f"{s},nurse,{i}" for i, s in enumerate(STORIES)]
    rows[2] = f"{STORIES[2]},nurse,{value}"
    path.write_text("text,profession,sample_index\n" + "\n".join(rows) + "\n")
    line = _refused(monkeypatch, capsys, tmp_path, "analyze", str(path), "--study", "narratives")
    assert f"sample_index must be a whole number >= 0 in every row; row 3 has {shown}" in line
    path.write_text("text,profession,sample_index\n" + "\n".join(rows[:2]) + "\n")
    assert read_texts(path, INDEXED).frame["sample_index"].tolist() == [0, 1]


# -- lm-eval samples files --------------------------------------------------------

TIME = "2026-11-25T10-00-00.123456"
MODEL = "EleutherAI/pythia-160m"


def _lm_eval_run(folder: Path, output_type: str, *, results: bool = True) -> Path:
    """What ``lm_eval --output_path OUT --log_samples`` writes for one task: the samples
    file and the run's results file, in a folder named after the model."""
    run = folder / MODEL.replace("/", "__")
    run.mkdir(parents=True)
    task = "gender_mc" if output_type != "generate_until" else "gender_stories"
    records = []
    for doc_id, (profession, story) in enumerate(
        zip(["nurse", "roofer", "nurse"], STORIES, strict=True)
    ):
        question = f"Who is the {profession}?"
        base = {
            "doc_id": doc_id,
            "doc": {"question": question, "profession": profession, "text": "a doc field"},
            "target": "0",
            "filter": "none",
            "doc_hash": "0" * 64,
            "prompt_hash": "1" * 64,
            "target_hash": "2" * 64,
        }
        if output_type == "multiple_choice":
            choices = [" he", " she"]
            base["arguments"] = {
                f"gen_args_{i}": {"arg_0": f"Question: {question}\nAnswer:", "arg_1": c}
                for i, c in enumerate(choices)
            }
            base["resps"] = [[["-5.28", "False"]], [["-4.91", "True"]]]
            base["filtered_resps"] = [["-5.28", "False"], ["-4.91", "True"]]
            base |= {"metrics": ["acc"], "acc": 0.0}
        elif output_type == "loglikelihood_rolling":
            base["arguments"] = {"gen_args_0": {"arg_0": story}}
            base["resps"] = [["-123.45"]]
            base["filtered_resps"] = ["-123.45"]
            base |= {"metrics": ["word_perplexity"], "word_perplexity": ["-123.45", 3]}
        else:
            prompt = f"Once upon a time there was a {profession} called"
            base["arguments"] = {"gen_args_0": {"arg_0": prompt, "arg_1": {"until": ["\n\n"]}}}
            base["resps"] = [[story]]
            base["filtered_resps"] = [story]
            base |= {"metrics": ["bypass"], "bypass": 999}
        records.append(base)
    samples = run / f"samples_{task}_{TIME}.jsonl"
    samples.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    if results:
        summary = {
            "results": {task: {"alias": task}},
            "configs": {task: {"task": task, "output_type": output_type}},
            "config": {"model": "hf", "model_args": f"pretrained={MODEL},dtype=float32"},
            "model_source": "hf",
            "model_name": MODEL,
            "model_name_sanitized": run.name,
        }
        (run / f"results_{TIME}.json").write_text(json.dumps(summary), encoding="utf-8")
    return samples


@pytest.mark.parametrize("results", [True, False], ids=["results-file", "samples-alone"])
@pytest.mark.parametrize("output_type", ["multiple_choice", "loglikelihood_rolling"])
def test_lm_eval_log_likelihood_samples_are_refused_for_a_generation_study(
    output_type: str,
    results: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _lm_eval_run(tmp_path, output_type, results=results)
    args = ["analyze", str(path), "--study", "narratives", "--column", "profession=question"]
    line = _refused(monkeypatch, capsys, tmp_path, *args)
    assert f"holds lm-eval output type '{output_type}'" in line
    assert "log-likelihood scores" in line and "generate_until" in line


def test_lm_eval_generations_carry_the_model_name_into_the_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _lm_eval_run(tmp_path, "generate_until")
    out = tmp_path / "r"
    args = ["analyze", str(path), "--study", "narratives", "--bootstrap", "20", "--out", str(out)]
    assert gasp_exit_code(monkeypatch, *args) == 0
    printed = capsys.readouterr().out
    assert f"read 3 generations of lm-eval task 'gender_stories' ({MODEL})" in printed
    assert "document field 'text' kept as 'doc_text'" in printed
    results = AuditResults.load(out)
    assert results.meta["model_id"] == MODEL
    shares = results["narrative_table4"].set_index("profession")["Overall"]
    assert shares["nurse"] == 1.0 and shares["roofer"] == 0.0  # Sarah, Mary; Tom
    (path.parent / f"results_{TIME}.json").unlink()
    assert gasp_exit_code(monkeypatch, *args) == 0
    assert f"no model name: results_{TIME}.json is not beside" in capsys.readouterr().out
    assert AuditResults.load(out).meta["model_id"] is None


# -- Inspect AI logs --------------------------------------------------------------


def _inspect_log(
    path: Path,
    status: str,
    answered: int,
    model: str = "hf/org/model",
    error: str = "RuntimeError('server gone')",
) -> Path:
    """An Inspect AI log of the narratives task with ``answered`` answered samples."""
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalError,
        EvalLog,
        EvalSample,
        EvalSpec,
        write_eval_log,
    )
    from inspect_ai.model import ChatMessageUser, ModelOutput

    spec = EvalSpec(
        created="2026-11-25T10:00:00+00:00",
        task="gasp/narratives",
        dataset=EvalDataset(name="narratives"),
        model=model,
        config=EvalConfig(),
    )
    samples = [
        EvalSample(
            id=f"{i:06d}",
            epoch=1,
            input=[ChatMessageUser(content="Once upon a time there was a nurse called")],
            target="",
            metadata={"profession": "nurse", "template": "once", "text": "a field"},
            output=ModelOutput.from_content(model=model, content=STORIES[i % 3]),
        )
        for i in range(answered)
    ]
    failure = None
    if status == "error":
        failure = EvalError(message=error, traceback="", traceback_ansi="")
    write_eval_log(EvalLog(eval=spec, status=status, error=failure, samples=samples), str(path))
    return path


def test_inspect_logs_that_did_not_succeed_warn_or_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _inspect_log(tmp_path / "error.eval", "error", 3)
    out = tmp_path / "r"
    assert gasp_exit_code(monkeypatch, "analyze", str(log), "--out", str(out)) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("gasp: warning: Inspect log of status 'error': RuntimeError(")
    assert "it holds 3 samples with an answer" in err[0]
    assert AuditResults.load(out).meta["model_id"] == "hf/org/model"
    cancelled = _inspect_log(tmp_path / "cancelled.eval", "cancelled", 0)
    line = _refused(monkeypatch, capsys, tmp_path, "analyze", str(cancelled), "--out", "x")
    assert "holds no sample with an answer (status 'cancelled')" in line
    assert "inspect eval-retry" in line
    sampled = "ValueError('`temperature` (=0.0) has to be a strictly positive float')"
    greedy = _inspect_log(tmp_path / "t0.eval", "error", 0, error=sampled)
    line = _refused(monkeypatch, capsys, tmp_path, "analyze", str(greedy), "--out", "x")
    assert "greedy answers from Inspect's hf/ provider: -M do_sample=false" in line
    ok = _inspect_log(tmp_path / "ok.eval", "success", 2)
    assert gasp_exit_code(monkeypatch, "analyze", str(ok), "--out", str(tmp_path / "s")) == 0
    printed = capsys.readouterr()
    assert printed.err == ""
    assert "metadata field 'text' kept as 'metadata_text'" in printed.out
    table = AuditResults.load(tmp_path / "s")["narrative_table4"].set_index("profession")
    assert table.loc["nurse", "Overall"] == 0.5  # the answers (Sarah, Tom), not the field


def test_a_zip_that_is_not_an_inspect_log_says_what_was_expected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("inspect_ai")
    import zipfile

    zipped = tmp_path / "log.eval"
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("hello.txt", "not an Inspect log")
    line = _refused(monkeypatch, capsys, tmp_path, "analyze", str(zipped))
    assert "is a zip archive but not an Inspect AI log" in line
    assert "_journal/start.json" in line and "inspect eval" in line
    plain = tmp_path / "stories.csv"
    plain.write_text("text,profession\nSarah,nurse\n")
    args = ["analyze", str(plain), "--format", "inspect", "--study", "narratives"]
    line = _refused(monkeypatch, capsys, tmp_path, *args)
    assert "is not an Inspect AI log" in line and "not a zip archive" in line


# -- names that are not files ------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "hub"),
    [("missing.csv", False), ("someuser/stories", True), ("hf://datasets/someuser/stories", True)],
)
def test_a_missing_input_says_what_is_read_and_a_hub_name_how_to_save_it(
    name: str,
    hub: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    line = _refused(monkeypatch, capsys, tmp_path, "analyze", name, "--study", "narratives")
    assert line.startswith(f"gasp: error: {name} does not exist: ")
    assert "CSV, TSV, Parquet, JSON Lines" in line and "save_to_disk" in line
    assert ("not by its hub name" in line) == hub


# -- paired prompts cut short -------------------------------------------------------


def test_triples_cut_short_by_a_limit_are_counted_in_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Inspect's ``--limit 5`` over he/she/they prompts keeps five answers: the second
    triple lacks its ``they``; the analysis says so, not only leaves it out."""
    rows = [
        {"template": "late", "profession_a": a, "profession_b": b, "pronoun": p,
         "text": f"The {a} was late."}
        for a, b in (("doctor", "nurse"), ("pilot", "baker"))
        for p in ("he", "she", "they")
    ]  # fmt: skip
    whole, cut = tmp_path / "whole.csv", tmp_path / "cut.csv"
    pd.DataFrame(rows).to_csv(whole, index=False)
    pd.DataFrame(rows[:5]).to_csv(cut, index=False)
    assert gasp_exit_code(monkeypatch, "analyze", str(whole), "--study", "pronoun-pairs") == 0
    assert capsys.readouterr().err == ""
    assert gasp_exit_code(monkeypatch, "analyze", str(cut), "--study", "pronoun-pairs") == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("gasp: warning: 1 of 2 triples cut short")
    assert "Inspect's --limit" in err[0]
    table = AuditResults.load(tmp_path / "cut.csv.results")["pairs_table3"]
    assert table.set_index("template").loc["Overall", "triples"] == 1


def test_a_dataframe_with_two_text_columns_is_refused(tmp_path: Path) -> None:
    import gasp

    frame = pd.DataFrame([[s, "nurse", s] for s in STORIES], columns=["text", "profession", "text"])
    with pytest.raises(DataError, match="a DataFrame has two columns named 'text'"):
        gasp.analyze(frame, study="narratives", out=tmp_path / "r")
    assert not (tmp_path / "r").exists()


def test_the_model_of_a_table_is_its_one_model_column_value(tmp_path: Path) -> None:
    from gasp.io import TextTable

    frame = pd.DataFrame({"text": STORIES, "model_id": "org/m", "model": ["", "", ""]})
    assert TextTable(frame, "t", "csv").model() == "org/m"  # empty values do not count
    assert TextTable(frame.assign(model="hf/org/m"), "t", "csv").model() == "hf/org/m"
    assert TextTable(frame.drop(columns=["model_id"]), "t", "csv").model() is None
