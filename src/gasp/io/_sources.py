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
import json
import re
from pathlib import Path
from typing import Any

import pandas as pd

from gasp.errors import DataError
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


def inspect_task(path: str | Path) -> str:
    """The task name recorded in an Inspect AI eval log (its header only is read)."""
    p = Path(path)
    _require(INSPECT, p)
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(p), header_only=True)
    except Exception as exc:  # inspect raises many kinds for a broken file
        raise DataError(f"cannot read {p} as an Inspect AI log: {exc}") from None
    return str(log.eval.task)


def read_inspect(path: Path) -> tuple[pd.DataFrame, list[str]]:
    """One row per sample of an Inspect AI eval log, in sample and epoch order: ``prompt``,
    ``text`` (the output's completion), ``model``, ``task``, ``sample_id``, ``epoch``,
    ``sample_index`` (epoch - 1 unless the metadata has one) and the sample metadata."""
    _require(INSPECT, path)
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path))
    except Exception as exc:  # inspect raises many kinds for a broken file
        raise DataError(f"cannot read {path} as an Inspect AI log: {exc}") from None
    rows, failed = [], 0
    for sample in log.samples or ():
        if sample.error is not None:
            failed += 1
            continue
        metadata = dict(sample.metadata or {})
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
        raise DataError(f"{path} holds no sample with an answer (status {log.status})")
    notes = [f"read {len(rows)} samples of Inspect task {log.eval.task!r} ({log.eval.model})"]
    if failed:
        notes.append(f"left out {failed} samples that ended in an error")
    frame = pd.DataFrame(rows)
    with contextlib.suppress(TypeError):  # sample ids of mixed types keep the log's order
        frame = frame.sort_values(["sample_id", "epoch"], kind="stable")
    return frame.reset_index(drop=True), notes


def _lm_eval_prompt(arguments: Any) -> str:
    """The prompt of an lm-eval sample: the first argument of its first request."""
    first: Any = arguments
    if isinstance(first, dict):  # {"gen_args_0": {"arg_0": prompt, "arg_1": kwargs}}
        first = next(iter(first.values()), {})
        return str(first.get("arg_0", "")) if isinstance(first, dict) else str(first)
    while isinstance(first, list) and first:
        first = first[0]
    return "" if isinstance(first, list) else str(first)


def read_lm_eval(path: Path) -> tuple[pd.DataFrame, list[str]]:
    """One row per generation of an lm-eval ``samples_<task>_<time>.jsonl`` file
    (``--log_samples``): ``prompt``, ``text``, ``doc_id``, ``sample_index`` (the
    repeat), ``task`` and the document's scalar fields."""
    task = re.sub(r"_\d{4}-\d{2}-\d{2}T.*$", "", path.stem.removeprefix("samples_"))
    rows = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read {path}: {exc}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}:{number}: not JSON ({exc.msg})") from None
        if not isinstance(record, dict) or "resps" not in record:
            raise DataError(f"{path}:{number}: not an lm-eval sample (no 'resps')")
        doc = record.get("doc")
        fields = {
            k: v
            for k, v in (doc.items() if isinstance(doc, dict) else ())
            if isinstance(v, str | int | float | bool)
        }
        generations = record["resps"][0] if record["resps"] else []
        if not isinstance(generations, list):
            generations = [generations]
        for index, text in enumerate(generations):
            rows.append(
                {
                    **fields,
                    "prompt": _lm_eval_prompt(record.get("arguments")),
                    "text": text if isinstance(text, str) else json.dumps(text),
                    "doc_id": record.get("doc_id"),
                    "sample_index": index,
                    "task": task,
                }
            )
    if not rows:
        raise DataError(f"{path} holds no lm-eval sample")
    return pd.DataFrame(rows), [f"read {len(rows)} generations of lm-eval task {task!r}"]


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
