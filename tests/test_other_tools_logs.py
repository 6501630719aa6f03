"""Texts from other tools' files: lm-evaluation-harness ``samples_*.jsonl`` files
(``--log_samples``) and folders saved with Hugging Face ``datasets``, analysed by
``gasp analyze``; a missing extra is one line with its install command."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pandas as pd
import pytest

from _cli import gasp_exit_code
from gasp.errors import DataError
from gasp.io import TableRole, read_frame, read_texts
from gasp.results import AuditResults

STORIES = {
    ("nurse", "once"): ["Sarah. She smiled.", "Mary. She ran.", "Tom. He sang."],
    ("roofer", "once"): ["Tom. He climbed.", "John. He fell.", "Chris."],
}


def _write_lm_eval(folder: Path) -> Path:
    """A samples file as lm-eval writes it: one document per line, the request's
    arguments, every repeat's raw text in ``resps`` and the filtered answers."""
    path = folder / "samples_gasp_narratives_2026-11-25T10-00-00.123456.jsonl"
    lines = []
    for doc_id, ((profession, template), stories) in enumerate(STORIES.items()):
        prompt = f"Once upon a time there was a {profession} called"
        arguments: object = {"gen_args_0": {"arg_0": prompt, "arg_1": {"until": ["\n\n"]}}}
        if doc_id == 1:  # the older layout: a list of (context, generation kwargs)
            arguments = [[prompt, {"until": ["\n\n"]}]]
        lines.append(
            {
                "doc_id": doc_id,
                "doc": {"profession": profession, "template": template, "meta": {"x": 1}},
                "target": "",
                "arguments": arguments,
                "resps": [stories],
                "filtered_resps": [stories[0]],
                "filter": "none",
                "metrics": ["bypass"],
                "doc_hash": "0" * 64,
                "prompt_hash": "1" * 64,
                "target_hash": "2" * 64,
                "bypass": 999,
            }
        )
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def _shares(results: Path) -> pd.Series:
    table = AuditResults.load(results)["narrative_table4"].set_index("profession")
    return table["Overall"]


def test_an_lm_eval_samples_file_is_analysed_one_row_per_repeat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write_lm_eval(tmp_path)
    frame, fmt, notes = read_frame(path)
    assert fmt == "lm-eval" and len(frame) == 6
    assert notes == [
        "read 6 generations of lm-eval task 'gasp_narratives'",
        f"no model name: results_2026-11-25T10-00-00.123456.json is not beside {path.name}",
    ]
    assert frame["prompt"].tolist()[3] == "Once upon a time there was a roofer called"
    assert frame["sample_index"].tolist() == [0, 1, 2, 0, 1, 2]
    assert "meta" not in frame.columns  # only a document's scalar fields become columns
    args = ["analyze", str(path), "--study", "narratives", "--bootstrap", "50"]
    assert gasp_exit_code(monkeypatch, *args) == 0
    assert "read 6 generations of lm-eval task" in capsys.readouterr().out
    shares = _shares(path.with_name(path.name + ".results"))
    # Table 4's female share: 2 of 3 nurse stories, 0 of the roofer's.
    assert shares["nurse"] == pytest.approx(2 / 3) and shares["roofer"] == 0.0


def test_a_saved_datasets_folder_and_its_splits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    datasets = pytest.importorskip("datasets")
    rows = [
        {"job": p, "template": t, "story": s}
        for (p, t), stories in STORIES.items()
        for s in stories
    ]
    frame = pd.DataFrame(rows)
    folder = tmp_path / "stories"
    datasets.Dataset.from_pandas(frame).save_to_disk(str(folder))
    args = ["analyze", str(folder), "--study", "narratives", "--column", "text=story"]
    args += ["--column", "profession=job", "--bootstrap", "50", "--out", str(tmp_path / "r")]
    assert gasp_exit_code(monkeypatch, *args) == 0
    assert _shares(tmp_path / "r")["nurse"] == pytest.approx(2 / 3)
    split = tmp_path / "split"
    datasets.DatasetDict(
        {
            "train": datasets.Dataset.from_pandas(frame.iloc[:3]),
            "test": datasets.Dataset.from_pandas(frame.iloc[3:]),
        }
    ).save_to_disk(str(split))
    roles = (TableRole("text", "t"), TableRole("profession", "p"))
    texts = read_texts(split, roles, columns={"text": "story", "profession": "job"})
    assert len(texts.frame) == 6 and set(texts.frame["split"]) == {"train", "test"}
    assert texts.notes[0].startswith("read the splits train, test of")
    parquet = tmp_path / "stories.parquet"
    datasets.Dataset.from_pandas(frame).to_parquet(str(parquet))
    assert (
        len(read_texts(parquet, roles, columns={"text": "story", "profession": "job"}).frame) == 6
    )
    capsys.readouterr()


def test_a_missing_extra_is_one_line_with_its_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "saved"
    folder.mkdir()
    (folder / "dataset_info.json").write_text("{}")
    log = tmp_path / "run.eval"
    log.write_bytes(b"PK")
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name in {"datasets", "inspect_ai"} else real(name, *a),
    )
    for path, command in ((folder, "gasp[datasets]"), (log, "gasp[inspect]")):
        assert gasp_exit_code(monkeypatch, "analyze", str(path), "--study", "narratives") == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"pip install '{command}'" in err[0]


def test_format_names_what_the_name_does_not_tell(tmp_path: Path) -> None:
    path = tmp_path / "stories.txt"
    path.write_text("text,profession\nSarah. She,nurse\n")
    roles = (TableRole("text", "t"), TableRole("profession", "p"))
    with pytest.raises(DataError, match="give --format"):
        read_texts(path, roles)
    with pytest.raises(DataError, match="unknown format 'docx'"):
        read_texts(path, roles, fmt="docx")
    lm = _write_lm_eval(tmp_path).rename(tmp_path / "renamed.jsonl")
    assert read_frame(lm)[1] == "jsonl" and read_frame(lm, "lm-eval")[1] == "lm-eval"
