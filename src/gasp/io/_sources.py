"""Texts from other tools' files as one frame: Inspect AI eval logs, lm-evaluation-harness
sample files, Hugging Face ``datasets`` folders, besides gasp's tables.

Each reader returns one row per generated text with its ``prompt``, ``text`` and
attributes (a sample's metadata, a document's fields), and notes of what it left out.
The format follows the path (``.eval``; a ``.json`` holding an Inspect log;
``samples_*.jsonl``; a folder saved with ``save_to_disk``) unless named.
"""

from __future__ import annotations

import contextlib
import importlib.util
import re
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.errors import DataError
from gasp.files import check_archive
from gasp.io._lm_eval import read_lm_eval
from gasp.io._tables import TABLE_FORMATS, read_table

INSPECT = "inspect"
LM_EVAL = "lm-eval"
HF_DATASET = "hf-dataset"
#: Every format ``--format`` names.
SOURCE_FORMATS = (*sorted(set(TABLE_FORMATS.values())), INSPECT, LM_EVAL, HF_DATASET)
#: The install command of each optional reader.
EXTRA_INSTALL = {INSPECT: "pip install 'gasp[inspect]'", HF_DATASET: "pip install 'gasp[datasets]'"}
_EXTRA_MODULE = {INSPECT: "inspect_ai", HF_DATASET: "datasets"}
_LM_EVAL_NAME = re.compile(r"^samples_.+\.jsonl$")
#: The first member of every Inspect AI ``.eval`` log.
_INSPECT_START = "_journal/start.json"
#: The columns an Inspect log's reader writes; a sample metadata field of one of these
#: names is kept under ``metadata_<name>``.
_INSPECT_OWN = ("prompt", "text", "model", "task", "sample_id", "epoch")


def _require(fmt: str, path: Path) -> None:
    if importlib.util.find_spec(_EXTRA_MODULE[fmt]) is None:
        raise DataError(f"reading {path} ({fmt}) needs {_EXTRA_MODULE[fmt]}: {EXTRA_INSTALL[fmt]}")


def _is_inspect_json(path: Path) -> bool:
    with path.open("rb") as handle:
        head = handle.read(4096).lstrip()
    return head.startswith(b"{") and b'"eval"' in head and b'"version"' in head


def format_of_source(path: str | Path) -> str:
    """The format of ``path`` by its name (and, for ``.json``, its first bytes)."""
    p = Path(path)
    if p.is_dir():
        return HF_DATASET
    suffix = p.suffix.lower()
    if suffix == ".eval":
        return INSPECT
    if _LM_EVAL_NAME.match(p.name):
        return LM_EVAL
    if suffix == ".json" and p.is_file() and _is_inspect_json(p):
        return INSPECT
    fmt = TABLE_FORMATS.get(suffix)
    if fmt is None and len(p.suffixes) > 1:
        fmt = TABLE_FORMATS.get(p.suffixes[-2].lower())
    if fmt is None:
        known = ", ".join(SOURCE_FORMATS)
        raise DataError(f"cannot tell the format of {p} from its name; give --format ({known})")
    return fmt


def _message_text(value: Any) -> str:
    """The prompt of an Inspect sample input: a string, or its last user message's text."""
    if isinstance(value, str):
        return value
    users = [m for m in value or () if getattr(m, "role", None) == "user"]
    last = users[-1] if users else None
    text = getattr(last, "text", None)
    return text if isinstance(text, str) else ""


def _not_inspect(path: Path, exc: Exception) -> DataError:
    """What to say when ``path`` cannot be read as an Inspect AI log."""
    what = "an Inspect AI log (an .eval file, or a .json log, written by `inspect eval`)"
    if path.suffix.lower() != ".json":
        if not zipfile.is_zipfile(path):
            return DataError(f"{path} is not {what}: it is not a zip archive, as .eval logs are")
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
        if _INSPECT_START not in names and "header.json" not in names:
            return DataError(
                f"{path} is a zip archive but not {what}: it holds no {_INSPECT_START}; "
                "give the log from the folder `inspect eval` wrote (./logs unless "
                "--log-dir), or a table of texts with --format"
            )
    lines = str(exc).strip().splitlines()
    reason = lines[0] if lines else type(exc).__name__
    return DataError(f"cannot read {path} as {what}: {reason}")


def _read_inspect_log(path: Path, header_only: bool) -> Any:
    _require(INSPECT, path)
    from inspect_ai.log import read_eval_log

    if path.suffix.lower() != ".json" and zipfile.is_zipfile(path):
        check_archive(path, "the Inspect AI log")  # a zip bomb is refused unread

    try:
        return read_eval_log(str(path), header_only=header_only)
    except Exception as exc:  # inspect raises many kinds for a broken file
        raise _not_inspect(path, exc) from None


def inspect_task(path: str | Path) -> str:
    """The task name recorded in an Inspect AI eval log (its header only is read)."""
    return str(_read_inspect_log(Path(path), header_only=True).eval.task)


def _status_line(log: Any) -> str:
    """The status of an Inspect log and its error's first line, if it has one."""
    error = getattr(log.error, "message", None) if log.error is not None else None
    first = str(error).strip().splitlines()[0] if error and str(error).strip() else ""
    return f"status {log.status!r}" + (f": {first}" if first else "")


def read_inspect(path: Path) -> tuple[pd.DataFrame, list[str]]:
    """One row per sample of an Inspect AI eval log, in sample and epoch order: ``prompt``,
    ``text`` (the output's completion), ``model``, ``task``, ``sample_id``, ``epoch``,
    ``sample_index`` (epoch - 1 unless the metadata has one) and the sample metadata."""
    log = _read_inspect_log(path, header_only=False)
    rows, failed, renamed = [], 0, set()
    for sample in log.samples or ():
        if sample.error is not None:
            failed += 1
            continue
        metadata = {}
        for key, value in (sample.metadata or {}).items():
            if key in _INSPECT_OWN:  # the log's own value is read; the field is kept aside
                renamed.add(key)
                key = f"metadata_{key}"
            metadata[key] = value
        metadata.setdefault("sample_index", sample.epoch - 1)
        rows.append(
            {
                **metadata,
                "prompt": _message_text(sample.input),
                "text": sample.output.completion if sample.output is not None else "",
                "model": log.eval.model,
                "task": log.eval.task,
                "sample_id": sample.id,
                "epoch": sample.epoch,
            }
        )
    if not rows:
        greedy = ""
        if str(log.eval.model).startswith("hf/") and "temperature" in _status_line(log):
            greedy = " (greedy answers from Inspect's hf/ provider: -M do_sample=false)"
        raise DataError(
            f"{path} holds no sample with an answer ({_status_line(log)}); "
            f"run the task again{greedy}, or finish it with `inspect eval-retry {path}`"
        )
    notes = [f"read {len(rows)} samples of Inspect task {log.eval.task!r} ({log.eval.model})"]
    if log.status != "success":
        notes.append(
            f"warning: Inspect log of {_status_line(log)}: it holds {len(rows)} samples "
            f"with an answer, analysed as they are (`inspect eval-retry {path}` finishes it)"
        )
    if failed:
        notes.append(f"left out {failed} samples that ended in an error")
    notes += [f"metadata field {k!r} kept as 'metadata_{k}'" for k in sorted(renamed)]
    frame = pd.DataFrame(rows)
    with contextlib.suppress(TypeError):  # sample ids of mixed types keep the log's order
        frame = frame.sort_values(["sample_id", "epoch"], kind="stable")
    return frame.reset_index(drop=True), notes


def read_hf_dataset(path: Path) -> tuple[pd.DataFrame, list[str]]:
    """The rows of a folder saved with ``datasets``' ``save_to_disk`` (a dataset, or a
    dataset dict whose splits are stacked with a ``split`` column)."""
    _require(HF_DATASET, path)
    import datasets

    try:
        loaded = datasets.load_from_disk(str(path))
    except Exception as exc:  # datasets raises FileNotFoundError and its own errors
        raise DataError(f"cannot read {path} as a saved datasets folder: {exc}") from None
    if isinstance(loaded, datasets.DatasetDict):
        frames = [ds.to_pandas().assign(split=name) for name, ds in loaded.items()]
        frame = pd.concat(frames, ignore_index=True)
        note = f"read the splits {', '.join(loaded)} of {path} (column 'split')"
        return frame, [note]
    return loaded.to_pandas(), []


def read_frame(path: str | Path, fmt: str | None = None) -> tuple[pd.DataFrame, str, list[str]]:
    """The rows at ``path`` (any format of :data:`SOURCE_FORMATS`), the format read and
    notes; ``fmt`` overrides the format told by the name."""
    p = Path(path)
    if not p.exists():
        raise DataError(f"file not found: {p}")
    if fmt is not None and fmt not in SOURCE_FORMATS:
        raise DataError(f"unknown format {fmt!r} (formats: {', '.join(SOURCE_FORMATS)})")
    found = fmt or format_of_source(p)
    if found == INSPECT:
        frame, notes = read_inspect(p)
    elif found == LM_EVAL:
        frame, notes = read_lm_eval(p)
    elif found == HF_DATASET:
        frame, notes = read_hf_dataset(p)
    elif fmt is None or TABLE_FORMATS.get(p.suffix.lower()) == fmt:
        frame, notes = read_table(p), []
    else:
        raise DataError(f"--format {fmt}: rename {p} to end in its format's suffix")
    if len(frame) == 0:
        raise DataError(f"{p} has no rows")
    frame.columns = [str(c) for c in frame.columns]
    return frame, found, notes
